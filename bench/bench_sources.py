"""Source-resolution figures: pointers near the end of a 50,000-record transcript.

Run with `python -m bench bench_sources` (or `make bench`). Works in a temp folder; prints
figures only, asserts nothing. The transcript is written as plain JSON lines in the
record shape of DESIGN.md section 4. Figures: the first resolve of a fresh resolver
(which builds the offset index), the same 20 pointers again (warm index), a resolve after
one more record is appended (the index is extended, not rebuilt), a streaming replay of
the whole file for comparison, and the streaming hash of a 32 MiB artifact.
"""

from __future__ import annotations

import functools
import hashlib
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from agent_cli.sources import SourcePointerResolver

Result = TypeVar("Result")

RECORDS = 50_000
POINTERS = 20
SESSION = "bench-session"
RECORDED_AT = "2024-05-01T10:00:00+00:00"
ARTIFACT_MIB = 32


def record_line(sequence: int) -> bytes:
    text = f"message {sequence}: " + "lorem ipsum dolor sit amet " * 8
    return (
        json.dumps(
            {
                "schema_version": 1,
                "session_id": SESSION,
                "sequence": sequence,
                "event_id": f"transcript:{SESSION}:{sequence}",
                "recorded_at": RECORDED_AT,
                "kind": "message",
                "payload": {
                    "message": {"role": "user" if sequence % 2 else "assistant", "content": text}
                },
            },
            separators=(",", ":"),
        ).encode()
        + b"\n"
    )


def write_transcript(folder: Path) -> Path:
    path = folder / f"{SESSION}.jsonl"
    with path.open("wb") as handle:
        for sequence in range(1, RECORDS + 1):
            handle.write(record_line(sequence))
    return path


def timed(action: Callable[[], Result]) -> tuple[float, Result]:
    started = time.perf_counter()
    result = action()
    return time.perf_counter() - started, result


def bench_pointers(transcripts: Path, home: Path) -> None:
    resolver = SourcePointerResolver(transcripts, home)
    pointers = [f"transcript:{SESSION}:{RECORDS - n}" for n in range(POINTERS)]
    first, found = timed(lambda: resolver.resolve(pointers[0]))
    assert found.status.value == "available", found
    print(
        f"first resolve (fresh resolver, builds the index of {RECORDS} lines): {first * 1e3:.1f} ms"
    )
    warm = []
    for pointer in pointers:
        elapsed, found = timed(functools.partial(resolver.resolve, pointer))
        assert found.status.value == "available", found
        warm.append(elapsed)
    print(
        f"{POINTERS} pointers near the end, warm index: total {sum(warm) * 1e3:.2f} ms, "
        f"median {statistics.median(warm) * 1e6:.0f} us, max {max(warm) * 1e6:.0f} us"
    )
    with (transcripts / f"{SESSION}.jsonl").open("ab") as handle:
        handle.write(record_line(RECORDS + 1))
    grown, found = timed(lambda: resolver.resolve(f"transcript:{SESSION}:{RECORDS + 1}"))
    assert found.status.value == "available", found
    print(f"resolve after one append (index extended): {grown * 1e6:.0f} us")


def replay(path: Path) -> int:
    """Stream every record and check its sequence: what resuming a session costs."""
    count = 0
    with path.open("rb") as handle:
        for count, line in enumerate(handle, start=1):
            if json.loads(line)["sequence"] != count:
                raise ValueError(count)
    return count


def bench_artifact(home: Path) -> None:
    folder = home / SESSION / "tool-results"
    folder.mkdir(parents=True)
    block = (b"tool output line, plain ascii text for hashing\n" * 1024)[: 1 << 16]
    digest = hashlib.sha256()
    with (folder / "big.txt").open("wb") as handle:
        for _ in range(ARTIFACT_MIB * 16):
            handle.write(block)
            digest.update(block)
    resolver = SourcePointerResolver(home / "transcripts", home)
    pointer = f"artifact:{SESSION}:big.txt:{digest.hexdigest()[:12]}"
    elapsed, found = timed(lambda: resolver.resolve(pointer))
    assert found.status.value == "available", found
    print(
        f"artifact of {ARTIFACT_MIB} MiB hashed and UTF-8 checked as a stream: "
        f"{elapsed * 1e3:.0f} ms ({ARTIFACT_MIB / elapsed:.0f} MiB/s)"
    )


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-sources-") as temp:
        home = Path(temp)
        transcripts = home / "transcripts"
        transcripts.mkdir()
        write_time, path = timed(lambda: write_transcript(transcripts))
        size_mib = path.stat().st_size / (1 << 20)
        print(f"wrote {RECORDS} records ({size_mib:.1f} MiB) in {write_time:.2f} s")
        bench_pointers(transcripts, home)
        elapsed, count = timed(lambda: replay(path))
        print(
            f"streaming replay of {count} records: {elapsed * 1e3:.0f} ms "
            f"({count / elapsed:,.0f} records/s)"
        )
        bench_artifact(home)


if __name__ == "__main__":
    main()
