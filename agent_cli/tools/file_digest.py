"""What a watched file holds at one moment, read without following it into a wait.

Why: an "always" answer for a git command holds only while git's files hold what they held
(`git_program_files`). A hook's content alone is not what git acts on: git runs a hook
only when it is executable, so `chmod +x` on an ignored hook kept the answer, and git then
ran the hook unasked. The mode is part of what a file holds.

Contract: `read_digest(path)` is the sha256 of a regular file's content and whether it is
executable (`executable` / `not executable`), or what stands at `path` instead (nothing,
a folder or other kind with its inode, an error number), following links to their target
but never blocking (a FIFO in a file's place is not opened for reading).
`read_small_text(path)` is a regular file's text (up to `limit` bytes, bad UTF-8
replaced), or None.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

_ANY_EXECUTE = stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH


def read_digest(path: Path) -> str:
    """What `path` holds now (module contract)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return "nothing"
    except OSError as error:
        return f"error {error.errno}"
    if not stat.S_ISREG(info.st_mode):
        return f"not a file ({stat.S_IFMT(info.st_mode):o}, {info.st_ino})"
    data = _read_regular(path, None)
    if data is None:
        return "unreadable"
    mode = "executable" if info.st_mode & _ANY_EXECUTE else "not executable"
    return f"{hashlib.sha256(data).hexdigest()} {mode}"


def read_small_text(path: Path, limit: int = 1 << 20) -> str | None:
    """The text of a regular file (up to `limit` bytes), or None (none, or no file)."""
    data = _read_regular(path, limit)
    return None if data is None else data.decode("utf-8", "replace")


def _read_regular(path: Path, limit: int | None) -> bytes | None:
    """A regular file's bytes (opened without blocking: a FIFO put in a file's place
    cannot hang the check), or None when there is no regular file to read."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return None
        chunks, size = [], 0
        while chunk := os.read(handle, 1 << 16):
            chunks.append(chunk)
            size += len(chunk)
            if limit is not None and size >= limit:
                break
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(handle)
