"""The transcript offset index: reused while the file only grows, never trusted when stale."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from agent_cli.sources import SourcePointerResolver
from agent_cli.sources.index import BLOCK_BYTES

T0 = "2024-05-01T10:00:00+00:00"


def line_for(session: str, sequence: int, text: str = "") -> bytes:
    return json.dumps(
        {
            "schema_version": 1,
            "session_id": session,
            "sequence": sequence,
            "event_id": f"transcript:{session}:{sequence}",
            "recorded_at": T0,
            "kind": "message",
            "payload": {"text": text or f"r{sequence}"},
        }
    ).encode()


def sha(line: bytes) -> str:
    return hashlib.sha256(line).hexdigest()


class CountingReads:
    """`os.pread` that adds up how many bytes were asked for."""

    def __init__(self) -> None:
        self.bytes_read = 0

    def __call__(self, fd: int, size: int, offset: int) -> bytes:
        data = os.pread(fd, size, offset)
        self.bytes_read += len(data)
        return data


@pytest.fixture
def path(tmp_path: Path) -> Path:
    (tmp_path / "transcripts").mkdir()
    return tmp_path / "transcripts" / "s1.jsonl"


def resolver_for(path: Path, **kwargs) -> SourcePointerResolver:
    return SourcePointerResolver(path.parent, path.parent.parent, **kwargs)


def test_appended_records_are_found_by_extending_the_index_not_rescanning(path):
    lines = [line_for("s1", n, "x" * 200) for n in range(1, 2001)]
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    reads = CountingReads()
    resolver = resolver_for(path, read_at=reads)
    assert resolver.resolve("transcript:s1:2000").status.value == "available"
    assert reads.bytes_read >= path.stat().st_size
    new = line_for("s1", 2001)
    with path.open("ab") as handle:
        handle.write(new + b"\n")
    reads.bytes_read = 0
    found = resolver.resolve("transcript:s1:2001")
    assert found.evidence_sha256 == sha(new)
    assert reads.bytes_read < 2 * BLOCK_BYTES < path.stat().st_size // 2


def test_a_warm_lookup_reads_about_one_block_not_the_file(path):
    lines = [line_for("s1", n, "y" * 100) for n in range(1, 20001)]
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    reads = CountingReads()
    resolver = resolver_for(path, read_at=reads)
    resolver.resolve("transcript:s1:1")
    for sequence in (19999, 1, 12345, 20000):
        reads.bytes_read = 0
        found = resolver.resolve(f"transcript:s1:{sequence}")
        assert found.evidence_sha256 == sha(lines[sequence - 1])
        assert reads.bytes_read < 2 * BLOCK_BYTES < path.stat().st_size // 10


def test_a_file_replaced_by_another_is_reindexed(path):
    path.write_bytes(b"".join(line_for("s1", n) + b"\n" for n in range(1, 4)))
    resolver = resolver_for(path)
    assert resolver.resolve("transcript:s1:3").status.value == "available"
    replacement = [line_for("s1", n, "longer text " * n) for n in range(1, 4)]
    temp = path.with_suffix(".tmp")
    temp.write_bytes(b"".join(line + b"\n" for line in replacement))
    os.replace(temp, path)
    assert resolver.resolve("transcript:s1:3").evidence_sha256 == sha(replacement[2])


def test_a_file_that_shrank_is_reindexed(path):
    path.write_bytes(b"".join(line_for("s1", n) + b"\n" for n in range(1, 6)))
    resolver = resolver_for(path)
    assert resolver.resolve("transcript:s1:5").status.value == "available"
    kept = b"".join(line_for("s1", n) + b"\n" for n in range(1, 3))
    with path.open("r+b") as handle:
        handle.truncate(len(kept))
    assert resolver.resolve("transcript:s1:5").reason == "sequence_not_found"
    assert resolver.resolve("transcript:s1:2").status.value == "available"


def test_a_same_size_rewrite_in_place_with_the_old_mtime_is_still_caught(path):
    original = [line_for("s1", 1, "aaaa"), line_for("s1", 2, "b"), line_for("s1", 3, "cc")]
    path.write_bytes(b"".join(line + b"\n" for line in original))
    before = path.stat()
    resolver = resolver_for(path)
    assert resolver.resolve("transcript:s1:3").evidence_sha256 == sha(original[2])
    rewritten = [line_for("s1", 1, "a"), line_for("s1", 2, "bbbb"), line_for("s1", 3, "cc")]
    with path.open("r+b") as handle:
        handle.write(b"".join(line + b"\n" for line in rewritten))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_ino == before.st_ino
    assert resolver.resolve("transcript:s1:2").evidence_sha256 == sha(rewritten[1])
    assert resolver.resolve("transcript:s1:1").evidence_sha256 == sha(rewritten[0])


def test_a_growing_rewrite_that_breaks_the_last_line_end_is_rescanned(path):
    path.write_bytes(b"".join(line_for("s1", n) + b"\n" for n in range(1, 3)))
    resolver = resolver_for(path)
    assert resolver.resolve("transcript:s1:2").status.value == "available"
    lines = [line_for("s1", 1, "now much longer than before"), line_for("s1", 2), line_for("s1", 3)]
    with path.open("r+b") as handle:
        handle.write(b"".join(line + b"\n" for line in lines))
    assert resolver.resolve("transcript:s1:3").evidence_sha256 == sha(lines[2])
    assert resolver.resolve("transcript:s1:1").evidence_sha256 == sha(lines[0])


def test_a_torn_line_completed_later_becomes_available(path):
    full = line_for("s1", 2)
    path.write_bytes(line_for("s1", 1) + b"\n" + full[:10])
    resolver = resolver_for(path)
    assert resolver.resolve("transcript:s1:2").reason == "sequence_not_found"
    with path.open("ab") as handle:
        handle.write(full[10:] + b"\n")
    assert resolver.resolve("transcript:s1:2").evidence_sha256 == sha(full)


def test_each_session_keeps_its_own_index(tmp_path):
    root = tmp_path / "transcripts"
    root.mkdir()
    for session, count in (("a", 3), ("b", 5)):
        (root / f"{session}.jsonl").write_bytes(
            b"".join(line_for(session, n) + b"\n" for n in range(1, count + 1))
        )
    resolver = SourcePointerResolver(root, tmp_path)
    assert resolver.resolve("transcript:a:3").status.value == "available"
    assert resolver.resolve("transcript:b:5").status.value == "available"
    assert resolver.resolve("transcript:a:4").reason == "sequence_not_found"
