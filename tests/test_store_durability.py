"""The durability calls happen on the paths that succeed, not only where tests break them.

A failing disk shows that errors are handled; it cannot show that a working disk is told
to make things durable. `RecordingOps` passes every call to the real `FileOps` and notes
it, so these tests fail if an fsync (of a file or of its folder) goes missing: a mutation
audit found that deleting the fsync after a rollback's truncate, or the folder fsync when
a transcript is created, broke no earlier test.
"""

from __future__ import annotations

import errno
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent_cli.durable.model import DurableContextState
from agent_cli.errors import TranscriptWriteFailed
from agent_cli.store.artifacts import ArtifactStore
from agent_cli.store.fsutil import FileOps
from agent_cli.store.memory import MemoryStore
from agent_cli.store.transcript import TranscriptStore

T0 = datetime(2026, 12, 3, 9, 0, 0, tzinfo=UTC)


class RecordingOps(FileOps):
    """Real file operations, each noted as (name, file identity or path, detail)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object, object]] = []
        self.short_writes = 0  # how many of the next writes take only half the bytes
        self.refused_writes = 0  # how many writes after those fail with ENOSPC

    def write(self, fd: int, data: bytes) -> int:
        if self.short_writes:
            self.short_writes -= 1
            data = data[: len(data) // 2]
        elif self.refused_writes:
            self.refused_writes -= 1
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written = super().write(fd, data)
        self.calls.append(("write", _identity(fd), written))
        return written

    def fsync(self, fd: int) -> None:
        super().fsync(fd)
        self.calls.append(("fsync", _identity(fd), None))

    def ftruncate(self, fd: int, size: int) -> None:
        super().ftruncate(fd, size)
        self.calls.append(("ftruncate", _identity(fd), size))

    def replace(self, source: Path, target: Path) -> None:
        super().replace(source, target)
        self.calls.append(("replace", Path(target), None))

    def fsync_dir(self, path: Path) -> None:
        super().fsync_dir(path)
        self.calls.append(("fsync_dir", Path(path), sorted(os.listdir(path))))

    def names(self) -> list[str]:
        return [name for name, _, _ in self.calls]


def _identity(fd: int) -> tuple[int, int]:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino


def _file_identity(path: Path) -> tuple[int, int]:
    info = path.stat()
    return info.st_dev, info.st_ino


def test_creating_a_transcript_fsyncs_its_folder_once_the_file_is_there(tmp_path: Path):
    ops = RecordingOps()
    store = TranscriptStore(tmp_path / "transcripts", fs=ops)
    with store.open_writer("s1"):
        folder_syncs = [call for call in ops.calls if call[0] == "fsync_dir"]
    assert folder_syncs == [("fsync_dir", store.root, ["s1.jsonl"])]


def test_every_append_is_written_then_fsynced_on_the_same_file(tmp_path: Path):
    ops = RecordingOps()
    store = TranscriptStore(tmp_path / "transcripts", fs=ops)
    with store.open_writer("s1") as writer:
        ops.calls.clear()
        writer.append("notice", {"code": "a"}, T0)
        writer.append("notice", {"code": "b"}, T0)
        identity = _file_identity(store.path_for("s1"))
    assert [(name, who) for name, who, _ in ops.calls] == [
        ("write", identity),
        ("fsync", identity),
        ("write", identity),
        ("fsync", identity),
    ]


def test_a_rolled_back_append_is_truncated_and_the_truncation_fsynced(tmp_path: Path):
    ops = RecordingOps()
    store = TranscriptStore(tmp_path / "transcripts", fs=ops)
    with store.open_writer("s1") as writer:
        writer.append("notice", {"code": "kept"}, T0)
        size = store.path_for("s1").stat().st_size
        identity = _file_identity(store.path_for("s1"))
        ops.calls.clear()
        ops.short_writes, ops.refused_writes = 1, 1  # a disk filling up
        with pytest.raises(TranscriptWriteFailed):
            writer.append("notice", {"code": "torn"}, T0)
        after_rollback = list(ops.calls)
        writer.append("notice", {"code": "next"}, T0)  # the rollback left the writer usable
    assert [(name, who, detail) for name, who, detail in after_rollback[1:]] == [
        ("ftruncate", identity, size),
        ("fsync", identity, None),
    ]
    assert [record["payload"]["code"] for record in store.replay("s1")] == ["kept", "next"]


def test_a_torn_tail_set_aside_on_open_is_fsynced_in_both_files(tmp_path: Path):
    store = TranscriptStore(tmp_path / "transcripts")
    with store.open_writer("s1") as writer:
        writer.append("notice", {"code": "kept"}, T0)
    size = store.path_for("s1").stat().st_size
    with store.path_for("s1").open("ab") as handle:
        handle.write(b'{"schema_version": 1, "sess')
    ops = RecordingOps()
    with TranscriptStore(store.root, fs=ops).open_writer("s1"):
        pass
    side = store.root / "s1.jsonl.torn-1"
    transcript = _file_identity(store.path_for("s1"))
    assert ("fsync", _file_identity(side), None) in ops.calls
    cut = ops.calls.index(("ftruncate", transcript, size))
    assert ops.calls[cut + 1] == ("fsync", transcript, None)
    assert ops.calls[-1][:2] == ("fsync_dir", store.root)


def _assert_atomic_write(ops: RecordingOps, target: Path) -> None:
    """A temp file fsynced, renamed over `target`, then the folder fsynced."""
    names = ops.names()
    assert names[-3:] == ["fsync", "replace", "fsync_dir"], names
    assert ops.calls[-3][1] == _file_identity(target)  # the temp file is now the target
    assert ops.calls[-2][1] == target
    assert ops.calls[-1][:2] == ("fsync_dir", target.parent)


def test_a_memory_save_fsyncs_the_file_and_then_its_folder(tmp_path: Path):
    ops = RecordingOps()
    store = MemoryStore(tmp_path / "memory", fs=ops)
    path = store.save(tmp_path, DurableContextState())
    _assert_atomic_write(ops, path)


def test_an_artifact_put_fsyncs_the_file_and_then_its_folder(tmp_path: Path):
    ops = RecordingOps()
    ref = ArtifactStore(tmp_path / "state", fs=ops).put("s1", b"big output")
    _assert_atomic_write(ops, ref.path)
