"""What a write's question showed of the file it replaces, and the check that it still is.

Contract: `read_file_state(workspace, resolved, shown)` notes what is at `resolved` now,
before the approval is built from it: nothing (`ABSENT`), a directory, something that
is not a regular file (`OTHER`: a FIFO, a socket, a device), or a regular `FILE` with its
size, whether it is binary (by read_file's own rule, `text_source.text_codec`: a NUL in
its first 8 KB, unless it starts with a UTF-16 byte-order mark; once a NUL anywhere, so
the stale-write guard called a UTF-16 file or a late NUL binary, and let a second write
over the user's edit through), and a fingerprint of its content: a SHA-256 of
every byte, or for a file over `DIGEST_MAX_BYTES` (or one that cannot be read) its
inode, size and modification and change times. Nothing is followed: the walk goes
through the workspace's held root without following a link (`Workspace.open_directory`).

`require_unchanged(workspace, resolved, shown, state)` runs when the write executes,
after the user answered: it raises `TargetChanged` (a `ToolError` telling the model what
happened and to read the file again) when what is there now differs from `state`: a file
appeared where "create" was approved, the content the diff was made from changed (a line
the user added meanwhile would be destroyed unseen), or the file was removed or replaced
by something else. Rewriting the same bytes, or touching the file, is no change.

`open_file_fingerprint(descriptor)` and `content_fingerprint(data)` give the fingerprint
`read_file_state` would give a file already open, or one holding `data`: what read_file
and the writes note the model saw (`seen_files`), comparable with a later state.

`undiffable_note(state)` says, for an overwrite whose old content is not shown as a diff
(too big, binary, unreadable, not a regular file), what it replaces, so the question
never reads like that of a small text file.

Why: write_file decided "create" and built its diff when asking, then wrote over
whatever was there when the user answered, and told the model "(new file)".
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from agent_cli.errors import ToolError
from agent_cli.nofollow_open import FILE_FLAGS
from agent_cli.tools.approval import MAX_DIFF_SOURCE_BYTES
from agent_cli.tools.output import format_size
from agent_cli.tools.text_source import BINARY_SNIFF_BYTES, text_codec
from agent_cli.tools.workspace import Workspace

# A file up to this size is fingerprinted by its bytes; a bigger one by its inode and times.
# Hashing is cheap next to a write's question: 33 MB in 0.03 s, 128 MB in 0.11 s (warm, in
# 1 MB chunks); at 32 MB, a touch of a 33 MB file the model wrote refused its next write.
DIGEST_MAX_BYTES = 128 * 1024 * 1024
_CHUNK_BYTES = 1024 * 1024


class StateKind(Enum):
    ABSENT = "absent"
    FILE = "file"
    DIRECTORY = "directory"
    OTHER = "other"


@dataclass(frozen=True)
class FileState:
    """What was at a path when it was looked at (module contract). `fingerprint` tells
    two states apart; `size`, `is_binary` and `is_readable` describe a `FILE`."""

    kind: StateKind
    fingerprint: tuple[object, ...] = ()
    size: int = 0
    is_binary: bool = False
    is_readable: bool = True


ABSENT = FileState(StateKind.ABSENT, ("absent",))


class TargetChanged(ToolError):
    """The file a write was approved for is no longer what the approval showed."""


# What `TargetChanged` says, nothing having been written (`session.call_outcome` reads
# them back): a file made where "create" was approved, the file deleted, or changed.
APPEARED_TEXT = (
    "{shown} did not exist when writing it was approved (as a new file), but it does now "
    "(made meanwhile, {size}); nothing was written, so it is kept. Read it with "
    "read_file, then write again if it should still change: the user then sees the "
    "change as a diff."
)
DELETED_TEXT = (
    "{shown} was deleted after writing it was approved; nothing was written. Write it "
    "again if it is still wanted: the user will be asked to create it."
)
CHANGED_TEXT = (
    "{shown} changed after writing it was approved, so this write would no longer make "
    "the change that was shown (what changed meanwhile would be lost); nothing was "
    "written. Read it again with read_file, then redo the change."
)


def read_file_state(workspace: Workspace, resolved: Path, shown: str) -> FileState:
    """What is at `resolved` now (module contract); a refused walk raises its `ToolError`."""
    try:
        parent = workspace.open_directory(resolved.parent, shown)
    except ToolError:
        if not os.path.lexists(resolved.parent):  # a folder on the way is missing: a
            return ABSENT  # write makes it
        raise
    try:
        return _state_in(parent, resolved.name)
    finally:
        os.close(parent)


def _state_in(parent: int, name: str) -> FileState:
    try:
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return ABSENT
    if stat.S_ISDIR(info.st_mode):
        return FileState(StateKind.DIRECTORY, ("directory", info.st_dev, info.st_ino))
    if not stat.S_ISREG(info.st_mode):
        kind = stat.S_IFMT(info.st_mode)
        return FileState(StateKind.OTHER, ("other", kind, info.st_dev, info.st_ino))
    if info.st_size > DIGEST_MAX_BYTES:
        return FileState(
            StateKind.FILE, _identity(info), info.st_size, _sniffs_binary(parent, name)
        )
    try:
        descriptor = os.open(name, os.O_RDONLY | FILE_FLAGS, dir_fd=parent)
    except OSError:
        return FileState(StateKind.FILE, _identity(info), info.st_size, is_readable=False)
    try:
        opened = os.fstat(descriptor)
        if not stat.S_ISREG(opened.st_mode):  # swapped meanwhile (a FIFO opens at once)
            kind = stat.S_IFMT(opened.st_mode)
            return FileState(StateKind.OTHER, ("other", kind, opened.st_dev, opened.st_ino))
        return _digested(descriptor)
    finally:
        os.close(descriptor)


def open_file_fingerprint(descriptor: int) -> tuple[object, ...]:
    """The fingerprint `read_file_state` gives the file open at `descriptor` (what
    read_file notes the model saw), read from the descriptor by offset (`pread`), so the
    reader's own offset and buffer are left as they were."""
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode):
        return ("other", stat.S_IFMT(info.st_mode), info.st_dev, info.st_ino)
    if info.st_size > DIGEST_MAX_BYTES:
        return _identity(info)
    return _digested(descriptor).fingerprint


