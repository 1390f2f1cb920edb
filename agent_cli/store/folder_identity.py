"""A folder's identity: its (device, inode), the same after a move or a rename.

Contract: `folder_identity(path)` is the (device, inode) of the folder at `path` now
(through links), None when nothing can be looked at there. `read_identity(value)` reads one
back from a record (`[device, inode]`, two non-negative ints), None for anything else.
Inode numbers are reused once a folder is deleted: an identity says "the same folder" only
beside something that already ties the two (a session's recorded folder, its memory file).
"""

from __future__ import annotations

import os
from pathlib import Path

Identity = tuple[int, int]


def folder_identity(path: Path) -> Identity | None:
    """The (device, inode) of the folder at `path`, or None (module contract)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def read_identity(value: object) -> Identity | None:
    """`[device, inode]` from a record as a pair, or None (module contract)."""
    if not isinstance(value, list) or len(value) != 2:
        return None
    device, inode = value
    if type(device) is not int or type(inode) is not int or device < 0 or inode < 0:
        return None
    return device, inode
