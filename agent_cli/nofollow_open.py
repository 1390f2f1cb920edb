"""Opening a path beneath a held directory without following a link: the one walker.

Contract: every function here starts from a directory descriptor the caller holds (the
workspace root, a store's root) and walks the path one component at a time with `openat`
(`os.open(name, ..., dir_fd=...)`) and `O_NOFOLLOW`: directories with `O_DIRECTORY`, the
last component as the caller asks. A component that is a symbolic link, or stops being a
directory, is refused instead of followed, so a folder swapped for a link while a tool
or the source resolver works can never lead it elsewhere: the check and the use are the
same system call. A file is also checked after the open with `fstat` (what is checked
is what was opened). Only plain names are walked: `..` is no link, so O_NOFOLLOW would
climb it.

Why not resolve-then-open: resolving a path and opening it later are two steps, and a
link swapped in between was followed (outside files leaked through the tools that way).

Failures raise `PathStepRefused` with a reason code and the component; each caller turns
it into its own words (the tools: `ToolError` for the model; the sources: a resolution
status). The file tools and the source resolver both walk through here, so a fix to the
walk reaches both.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Sequence

from agent_cli.errors import PathStepRefused

OpenAt = Callable[[str, int, int | None], int]
"""`open_at(name, flags, dir_fd) -> fd`, like `os.open(name, flags, dir_fd=dir_fd)`;
injectable so that tests can refuse access (EACCES) even when they run as root."""

DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK keeps a FIFO from hanging the agent; it changes nothing for regular files.
FILE_FLAGS = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
NEW_DIRECTORY_MODE = 0o777  # narrowed by the umask, as mkdir does


def os_open_at(name: str, flags: int, dir_fd: int | None) -> int:
    """The real `OpenAt` (files it creates get mode 0o644 before the umask)."""
    return os.open(name, flags, 0o644, dir_fd=dir_fd)


def open_directory_beneath(
    root_fd: int,
    parts: Sequence[str],
    create_missing: bool = False,
    open_at: OpenAt = os_open_at,
) -> int:
    """An fd for the directory `parts` below `root_fd` (no part may be a link).

    With `create_missing`, missing directories are made on the way (each one created
    relative to its parent's descriptor, then opened with `O_NOFOLLOW`).
    """
    _require_plain_names(parts)
    current = os.dup(root_fd)
    try:
        for name in parts:
            following = _open_directory_step(current, name, create_missing, open_at)
            os.close(current)
            current = following
    except BaseException:
        os.close(current)
        raise
    return current


def open_file_beneath(
    root_fd: int, parts: Sequence[str], flags: int, open_at: OpenAt = os_open_at
) -> tuple[int, os.stat_result]:
    """An fd (and its fstat) for the regular file `parts` below `root_fd`, opened with
    `flags`; `parts` must name at least one component."""
    _require_plain_names(parts)
    parent = open_directory_beneath(root_fd, parts[:-1], open_at=open_at)
    try:
        descriptor = _open_step(parent, parts[-1], flags | FILE_FLAGS, open_at, last=True)
    finally:
        os.close(parent)
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode):
        os.close(descriptor)
        reason = "is_a_directory" if stat.S_ISDIR(info.st_mode) else "not_a_regular_file"
        raise PathStepRefused(reason, parts[-1], last=True)
    return descriptor, info


def _require_plain_names(parts: Sequence[str]) -> None:
    for name in parts:
        if name in ("", ".", "..") or "/" in name or "\x00" in name:
            raise PathStepRefused("not_a_plain_name", name, last=False)


def _open_directory_step(parent: int, name: str, create_missing: bool, open_at: OpenAt) -> int:
    try:
        return open_at(name, DIRECTORY_FLAGS, parent)
    except FileNotFoundError as error:
        if not create_missing:
            raise PathStepRefused("not_found", name, last=False) from error
    except OSError as error:
        raise _refusal(error, parent, name, last=False) from error
    # Made by someone else meanwhile is fine: the open below checks what it is.
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, NEW_DIRECTORY_MODE, dir_fd=parent)
    return _open_step(parent, name, DIRECTORY_FLAGS, open_at, last=False)


def _open_step(parent: int, name: str, flags: int, open_at: OpenAt, last: bool) -> int:
    try:
        return open_at(name, flags, parent)
    except OSError as error:
        raise _refusal(error, parent, name, last) from error


def _refusal(error: OSError, parent: int, name: str, last: bool) -> PathStepRefused:
    """Why a component could not be opened without following; ENOTDIR may hide a link
    (Linux answers O_DIRECTORY on a link that way), so a link is looked for first."""
    code = error.errno or 0
    if code == errno.ELOOP or _is_link(parent, name):
        reason = "symlink"
    elif code == errno.ENOENT:
        reason = "not_found"
    elif code == errno.ENOTDIR:
        reason = "not_a_directory"
    elif code == errno.EISDIR:
        reason = "is_a_directory"
    elif code in (errno.EACCES, errno.EPERM):
        reason = "permission"
    else:
        reason = "unreadable"
    return PathStepRefused(reason, name, last, code)


def _is_link(parent: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except OSError:
        return False
