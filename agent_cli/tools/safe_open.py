"""Opening workspace paths without following a symbolic link at any component.

Contract: every function here starts from a directory descriptor the caller holds (the
workspace root, opened once) and walks a path one component at a time with `openat`
(`os.open(name, ..., dir_fd=...)`) and `O_NOFOLLOW`: directories with `O_DIRECTORY`, the
last component as the caller asks. A component that is a symbolic link, or stops being
a directory, is refused with `WorkspaceEscape` instead of being followed, so a folder
swapped for a link to somewhere else while a tool runs can never lead the tool out of
the workspace: the check and the use are the same system call. Regular files are also
checked after the open with `fstat`.

Why not resolve-then-open: resolving a path and opening it later are two steps, and a
link swapped in between was followed (an attacker leaked outside files through
read_file, grep and write_file that way).

A search that lets another program (ripgrep) walk the tree by name must treat what it
reports as candidates and show only what it reads again through these functions.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Sequence

from agent_cli.errors import ToolError, WorkspaceEscape

DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK keeps a FIFO from hanging the agent; it changes nothing for regular files.
FILE_FLAGS = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
NEW_DIRECTORY_MODE = 0o777  # narrowed by the umask, as mkdir does


def open_directory_beneath(
    root_fd: int, parts: Sequence[str], shown: str, create_missing: bool = False
) -> int:
    """An fd for the directory `parts` below `root_fd` (no part may be a link).

    With `create_missing`, missing directories are made on the way (each one created
    relative to its parent's descriptor, then opened with `O_NOFOLLOW`).
    """
    current = os.dup(root_fd)
    try:
        for name in parts:
            following = _open_directory_step(current, name, shown, create_missing)
            os.close(current)
            current = following
    except BaseException:
        os.close(current)
        raise
    return current


def open_file_beneath(
    root_fd: int, parts: Sequence[str], shown: str, flags: int, mode: int = 0o644
) -> int:
    """An fd for the regular file `parts` below `root_fd`, opened with `flags`.

    No component may be a link; the opened object must be a regular file (checked with
    `fstat` on the descriptor, so what is checked is what was opened).
    """
    if not parts:
        raise ToolError("The path names the workspace directory itself; give a file path.")
    parent = open_directory_beneath(root_fd, parts[:-1], shown)
    try:
        descriptor = _open_last(parent, parts[-1], shown, flags | FILE_FLAGS, mode)
    finally:
        os.close(parent)
    require_regular_file(descriptor, shown)
    return descriptor


def require_regular_file(descriptor: int, shown: str) -> None:
    """Close `descriptor` and raise unless it is a regular file."""
    kind = os.fstat(descriptor).st_mode
    if stat.S_ISREG(kind):
        return
    os.close(descriptor)
    if stat.S_ISDIR(kind):
        raise ToolError(f"{shown} is a directory, not a file; use list_dir.")
    raise ToolError(f"{shown} is not a regular file (device, socket or pipe); refused.")


def _open_directory_step(parent: int, name: str, shown: str, create_missing: bool) -> int:
    try:
        return os.open(name, DIRECTORY_FLAGS, dir_fd=parent)
    except FileNotFoundError as error:
        if not create_missing:
            raise ToolError(
                f"{shown}: no such file or directory. Check the path with list_dir."
            ) from error
    except OSError as error:
        raise _explain_refusal(error, parent, name, shown) from error
    # Made by someone else meanwhile is fine: the open below checks what it is.
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, NEW_DIRECTORY_MODE, dir_fd=parent)
    try:
        return os.open(name, DIRECTORY_FLAGS, dir_fd=parent)
    except OSError as error:
        raise _explain_refusal(error, parent, name, shown) from error


def _open_last(parent: int, name: str, shown: str, flags: int, mode: int) -> int:
    try:
        return os.open(name, flags, mode, dir_fd=parent)
    except FileNotFoundError as error:
        raise ToolError(f"{shown}: no such file. Check the path with list_dir.") from error
    except IsADirectoryError as error:
        raise ToolError(f"{shown} is a directory, not a file; use list_dir.") from error
    except OSError as error:
        raise _explain_refusal(error, parent, name, shown) from error


def _explain_refusal(error: OSError, parent: int, name: str, shown: str) -> Exception:
    """The error to raise for a component that could not be opened without following."""
    if error.errno == errno.ELOOP or _is_link(parent, name):
        return WorkspaceEscape(
            f"{shown}: {name!r} on the way is a symbolic link (it may have been swapped in "
            "while the tool ran); links are not followed here, so this was refused."
        )
    if error.errno == errno.ENOTDIR:
        return ToolError(f"{shown}: {name!r} on the way is not a directory.")
    if isinstance(error, PermissionError):
        return ToolError(f"{shown}: permission denied by the file system.")
    return ToolError(f"{shown}: {error.strerror or error}")


def _is_link(parent: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except OSError:
        return False
