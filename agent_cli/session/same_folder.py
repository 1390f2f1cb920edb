"""Whether a session's recorded folder is the folder agent-cli runs in now.

Contract: `is_same_folder(one, other)` is true when both paths lead to one existing
folder (the same device and inode), whatever links lead to either; false when either is
missing or cannot be looked at. `is_session_folder(recorded, folder)` is true for a
session whose recorded workspace (`recorded`, as its `session_started` record holds it)
is `folder` (resolved): by the same path, or by being the same folder now (the project
moved and a link left at its old path). A folder moved with nothing left at its old path
is not matched: its old path names nothing, and a folder's inode alone would match an
unrelated one made after the old one was deleted (inode numbers are reused).

Why: after `mv ws ws-moved; ln -s ws-moved ws`, `--resume` from `ws` warned that the
session's tools ran in `ws` "not in ws-moved", the same folder, and `--continue` there
found no session of this workspace.
"""

from __future__ import annotations

import os
from pathlib import Path


def is_same_folder(one: Path, other: Path) -> bool:
    """Whether `one` and `other` are one existing folder (module contract)."""
    try:
        return os.path.samefile(one, other) and os.path.isdir(one)
    except OSError:
        return False


def is_session_folder(recorded: str | None, folder: Path) -> bool:
    """Whether a session recorded as working in `recorded` works in `folder` (module
    contract; `folder` resolved)."""
    if recorded is None:
        return False
    return recorded == str(folder) or is_same_folder(Path(recorded), folder)
