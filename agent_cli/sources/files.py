"""Opening evidence files under a trusted root without following any link.

Contract: `open_beneath(root, parts)` walks from the root one component at a time, each
opened relative to its parent's descriptor with `O_NOFOLLOW`, and returns a descriptor
only for a regular file. A symlink anywhere below the root is denied, whether it was
there before the call or swapped in during it: there is no check-then-open gap, because
the check *is* the open. The root itself is trusted configuration and may be a link.
Failures raise `SourceUnavailable` with the status and a short reason code.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Sequence

from agent_cli.errors import SourceUnavailable

ReadAt = Callable[[int, int, int], bytes]
"""`read_at(fd, size, offset) -> bytes`, like `os.pread`; injectable for fault tests."""

OpenAt = Callable[[str, int, int | None], int]
"""`open_at(name, flags, dir_fd) -> fd`, like `os.open(name, flags, dir_fd=dir_fd)`;
injectable so that tests can refuse access (EACCES) even when they run as root."""

CHUNK_BYTES = 1 << 20


def os_open_at(name: str, flags: int, dir_fd: int | None) -> int:
    """The real `OpenAt`."""
    return os.open(name, flags, dir_fd=dir_fd)


_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC


def missing(reason: str) -> SourceUnavailable:
    return SourceUnavailable("missing", reason)


def denied(reason: str) -> SourceUnavailable:
    return SourceUnavailable("denied", reason)


def corrupt(reason: str) -> SourceUnavailable:
    return SourceUnavailable("corrupt", reason)


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _open_error(exc: OSError, name: str, dir_fd: int) -> SourceUnavailable:
    """Map an open failure to a status; ENOTDIR may hide a link (Linux, O_DIRECTORY)."""
    code = exc.errno
    if code == errno.ELOOP or (code == errno.ENOTDIR and _is_link(name, dir_fd)):
        return denied("symlink")
    if code in (errno.EACCES, errno.EPERM):
        return denied("permission")
    if code == errno.ENOENT:
        return missing("not_found")
    if code == errno.ENOTDIR:
        return missing("not_a_directory")
    return missing("unreadable")


def _open_root(root: str, open_at: OpenAt) -> int:
    try:
        return open_at(root, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC, None)
    except FileNotFoundError as exc:
        raise missing("root_not_found") from exc
    except PermissionError as exc:
        raise denied("permission") from exc
    except OSError as exc:
        raise missing("root_unreadable") from exc


def open_beneath(
    root: str, parts: Sequence[str], open_at: OpenAt = os_open_at
) -> tuple[int, os.stat_result]:
    """Open `root/parts...` as a regular file, refusing links; returns (fd, fstat)."""
    dir_fd = _open_root(root, open_at)
    try:
        for name in parts[:-1]:
            try:
                next_fd = open_at(name, _DIR_FLAGS, dir_fd)
            except OSError as exc:
                raise _open_error(exc, name, dir_fd) from exc
            os.close(dir_fd)
            dir_fd = next_fd
        try:
            fd = open_at(parts[-1], _FILE_FLAGS, dir_fd)
        except OSError as exc:
            raise _open_error(exc, parts[-1], dir_fd) from exc
    finally:
        os.close(dir_fd)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise denied("not_a_regular_file")
    return fd, info


def read_span(fd: int, offset: int, size: int, read_at: ReadAt) -> bytes:
    """Exactly `size` bytes from `offset`; a short read means the file shrank under us."""
    pieces: list[bytes] = []
    remaining = size
    while remaining > 0:
        piece = read_at(fd, min(remaining, CHUNK_BYTES), offset)
        if not piece:
            raise missing("vanished")
        pieces.append(piece)
        offset += len(piece)
        remaining -= len(piece)
    return b"".join(pieces)


def check_still_linked(fd: int) -> None:
    """A file unlinked while we read it is gone: its evidence cannot be shown again."""
    if os.fstat(fd).st_nlink == 0:
        raise missing("vanished")
