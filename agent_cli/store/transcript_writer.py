"""The single writer of one session's transcript.

Guarantees:

- One writer per session: an exclusive, non-blocking `flock` on the transcript file.
  Another writer, in this process or another, gets `TranscriptLocked`.
- Opening recovers from a crash: the file is validated (streaming); a torn final line is
  copied to `<session_id>.jsonl.torn-<n>` and cut off, and numbering continues after the
  last valid record. A corrupt record before the end raises `TranscriptCorrupt` and the
  file is not opened for writing.
- `append` writes the whole line on an O_APPEND descriptor, then fsyncs. A short write is
  resumed once per piece the disk takes, so the write that takes nothing names the real
  cause: a file-size limit (`ulimit -f`: EFBIG) and a full disk (ENOSPC) both first take
  part of a line, and were both reported as "short_write", worded as a full disk. If a
  write fails (or takes nothing), or the fsync fails, the file is cut back to its size
  before the append and `TranscriptWriteFailed` is raised: no half record stays behind.
- If even that cut fails, the writer is broken until repaired: the next append first checks
  that the path is still the file it holds locked and that the bytes past the last good
  record are exactly (a prefix of) the line that failed, sets them aside to
  `<session_id>.jsonl.torn-<n>` and cuts them off; only then does it write. A fault that is
  fixed (space freed, folder repaired) needs no restart; one that persists keeps raising
  `TranscriptWriteFailed`, and a file someone else changed raises
  `TranscriptChangedUnderneath`. The lock is kept throughout (no reopen window).
- Before each append the file is checked to still be the one opened, at the size last
  written; otherwise `TranscriptChangedUnderneath` (deleted, replaced, truncated, grown).
- An interrupt (Ctrl-C, a signal's exception) that lands during an append leaves the
  writer's accounting true to the file: a line that landed whole counts as written (and
  is fsynced), one that landed in part is cut off, and the interrupt goes on. `landed`
  says whether the last append's line is in the file, so a caller that was interrupted
  can tell whether its record exists. Without this, the next append found the file
  "grown" by the writer's own line.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from agent_cli.errors import (
    StateDirUnavailable,
    TranscriptChangedUnderneath,
    TranscriptLocked,
    TranscriptWriteFailed,
)
from agent_cli.store.fsutil import (
    PRIVATE_FILE_MODE,
    FileOps,
    errno_name,
    next_free_suffix_path,
    open_regular_file,
    write_all,
)
from agent_cli.store.records import build_record
from agent_cli.store.transcript_scan import TranscriptScanner

_OPEN_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT
_SIDE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_COPY_CHUNK = 1 << 20


class TranscriptWriter:
    """Appends records to one session's transcript; build it with `TranscriptStore.open_writer`."""

    def __init__(self, session_id: str, path: Path, fs: FileOps) -> None:
        self.session_id = session_id
        self.path = path
        self._fs = fs
        # where opening set a torn final line aside, and its size in bytes (None: none)
        self.torn_tail: tuple[Path, int] | None = None
        self._fd: int | None = _open_locked(session_id, path)
        try:
            self._recover()
        except BaseException:
            self.close()
            raise
        st = os.fstat(self._fd)
        self._identity = (st.st_dev, st.st_ino)
        self._broken: str | None = None
        self._failed_line = b""
        self._leftover_kept = False  # the broken tail is already in a torn-<n> file
        self.landed: dict[str, Any] | None = None  # the last append's record, once in the file

    @property
    def next_sequence(self) -> int:
        """The sequence number the next appended record will get."""
        return self._last_sequence + 1

    def append(
        self, kind: str, payload: Mapping[str, Any], recorded_at: datetime
    ) -> dict[str, Any]:
        """Write one record durably and return it (see the module notes for failures)."""
        fd = self._require_usable()
        record, line = build_record(self.session_id, self.next_sequence, kind, payload, recorded_at)
        self._check_unchanged(fd)
        self.landed = None
        try:
            self._write_line(fd, line)
        except (TranscriptWriteFailed, TranscriptChangedUnderneath):
            raise
        except BaseException:  # an interrupt: count what the file holds, then go on
            self._settle_interrupted(fd, line, record)
            raise
        self._note_written(line, record)
        return record

    def _note_written(self, line: bytes, record: dict[str, Any]) -> None:
        self._last_sequence += 1
        self._size += len(line)
        self.landed = record

    def _settle_interrupted(self, fd: int, line: bytes, record: dict[str, Any]) -> None:
        """After an interrupt inside `_write_line`: a whole line is kept (fsynced again,
        best effort), a partial one cut off (module notes)."""
        size = os.fstat(fd).st_size
        if size == self._size + len(line):
            self._note_written(line, record)
            with contextlib.suppress(OSError):
                self._fs.fsync(fd)
        elif size > self._size:
            self._roll_back(fd, line, "interrupted")

    def close(self) -> None:
        """Release the lock and the descriptor; safe to call twice."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def __enter__(self) -> TranscriptWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- opening ------------------------------------------------------------------------

    def _recover(self) -> None:
        assert self._fd is not None
        with open(os.dup(self._fd), "rb", buffering=_COPY_CHUNK) as handle:
            scanner = TranscriptScanner(handle, self.session_id)
            scanner.run_to_end()
            if scanner.torn_tail:
                handle.seek(scanner.valid_end)
                self.torn_tail = self._set_torn_tail_aside(handle)
        if scanner.torn_tail:
            self._cut_to(scanner.valid_end)
        self._fs.fsync_dir(self.path.parent)  # the file may have just been created
        self._last_sequence = scanner.last_sequence
        self._size = scanner.valid_end

    def _set_torn_tail_aside(self, handle: Any) -> tuple[Path, int]:
        """Copy the rest of `handle` (a torn final line) to a `torn-<n>` file beside the
        transcript; that file and the bytes copied. A copy the disk refuses leaves no
        file: each attempt on a full disk left an empty (or partial) `torn-<n>`."""
        side = next_free_suffix_path(self.path, "torn")
        copied = 0
        try:
            side_fd = os.open(side, _SIDE_FLAGS, PRIVATE_FILE_MODE)
        except OSError as exc:
            raise TranscriptWriteFailed(self.session_id, errno_name(exc)) from exc
        try:
            try:
                while chunk := handle.read(_COPY_CHUNK):
                    write_all(self._fs, side_fd, chunk)
                    copied += len(chunk)
                self._fs.fsync(side_fd)
            finally:
                os.close(side_fd)
        except OSError as exc:
            _remove_quietly(side)
            raise TranscriptWriteFailed(self.session_id, errno_name(exc)) from exc
        return Path(side), copied

    def _cut_to(self, size: int) -> None:
        assert self._fd is not None
        try:
            self._fs.ftruncate(self._fd, size)
            self._fs.fsync(self._fd)
        except OSError as exc:
            raise TranscriptWriteFailed(self.session_id, errno_name(exc)) from exc

    # --- appending ----------------------------------------------------------------------

    def _require_usable(self) -> int:
        if self._fd is None:
            raise TranscriptWriteFailed(self.session_id, "EBADF")
        if self._broken is not None:
            self._repair(self._fd)
        return self._fd

    def _repair(self, fd: int) -> None:
        """Remove what a failed append left past the last good record, after checking that
        it is ours; raise `TranscriptWriteFailed` (still broken) if the disk still refuses."""
        self._check_same_file()
        size = os.fstat(fd).st_size
        if size < self._size:
            raise TranscriptChangedUnderneath(self.session_id, "truncated")
        leftover = os.pread(fd, size - self._size, self._size)
        if leftover != self._failed_line[: len(leftover)]:
            raise TranscriptChangedUnderneath(self.session_id, "grown")
        if leftover and not self._leftover_kept:  # kept once, however many retries
            self._set_leftover_aside(leftover)
            self._leftover_kept = True
        try:
            self._fs.ftruncate(fd, self._size)
            self._fs.fsync(fd)
        except OSError as exc:
            raise TranscriptWriteFailed(self.session_id, errno_name(exc)) from exc
        self._broken = None
        self._failed_line = b""
        self._leftover_kept = False

    def _set_leftover_aside(self, leftover: bytes) -> None:
        """Keep what a failed append left in a `torn-<n>` file (none when that fails)."""
        side = next_free_suffix_path(self.path, "torn")
        try:
            side_fd = self._fs.open(side, _SIDE_FLAGS, PRIVATE_FILE_MODE)
        except OSError as exc:
            raise TranscriptWriteFailed(self.session_id, errno_name(exc)) from exc
        try:
            try:
                write_all(self._fs, side_fd, leftover)
                self._fs.fsync(side_fd)
            finally:
                os.close(side_fd)
        except OSError as exc:
            _remove_quietly(side)
            raise TranscriptWriteFailed(self.session_id, errno_name(exc)) from exc

    def _check_unchanged(self, fd: int) -> None:
        self._check_same_file()
        size = os.fstat(fd).st_size
        if size < self._size:
            raise TranscriptChangedUnderneath(self.session_id, "truncated")
        if size > self._size:
            raise TranscriptChangedUnderneath(self.session_id, "grown")

    def _check_same_file(self) -> None:
        try:
            on_disk = os.lstat(self.path)
        except FileNotFoundError:
            raise TranscriptChangedUnderneath(self.session_id, "deleted") from None
        if (on_disk.st_dev, on_disk.st_ino) != self._identity:
            raise TranscriptChangedUnderneath(self.session_id, "replaced")

    def _write_line(self, fd: int, line: bytes) -> None:
        try:
            written = self._fs.write(fd, line)
            while 0 < written < len(line):  # the rest: written, or refused with the cause
                taken = self._fs.write(fd, line[written:])
                if taken <= 0:
                    break
                written += taken
            if written == len(line):
                self._fs.fsync(fd)
                return
            failure = "short_write"  # a write that took nothing and gave no cause
        except OSError as exc:
            failure = errno_name(exc)
        self._roll_back(fd, line, failure)
        raise TranscriptWriteFailed(self.session_id, failure)

    def _roll_back(self, fd: int, line: bytes, failure: str) -> None:
        """Cut the file back to its size before the failed append; if even that fails, the
        writer is broken and the next append repairs it first (see `_repair`)."""
        try:
            self._fs.ftruncate(fd, self._size)
            self._fs.fsync(fd)
        except OSError:
            self._broken = failure
            self._failed_line = line


def _remove_quietly(path: str | Path) -> None:
    """Remove a side file this writer created and could not fill (best effort)."""
    with contextlib.suppress(OSError):
        os.unlink(path)


def _open_locked(session_id: str, path: Path) -> int:
    """Open (creating 0600) and take the exclusive lock, or raise a typed error
    (`StoreFileNotRegular` for a FIFO or folder at the path: nothing waits on it)."""
    try:
        fd = open_regular_file(path, _OPEN_FLAGS)
    except OSError as exc:
        raise StateDirUnavailable(str(path), errno_name(exc)) from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise TranscriptLocked(session_id) from None
    except BaseException:
        os.close(fd)
        raise
    if os.fstat(fd).st_mode & 0o077:
        os.fchmod(fd, PRIVATE_FILE_MODE)
    return fd
