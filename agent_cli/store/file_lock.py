"""An advisory lock held across processes for one read-modify-write of a store file.

Contract: `exclusive_lock(path)` opens (creating, 0600) the lock file `path` without
following a link or waiting on a FIFO, and holds `fcntl.flock(LOCK_EX)` on it for the `with` block; the kernel
drops the lock when the process dies, so a crash never leaves it stuck. The lock file is
never deleted (deleting it would let two processes lock two different inodes).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agent_cli.errors import StateDirUnavailable
from agent_cli.store.fsutil import errno_name, open_regular_file


@contextmanager
def exclusive_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive flock on `path` for the block; `StateDirUnavailable` if it cannot
    be opened, `StoreFileNotRegular` if something else (a FIFO) sits at the path."""
    try:
        fd = open_regular_file(path, os.O_RDWR | os.O_CREAT)
    except OSError as exc:
        raise StateDirUnavailable(str(path), errno_name(exc)) from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the only descriptor releases the flock