def content_fingerprint(data: bytes) -> tuple[object, ...] | None:
    """The fingerprint `read_file_state` gives a regular file holding `data` (what a write
    notes the model saw), or None when a file that big is told by its inode and times."""
    if len(data) > DIGEST_MAX_BYTES:
        return None
    return ("sha256", hashlib.sha256(data).hexdigest())


def _digested(descriptor: int) -> FileState:
    """A regular file's state by its bytes (read to the end, however it grew; by offset,
    so the descriptor's own offset stays where it is); binary as read_file judges it
    from its head (`text_source.text_codec`)."""
    digest, size, head = hashlib.sha256(), 0, b""
    while chunk := os.pread(descriptor, _CHUNK_BYTES, size):
        digest.update(chunk)
        head = head or chunk[:BINARY_SNIFF_BYTES]
        size += len(chunk)
        if size > DIGEST_MAX_BYTES:  # grew past the cap while read: its identity instead
            identity = _identity(os.fstat(descriptor))
            return FileState(StateKind.FILE, identity, size, text_codec(head) is None)
    fingerprint = ("sha256", digest.hexdigest())
    return FileState(StateKind.FILE, fingerprint, size, text_codec(head) is None)


def _identity(info: os.stat_result) -> tuple[object, ...]:
    return ("stat", info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _sniffs_binary(parent: int, name: str) -> bool:
    """Binary by read_file's rule (`text_source.text_codec`), for a file too big to read
    whole."""
    try:
        descriptor = os.open(name, os.O_RDONLY | FILE_FLAGS, dir_fd=parent)
    except OSError:
        return False
    try:
        return text_codec(os.read(descriptor, BINARY_SNIFF_BYTES)) is None
    finally:
        os.close(descriptor)


def require_unchanged(workspace: Workspace, resolved: Path, shown: str, before: FileState) -> None:
    """Raise `TargetChanged` when `resolved` is no longer in the state `before` (module
    contract); nothing has been written then."""
    now = read_file_state(workspace, resolved, shown)
    if now.fingerprint == before.fingerprint:
        return
    if before.kind is StateKind.ABSENT:
        raise TargetChanged(APPEARED_TEXT.format(shown=shown, size=format_size(now.size)))
    if now.kind is StateKind.ABSENT:
        raise TargetChanged(DELETED_TEXT.format(shown=shown))
    raise TargetChanged(CHANGED_TEXT.format(shown=shown))


def undiffable_note(state: FileState) -> str:
    """What an overwrite shown without a diff replaces (module contract): `2.6 MB now,
    too big to diff`, `binary, 4.9 KB now; not shown`."""
    if state.kind is StateKind.OTHER:
        return "not a regular file now (a FIFO, socket or device); it is replaced by one"
    size = format_size(state.size)
    if state.is_binary:
        return f"binary, {size} now; not shown"
    if state.size > MAX_DIFF_SOURCE_BYTES:
        return f"{size} now, too big to diff"
    if not state.is_readable:
        return f"{size} now, unreadable; not shown"
    return f"{size} now; its content is not shown"
