"""Store figures: transcript append (with and without fsync), replay, reopen, artifacts,
and the resume of a long session with and without the token counts its records keep.

Run with `python -m bench bench_stores` (or `make bench`). Works in a temp folder; prints
figures only, asserts nothing. The bulk fill passes a `FileOps` without fsync, the same
injection point the tests use, so the 50,000-record file is built in seconds; the
per-append cost that a session pays is measured separately with real fsyncs.

The resume: a 3,000-turn session (6,001 messages, 2 KB tool results) is recorded
through a real session, then resumed (`open_session` and the first count of its view)
as written and again with the counts taken out of its records, as a transcript written
before records kept them reads. The encoding is loaded once before either is timed, so
the ratio is what the counts save, not tiktoken's start-up.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent_cli.provider.offline import OfflineProvider
from agent_cli.session import open_session
from agent_cli.store.artifacts import ArtifactStore
from agent_cli.store.fsutil import FileOps
from agent_cli.store.paths import resolve_state_paths
from agent_cli.store.transcript import TranscriptStore
from bench.bench_compaction import NO_COMPACTION, build_history

FSYNC_APPENDS = 5_000
BULK_RECORDS = 50_000
SESSION = "bench-session"
RESUME_TURNS = 3_000
RESUME_RUNS = 2  # the best of these, each way


class NoFsyncOps(FileOps):
    """Real writes, skipped fsyncs: for filling a big file fast, never for a session."""

    def fsync(self, fd: int) -> None:
        return None


def sample_payload(n: int) -> dict[str, Any]:
    text = f"message {n}: " + "lorem ipsum dolor sit amet " * 8
    return {"message": {"role": "user" if n % 2 else "assistant", "content": text}}


def timed_appends(store: TranscriptStore, session_id: str, count: int) -> list[float]:
    """Append `count` records and return each append's wall time in seconds."""
    moment = datetime.now(UTC)
    durations = []
    with store.open_writer(session_id) as writer:
        for n in range(count):
            started = time.perf_counter()
            writer.append("message", sample_payload(n), moment)
            durations.append(time.perf_counter() - started)
    return durations


def describe(label: str, durations: list[float]) -> None:
    ordered = sorted(durations)
    p99 = ordered[int(len(ordered) * 0.99) - 1]
    print(
        f"{label}: {len(durations)} appends, total {sum(durations):.2f} s, "
        f"mean {statistics.fmean(durations) * 1e6:.0f} us, "
        f"median {statistics.median(durations) * 1e6:.0f} us, p99 {p99 * 1e6:.0f} us"
    )


def bench_replay(store: TranscriptStore, session_id: str) -> None:
    started = time.perf_counter()
    records = store.replay(session_id)
    next(records)
    first = time.perf_counter() - started
    count = 1 + sum(1 for _ in records)
    total = time.perf_counter() - started
    size_mb = store.path_for(session_id).stat().st_size / 1e6
    print(
        f"replay: {count} records ({size_mb:.1f} MB) in {total:.2f} s "
        f"({count / total:,.0f} records/s); first record after {first * 1e3:.2f} ms"
    )


def bench_reopen(store: TranscriptStore, session_id: str) -> None:
    started = time.perf_counter()
    with store.open_writer(session_id) as writer:
        next_sequence = writer.next_sequence
    elapsed = time.perf_counter() - started
    print(f"open_writer (validating scan) on {next_sequence - 1} records: {elapsed:.2f} s")


def bench_artifacts(root: Path) -> None:
    store = ArtifactStore(root)
    blob = bytes(range(256)) * (40 * 1024)  # 10 MiB
    started = time.perf_counter()
    ref = store.put(SESSION, blob, suffix=".bin")
    put_time = time.perf_counter() - started
    started = time.perf_counter()
    store.put(SESSION, blob, suffix=".bin")
    again_time = time.perf_counter() - started
    started = time.perf_counter()
    tail = store.read_range(ref.pointer, offset=ref.size - 65536)
    read_time = time.perf_counter() - started
    print(
        f"artifact 10 MiB: put {put_time * 1e3:.1f} ms, idempotent re-put "
        f"{again_time * 1e3:.1f} ms, verified read of last {len(tail)} B {read_time * 1e3:.1f} ms"
    )


def _open(home: Path, resume: str | None = None) -> Any:
    return open_session(
        paths=resolve_state_paths({"AGENT_CLI_HOME": str(home)}),
        provider=OfflineProvider(),
        workspace=home,
        policy=NO_COMPACTION,
        resume=resume,
        transcript_fs=NoFsyncOps(),
    )


def time_resume(home: Path, session_id: str) -> float:
    """Best CPU seconds of: resume the session and count its view (the first turn's
    check). CPU time, because the machine is shared and the work is this one thread's."""
    durations = []
    for _ in range(RESUME_RUNS):
        started = time.process_time()
        session = _open(home, session_id)
        session.conversation.measure_view(NO_COMPACTION)
        durations.append(time.process_time() - started)
        session.close()
    return min(durations)


def _drop_counts(transcript: Path) -> None:
    """Rewrite the transcript as one written before records kept token counts."""
    records = [json.loads(line) for line in transcript.read_text().splitlines()]
    for record in records:
        record["payload"].pop("tokens", None)
    transcript.write_text("".join(json.dumps(record) + "\n" for record in records))


def bench_resume(root: Path) -> None:
    home = root / "resume-home"
    home.mkdir()
    session = _open(home)
    for message in build_history(RESUME_TURNS):
        session.conversation.append(message)
    session_id, transcript = session.session_id, Path(session.transcript_path)
    session.close()
    with_counts = time_resume(home, session_id)
    _drop_counts(transcript)
    without = time_resume(home, session_id)
    print(
        f"resume of {RESUME_TURNS:,} turns ({2 * RESUME_TURNS + 1:,} msgs) and its first count: "
        f"{with_counts:.2f} s CPU with recorded counts, {without:.2f} s without "
        f"({without / with_counts:.1f}x)"
    )


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="agent-cli-bench-") as folder:
        root = Path(folder)
        durable = TranscriptStore(root / "transcripts")
        describe("append with fsync", timed_appends(durable, "fsync-session", FSYNC_APPENDS))
        bulk = TranscriptStore(root / "transcripts", fs=NoFsyncOps())
        describe("append without fsync (bulk fill)", timed_appends(bulk, SESSION, BULK_RECORDS))
        bench_replay(durable, SESSION)
        bench_reopen(durable, SESSION)
        bench_artifacts(root)
        bench_resume(root)


if __name__ == "__main__":
    main()
