"""What the model saw of files, held relative to the folder the tools ran in, so that it
follows the session's workspace wherever its tools run now.

Contract: a `SeenRecord` is one fingerprint the model saw (`seen_files`) at `path`,
relative to `root`: the folder the tools ran in (`SeenRoot`: its resolved path and its
(device, inode), `Workspace.identity`). `rooted(path, fingerprint, root)` makes one of an
absolute path the toolbox noted (None for a path outside `root`, which the toolbox never
notes). A record made before records were rooted has `root` None and an absolute `path`.

`reroot(records, now, workspace)` puts records (oldest first) back as absolute paths
under `now`, the folder the session's tools run in in this run:
- a rooted record whose root is `now` (the same folder: same device and inode, so after
  a move, a rename or through a link to it; or the same path, a folder made again where
  it was) lands at `now / path`; one from any other folder is left out: it says nothing of
  the files here, and would only refuse a write of a file the model never saw;
- an unrooted record under `workspace` (the folder the session recorded when it started)
  lands at the same place below `now`, since the session's files moved with it; one
  elsewhere is kept as it was recorded (it matches only where it still names the file).
Leaving a record out never lets a write through that would be refused otherwise: the
write of a file with no record is asked about with its diff, as for a file never seen.

Why: records held absolute paths under the root of the run that made them; after the
user moved the project folder (`mv ws ws-moved`) or resumed through a link left in its
place, they matched no path the tools now use, and the model's write from its copy
replaced a line the user had added, under `--yes`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from agent_cli.tools.seen_files import Fingerprint


@dataclass(frozen=True)
class SeenRoot:
    """A folder the tools ran in: its resolved path and, when known, (device, inode)."""

    path: Path
    identity: tuple[int, int] | None


@dataclass(frozen=True)
class SeenRecord:
    """A fingerprint the model saw at `path` (relative to `root`; absolute without one)."""

    path: Path
    fingerprint: Fingerprint
    root: SeenRoot | None = None

    @property
    def absolute(self) -> Path:
        """The path where the record was made."""
        return self.path if self.root is None else self.root.path / self.path


def rooted(path: Path, fingerprint: Fingerprint, root: SeenRoot) -> SeenRecord | None:
    """The record of `fingerprint` seen at the absolute `path` below `root`; None when
    `path` is not below it."""
    if not path.is_relative_to(root.path) or path == root.path:
        return None
    return SeenRecord(path.relative_to(root.path), fingerprint, root)


def reroot(
    records: Iterable[SeenRecord], now: SeenRoot, workspace: Path | None
) -> list[tuple[Path, Fingerprint]]:
    """`records` (oldest first) as absolute paths under `now` (module contract)."""
    placed: list[tuple[Path, Fingerprint]] = []
    for record in records:
        path = _placed(record, now, workspace)
        if path is not None:
            placed.append((path, record.fingerprint))
    return placed


def _placed(record: SeenRecord, now: SeenRoot, workspace: Path | None) -> Path | None:
    if record.root is None:
        if workspace is not None and record.path.is_relative_to(workspace):
            return now.path / record.path.relative_to(workspace)
        return record.path
    return now.path / record.path if is_same_root(record.root, now) else None


def is_same_root(recorded: SeenRoot, now: SeenRoot) -> bool:
    """Whether `recorded` is the folder `now`: by device and inode, else by its path."""
    if recorded.identity is not None and recorded.identity == now.identity:
        return True
    return recorded.path == now.path
