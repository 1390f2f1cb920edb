"""Transcript writer under stress: a second writer, a full disk, a file changed underneath."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent_cli.errors import (
    StateDirUnavailable,
    TranscriptChangedUnderneath,
    TranscriptLocked,
    TranscriptWriteFailed,
)
from agent_cli.store.fsutil import FileOps
from agent_cli.store.transcript import TranscriptStore

SID = "s1"
T0 = datetime(2026, 12, 2, 14, 56, 1, tzinfo=UTC)
PROJECT_ROOT = Path(__file__).resolve().parents[1]


class FailingOps(FileOps):
    """Real file operations, except the next write / fsync / ftruncate fails as told."""

    def __init__(self) -> None:
        self.fail_write: int | None = None  # errno to raise
        self.short_write = False  # write half, return the half count
        # what the write of the rest after a short write meets, as a disk gives it: an
        # errno raised (ENOSPC: a full disk; EFBIG: a file-size limit), 0 (it takes
        # nothing) or None (it is taken)
        self.after_short: int | None = errno.ENOSPC
        self.fail_fsync: int | None = None
        self.fail_ftruncate: int | None = None

    def write(self, fd: int, data: bytes) -> int:
        if self.fail_write is not None:
            code, self.fail_write = self.fail_write, None
            if code == 0:
                return 0
            raise OSError(code, os.strerror(code))
        if self.short_write:
            self.short_write = False
            self.fail_write = self.after_short
            return os.write(fd, data[: len(data) // 2])
        return super().write(fd, data)

    def fsync(self, fd: int) -> None:
        if self.fail_fsync is not None:
            code, self.fail_fsync = self.fail_fsync, None
            raise OSError(code, os.strerror(code))
        super().fsync(fd)

    def ftruncate(self, fd: int, size: int) -> None:
        if self.fail_ftruncate is not None:
            code, self.fail_ftruncate = self.fail_ftruncate, None
            raise OSError(code, os.strerror(code))
        super().ftruncate(fd, size)


@pytest.fixture
def ops() -> FailingOps:
    return FailingOps()


@pytest.fixture
def store(tmp_path: Path, ops: FailingOps) -> TranscriptStore:
    return TranscriptStore(tmp_path / "transcripts", fs=ops)


def sequences(store: TranscriptStore) -> list[int]:
    return [r["sequence"] for r in store.replay(SID)]


def test_a_second_writer_in_the_same_process_is_refused(store: TranscriptStore) -> None:
    with store.open_writer(SID) as first:
        with pytest.raises(TranscriptLocked) as caught:
            store.open_writer(SID)
        assert caught.value.session_id == SID
        first.append("notice", {}, T0)
    with store.open_writer(SID) as again:
        assert again.next_sequence == 2


def test_a_writer_in_another_process_is_refused(store: TranscriptStore) -> None:
    child = (
        "import sys\n"
        "from pathlib import Path\n"
        "from agent_cli.errors import TranscriptLocked\n"
        "from agent_cli.store.transcript import TranscriptStore\n"
        "try:\n"
        "    TranscriptStore(Path(sys.argv[1])).open_writer('s1')\n"
        "except TranscriptLocked:\n"
        "    print('locked')\n"
        "else:\n"
        "    print('opened')\n"
    )
    with store.open_writer(SID):
        held = run_child(child, store.root)
    assert held == "locked"
    assert run_child(child, store.root) == "opened"


def run_child(code: str, root: Path) -> str:
    env = dict(os.environ, PYTHONPATH=str(PROJECT_ROOT))
    done = subprocess.run(
        [sys.executable, "-c", code, str(root)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.stdout.strip()


@pytest.mark.parametrize(
    ("arrange", "errno_name"),
    [
        (lambda ops: setattr(ops, "fail_write", errno.ENOSPC), "ENOSPC"),
        (lambda ops: setattr(ops, "fail_write", errno.EIO), "EIO"),
        (lambda ops: setattr(ops, "short_write", True), "ENOSPC"),  # a disk filling up
        (lambda ops: ops.__dict__.update(short_write=True, after_short=errno.EFBIG), "EFBIG"),
        (lambda ops: ops.__dict__.update(short_write=True, after_short=0), "short_write"),
        (lambda ops: setattr(ops, "fail_fsync", errno.EIO), "EIO"),
    ],
)
def test_a_failed_append_leaves_no_half_record(
    store: TranscriptStore, ops: FailingOps, arrange, errno_name: str
) -> None:
    with store.open_writer(SID) as writer:
        writer.append("notice", {"code": "kept"}, T0)
        size_before = store.path_for(SID).stat().st_size
        arrange(ops)
        with pytest.raises(TranscriptWriteFailed) as caught:
            writer.append("message", {"text": "z" * 10_000}, T0)
        assert (caught.value.session_id, caught.value.errno_name) == (SID, errno_name)
        assert store.path_for(SID).stat().st_size == size_before
        assert writer.append("notice", {"code": "next"}, T0)["sequence"] == 2
    assert sequences(store) == [1, 2]


def test_a_short_write_whose_rest_the_disk_takes_is_one_whole_record(
    store: TranscriptStore, ops: FailingOps
) -> None:
    with store.open_writer(SID) as writer:
        writer.append("notice", {"code": "kept"}, T0)
        ops.short_write, ops.after_short = True, None
        assert writer.append("message", {"text": "z" * 10_000}, T0)["sequence"] == 2
        assert writer.append("notice", {"code": "next"}, T0)["sequence"] == 3
    assert sequences(store) == [1, 2, 3]
    assert [r["payload"].get("text") for r in store.replay(SID)][1] == "z" * 10_000


def test_a_writer_that_cannot_roll_back_repairs_itself_on_the_next_append(
    store: TranscriptStore, ops: FailingOps
) -> None:
    with store.open_writer(SID) as writer:
        writer.append("notice", {}, T0)
        ops.short_write = True
        ops.fail_ftruncate = errno.EIO
        with pytest.raises(TranscriptWriteFailed):
            writer.append("message", {"text": "partial"}, T0)
        # the fault is gone (no restart): the next append cuts the half line and writes
        assert writer.append("notice", {"code": "after"}, T0)["sequence"] == 2
    assert sequences(store) == [1, 2]
    torn = list(store.root.glob(f"{SID}.jsonl.torn-*"))
    assert len(torn) == 1  # the half line is kept aside, not in the transcript
    assert torn[0].read_bytes() and not torn[0].read_bytes().endswith(b"\n")


def test_a_whole_line_whose_fsync_and_roll_back_failed_is_not_duplicated(
    store: TranscriptStore, ops: FailingOps
) -> None:
    with store.open_writer(SID) as writer:
        writer.append("notice", {}, T0)
        ops.fail_fsync = errno.EIO
        ops.fail_ftruncate = errno.EIO
        with pytest.raises(TranscriptWriteFailed):
            writer.append("message", {"text": "retried"}, T0)
        assert writer.append("message", {"text": "retried"}, T0)["sequence"] == 2
    assert sequences(store) == [1, 2]


def test_a_writer_whose_disk_still_refuses_keeps_failing_and_loses_nothing(
    store: TranscriptStore, ops: FailingOps
) -> None:
    with store.open_writer(SID) as writer:
        writer.append("notice", {}, T0)
        ops.short_write = True
        ops.fail_ftruncate = errno.EIO
        with pytest.raises(TranscriptWriteFailed):
            writer.append("message", {"text": "partial"}, T0)
        ops.fail_ftruncate = errno.EIO  # the repair's cut fails too
        with pytest.raises(TranscriptWriteFailed) as caught:
            writer.append("notice", {}, T0)
        assert caught.value.errno_name == "EIO"
        ops.fail_ftruncate = errno.EIO  # and once more
        with pytest.raises(TranscriptWriteFailed):
            writer.append("notice", {}, T0)
        assert writer.append("notice", {"code": "later"}, T0)["sequence"] == 2
    assert sequences(store) == [1, 2]
    assert len(list(store.root.glob(f"{SID}.jsonl.torn-*"))) == 1  # kept aside once


def test_bytes_added_by_someone_else_after_a_failed_roll_back_are_not_cut(
    store: TranscriptStore, ops: FailingOps
) -> None:
    with store.open_writer(SID) as writer:
        writer.append("notice", {}, T0)
        ops.short_write = True
        ops.fail_ftruncate = errno.EIO
        with pytest.raises(TranscriptWriteFailed):
            writer.append("message", {"text": "partial"}, T0)
        with store.path_for(SID).open("ab") as other:
            other.write(b"not ours\n")
        size = store.path_for(SID).stat().st_size
        with pytest.raises(TranscriptChangedUnderneath) as caught:
            writer.append("notice", {}, T0)
        assert caught.value.reason == "grown"
        assert store.path_for(SID).stat().st_size == size


def test_a_deleted_transcript_is_noticed_before_the_next_append(store: TranscriptStore) -> None:
    with store.open_writer(SID) as writer:
        writer.append("notice", {}, T0)
        store.path_for(SID).unlink()
        with pytest.raises(TranscriptChangedUnderneath) as caught:
            writer.append("notice", {}, T0)
    assert caught.value.reason == "deleted"
    assert not store.path_for(SID).exists()


def test_a_replaced_transcript_is_noticed(store: TranscriptStore, tmp_path: Path) -> None:
    with store.open_writer(SID) as writer:
        writer.append("notice", {}, T0)
        stand_in = tmp_path / "stand-in"
        stand_in.write_bytes(store.path_for(SID).read_bytes())
        os.replace(stand_in, store.path_for(SID))
        with pytest.raises(TranscriptChangedUnderneath) as caught:
            writer.append("notice", {}, T0)
    assert caught.value.reason == "replaced"


def test_a_truncated_transcript_is_noticed(store: TranscriptStore) -> None:
    with store.open_writer(SID) as writer:
        writer.append("notice", {}, T0)
        os.truncate(store.path_for(SID), 0)
        with pytest.raises(TranscriptChangedUnderneath) as caught:
            writer.append("notice", {}, T0)
    assert caught.value.reason == "truncated"
    assert store.path_for(SID).read_bytes() == b""


def test_bytes_appended_by_someone_else_are_noticed(store: TranscriptStore) -> None:
    with store.open_writer(SID) as writer:
        writer.append("notice", {}, T0)
        with open(store.path_for(SID), "ab") as intruder:
            intruder.write(b"{}\n")
        with pytest.raises(TranscriptChangedUnderneath) as caught:
            writer.append("notice", {}, T0)
    assert caught.value.reason == "grown"


def test_a_symlink_in_place_of_the_transcript_is_not_followed(
    store: TranscriptStore, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(b"")
    store.root.mkdir(parents=True)
    os.symlink(outside, store.path_for(SID))
    with pytest.raises(StateDirUnavailable) as caught:
        store.open_writer(SID)
    assert caught.value.reason == "ELOOP"
    assert outside.read_bytes() == b""


def test_a_torn_tail_a_full_disk_cannot_set_aside_leaves_no_empty_file(
    store: TranscriptStore, ops: FailingOps
) -> None:
    """Each `--continue` on a full disk over a torn transcript left an empty torn-<n>."""
    with store.open_writer(SID) as writer:
        writer.append("notice", {}, T0)
    torn = b'{"schema_version": 1, "torn'
    with store.path_for(SID).open("ab") as handle:
        handle.write(torn)
    for _ in range(2):
        ops.fail_write = errno.ENOSPC
        with pytest.raises(TranscriptWriteFailed):
            store.open_writer(SID)
        assert list(store.root.glob(f"{SID}.jsonl.torn-*")) == []
    with store.open_writer(SID) as writer:  # room again: set aside once, and cut
        assert writer.torn_tail is not None
    assert [p.read_bytes() for p in store.root.glob(f"{SID}.jsonl.torn-*")] == [torn]
    assert sequences(store) == [1]


def test_a_leftover_a_full_disk_cannot_set_aside_leaves_no_empty_file(
    store: TranscriptStore, ops: FailingOps
) -> None:
    with store.open_writer(SID) as writer:
        writer.append("notice", {}, T0)
        ops.short_write = True
        ops.fail_ftruncate = errno.EIO  # the half line stays: the writer is broken
        with pytest.raises(TranscriptWriteFailed):
            writer.append("message", {"text": "partial"}, T0)
        ops.fail_write = errno.ENOSPC  # and setting it aside fails
        with pytest.raises(TranscriptWriteFailed):
            writer.append("notice", {}, T0)
        assert list(store.root.glob(f"{SID}.jsonl.torn-*")) == []
        assert writer.append("notice", {"code": "later"}, T0)["sequence"] == 2
    assert sequences(store) == [1, 2]
    assert len(list(store.root.glob(f"{SID}.jsonl.torn-*"))) == 1
