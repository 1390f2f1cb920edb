"""agent-cli's own state and config folders, off limits to the file tools.

Why (a fifteenth outside attack): run in the home folder, with the default state folder
`~/.local/share/agent-cli` inside the workspace, `grep` (never asked about) returned a
line of another session's transcript ("my db password is ..."), `list_dir` listed every
transcript and `read_file` read the prompt history, while `recall` answers only about
this session's own records. The file tools now keep to the same rule: the folders agent-cli
keeps for itself (`StatePaths.own_folders`: `AGENT_CLI_HOME`, or the platform's data,
state and config folders) are never read, listed, searched or written by them, wherever
they lie in the workspace and however a path reaches them.

Contract: `StateFolders(folders)` holds the folders (resolved: a link to one is the
folder). `holds(resolved, root)` is True for a path (as `Workspace.resolve_inside` gives
it) that is one of them or lies below one: by its path, and by the identity (device and
inode) of each folder on its way up to `root`, so another spelling of the same folder
(another case on a case-insensitive disk, a bind mount) is caught too. `is_one(info)` says
whether a folder's `stat` result is one of them (list_dir marks such an entry, grep skips
such a folder of its walk). `REFUSAL` is what a file tool answers for a path inside one;
`SKIPPED` ends the line that names one a listing or search left out. Nothing here stops
`bash`: a command is approved by the user, and may touch these folders.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from agent_cli.errors import ToolError

__all__ = ["REFUSAL", "SKIPPED", "StateFolders", "NO_STATE_FOLDERS"]

REFUSAL = (
    "That path is inside agent-cli's own state folder (transcripts, memory, artifacts, "
    "prompt history, config.toml); the file tools do not read, list, search or write "
    "there. Use recall for this session's records."
)
SKIPPED = "agent-cli's own state folder (transcripts, memory, artifacts): not listed or searched"


class StateFolders:
    """The folders agent-cli keeps for itself (module contract)."""

    def __init__(self, folders: Iterable[Path] = ()) -> None:
        resolved: list[Path] = []
        for folder in folders:
            try:
                real = Path(folder).resolve(strict=False)
            except (RuntimeError, OSError):  # a loop of links: it names no folder
                continue
            if real not in resolved:
                resolved.append(real)
        self.folders = tuple(resolved)

    def holds(self, resolved: Path, root: Path) -> bool:
        """True when `resolved` (a path below or at `root`, links resolved) is one of the
        folders or lies below one (module contract)."""
        if any(resolved == folder or resolved.is_relative_to(folder) for folder in self.folders):
            return True
        identities = self._identities()
        if not identities:
            return False
        for step in (resolved, *resolved.parents):
            try:
                info = os.stat(step)
            except OSError:  # not there (yet): a file to create, a folder to make
                info = None
            if info is not None and (info.st_dev, info.st_ino) in identities:
                return True
            if step == root or not step.is_relative_to(root):
                return False
        return False

    def is_one(self, info: os.stat_result) -> bool:
        """True when `info` (a folder's `stat`) is that of one of the folders."""
        return (info.st_dev, info.st_ino) in self._identities()

    def folders_among(self, listed: Iterable[str], root_fd: int) -> list[str]:
        """The folders of a walk that are one of these (as the walk names them, relative
        to the root open as `root_fd`), given the files it listed (`a/b/c.txt`): each
        folder a listed file lies in is checked once, by identity, highest first."""
        identities = self._identities()
        if not identities:
            return []
        checked: dict[str, bool] = {}
        found: list[str] = []
        for name in listed:
            parts = name.split("/")[:-1]
            for depth in range(1, len(parts) + 1):
                folder = "/".join(parts[:depth])
                if folder not in checked:
                    checked[folder] = _identity(folder, root_fd) in identities
                    if checked[folder]:
                        found.append(folder)
                if checked[folder]:
                    break
        return found

    def refuse(self, resolved: Path, root: Path) -> None:
        """`ToolError(REFUSAL)` when `holds(resolved, root)`: no path is repeated."""
        if self.holds(resolved, root):
            raise ToolError(REFUSAL)

    def _identities(self) -> frozenset[tuple[int, int]]:
        """The device and inode of each folder now (one made or replaced since start
        counts as it is now)."""
        found = set()
        for folder in self.folders:
            try:
                info = os.stat(folder)
            except OSError:
                continue
            found.add((info.st_dev, info.st_ino))
        return frozenset(found)


def _identity(relative: str, root_fd: int) -> tuple[int, int] | None:
    try:
        info = os.stat(relative, dir_fd=root_fd, follow_symlinks=False)
    except OSError:
        return None
    return info.st_dev, info.st_ino


NO_STATE_FOLDERS = StateFolders()
