"""The append-only transcript store: one JSONL file per session, `<root>/<session_id>.jsonl`.

This module is the only place that writes transcripts (through `TranscriptWriter`). Replay
streams and validates; listing reads only each file's first line. Session ids are checked
against the pointer component grammar before any path is built from them. A transcript
path that is a symlink is not a session; anything else that is not a regular file (a
FIFO, a folder) is refused with `StoreFileNotRegular` without waiting on it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent_cli.errors import SessionNotFound, StoreFileNotRegular, TranscriptLocked
from agent_cli.store.fsutil import (
    DEFAULT_FILE_OPS,
    FileOps,
    ensure_private_dir,
    file_kind,
    open_regular_file,
)
from agent_cli.store.path_text import read_path
from agent_cli.store.records import (
    LineUnparsable,
    build_session_id,
    is_usable_session_id,
    parse_line,
    require_session_id,
)
from agent_cli.store.transcript_scan import TranscriptScanner
from agent_cli.store.transcript_writer import TranscriptWriter

__all__ = ["SessionInfo", "TranscriptStore"]

TRANSCRIPT_SUFFIX = ".jsonl"
_FIRST_LINE_LIMIT = 1 << 20
_READ_BUFFER = 1 << 20


@dataclass(frozen=True)
class SessionInfo:
    """One transcript on disk. `workspace` comes from a first `session_started` record."""

    session_id: str
    path: Path
    modified_at: datetime
    size_bytes: int
    workspace: str | None


class TranscriptStore:
    """Transcripts under `root`. `fs` carries the disk operations (tests inject failures)."""

    def __init__(self, root: Path, fs: FileOps | None = None) -> None:
        self.root = Path(root)
        self._fs = fs or DEFAULT_FILE_OPS

    def path_for(self, session_id: str) -> Path:
        """Where the transcript of `session_id` lives; raises `InvalidStoreInput` for a bad id."""
        return self.root / f"{require_session_id(session_id)}{TRANSCRIPT_SUFFIX}"

    def new_session_id(self, now: datetime | None = None) -> str:
        """A fresh id like `20261202-145601-ab12cd` with no transcript yet."""
        moment = now or datetime.now(UTC)
        while True:
            session_id = build_session_id(moment)
            if not os.path.lexists(self.path_for(session_id)):
                return session_id

    def exists(self, session_id: str) -> bool:
        """True when `session_id` has a transcript that is a regular file, False when it has
        none (a symlink is none). Something else there (a FIFO, a folder) is not reported
        missing but refused: `StoreFileNotRegular`, so the user learns what is in the way."""
        path = self.path_for(session_id)
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return False
        if stat.S_ISREG(mode) or stat.S_ISLNK(mode):
            return stat.S_ISREG(mode)
        raise StoreFileNotRegular(str(path), file_kind(mode))

    def open_writer(self, session_id: str) -> TranscriptWriter:
        """Take the session's writer lock, recover a torn tail, and return the writer.

        Creates the transcript (0600) and the root (0700) if needed. Raises
        `TranscriptLocked`, `TranscriptCorrupt` or `StateDirUnavailable`.
        """
        path = self.path_for(session_id)
        ensure_private_dir(self.root, self._fs)
        return TranscriptWriter(session_id, path, self._fs)

    def discard_if_empty(self, session_id: str) -> bool:
        """Remove the session's transcript if it is an empty regular file (a session that
        could not record even its first record, e.g. on a full disk); True if removed."""
        path = self.path_for(session_id)
        try:
            info = os.lstat(path)
            if stat.S_ISREG(info.st_mode) and info.st_size == 0:
                path.unlink()
                return True
        except OSError:
            pass
        return False

    def replay(self, session_id: str) -> Iterator[dict[str, Any]]:
        """Yield the session's records in order, streaming, each one validated.

        `SessionNotFound` is raised now, by this call; `TranscriptCorrupt` (with the line)
        while iterating. A torn final line is not a record and is not yielded.
        """
        path = self.path_for(session_id)
        fd = _open_transcript(path, session_id, os.O_RDONLY)
        return _stream_records(open(fd, "rb", buffering=_READ_BUFFER), session_id)

    def delete(self, session_id: str) -> None:
        """Remove the session's transcript, and the torn final lines opening set aside
        beside it (`<id>.jsonl.torn-<n>`, regular files only: a link there is left). Refused
        with `TranscriptLocked` while a writer (here or in another process) has it open:
        the lock is taken first and held until the files are gone. `SessionNotFound` when
        there is no such transcript, `StoreFileNotRegular` (left where it is) when it is a
        FIFO, a folder, ..."""
        import fcntl

        path = self.path_for(session_id)
        fd = _open_transcript(path, session_id, os.O_RDONLY)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise TranscriptLocked(session_id) from None
            os.unlink(path)
            for side in self.root.glob(f"{path.name}.torn-*"):
                if side.is_file() and not side.is_symlink():
                    side.unlink(missing_ok=True)
        finally:
            os.close(fd)

    def list_sessions(self) -> list[SessionInfo]:
        """Every session with a transcript, most recently modified first."""
        if not self.root.is_dir():
            return []
        found = [info for entry in os.scandir(self.root) if (info := _describe(entry))]
        found.sort(key=lambda info: (info.modified_at, info.session_id), reverse=True)
        return found


def _open_transcript(path: Path, session_id: str, flags: int) -> int:
    """An fd of the session's transcript; `SessionNotFound` when there is none (or only a
    link), `StoreFileNotRegular` for a FIFO, folder or device (see `open_regular_file`)."""
    try:
        return open_regular_file(path, flags)
    except OSError:
        raise SessionNotFound(session_id) from None


def _stream_records(handle: Any, session_id: str) -> Iterator[dict[str, Any]]:
    with handle:
        yield from TranscriptScanner(handle, session_id).records()


def _describe(entry: os.DirEntry[str]) -> SessionInfo | None:
    if not entry.name.endswith(TRANSCRIPT_SUFFIX):
        return None
    session_id = entry.name[: -len(TRANSCRIPT_SUFFIX)]
    if not is_usable_session_id(session_id) or not entry.is_file(follow_symlinks=False):
        return None
    try:
        info = entry.stat(follow_symlinks=False)
    except FileNotFoundError:
        return None
    return SessionInfo(
        session_id=session_id,
        path=Path(entry.path),
        modified_at=datetime.fromtimestamp(info.st_mtime, UTC),
        size_bytes=info.st_size,
        workspace=_read_workspace(Path(entry.path), session_id),
    )


def _read_workspace(path: Path, session_id: str) -> str | None:
    """The workspace named by a first `session_started` record, reading only that line."""
    try:
        with open(open_regular_file(path, os.O_RDONLY), "rb") as handle:
            first = handle.readline(_FIRST_LINE_LIMIT)
    except (OSError, StoreFileNotRegular):  # swapped since the listing looked: not ours
        return None
    if not first.endswith(b"\n"):
        return None
    try:
        record = parse_line(first[:-1])
    except LineUnparsable:
        return None
    if not isinstance(record, dict) or record.get("session_id") != session_id:
        return None
    payload = record.get("payload")
    if record.get("kind") != "session_started" or not isinstance(payload, dict):
        return None
    return read_path(payload, "workspace")
