"""Crash safety: a writer killed with SIGKILL mid-loop loses nothing it acknowledged."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from agent_cli.store.transcript import TranscriptStore

SID = "crash-1"
PROJECT_ROOT = Path(__file__).resolve().parents[1]

# Appends forever; after each append returns, prints the sequence it was given. Record
# sizes vary up to ~600 KB so the kill has a fair chance to land inside a write.
CHILD = """
import sys
from datetime import datetime, timezone
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from agent_cli.store.transcript import TranscriptStore
writer = TranscriptStore(Path(sys.argv[1])).open_writer(sys.argv[3])
n = 0
while True:
    n += 1
    size = (n * 7919) % 600_000
    record = writer.append("message", {"n": writer.next_sequence, "pad": "p" * size},
                           datetime.now(timezone.utc))
    print(record["sequence"], flush=True)
"""


def run_and_kill(root: Path, acks_before_kill: int) -> list[int]:
    """Start the appending child, SIGKILL it after some acknowledgements, return them all."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(root), str(PROJECT_ROOT), SID],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    acked = []
    while len(acked) < acks_before_kill:
        line = child.stdout.readline()
        assert line, "the child stopped before it was killed"
        acked.append(int(line))
    os.kill(child.pid, signal.SIGKILL)
    acked.extend(int(line) for line in child.stdout.read().split())
    assert child.wait() == -signal.SIGKILL
    return acked


def test_a_killed_writer_keeps_every_acknowledged_record_and_the_sequence_continues(
    tmp_path: Path,
) -> None:
    store = TranscriptStore(tmp_path / "transcripts")
    all_acked: list[int] = []
    for _round in range(3):
        all_acked.extend(run_and_kill(store.root, acks_before_kill=25))
        kept = [record["sequence"] for record in store.replay(SID)]
        assert kept == list(range(1, len(kept) + 1))
        assert set(all_acked) <= set(kept)
        assert all(r["payload"]["n"] == r["sequence"] for r in store.replay(SID))
        with store.open_writer(SID) as writer:
            assert writer.next_sequence == len(kept) + 1
    with store.open_writer(SID) as writer:
        last = writer.append("notice", {"code": "after-crashes"}, datetime.now(UTC))
    assert [r["sequence"] for r in store.replay(SID)][-1] == last["sequence"]
    assert last["sequence"] > max(all_acked)
