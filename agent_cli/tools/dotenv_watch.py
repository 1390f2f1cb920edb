"""Noticing, cheaply, that the workspace's dotenv files changed while a session runs.

Why: the secrets of the dotenv files were read once, when the session opened; a file a
command writes later (`vercel env pull` writes `.env.local`) or one the user edits in
another window (a rotated key) then went to the model as it was.

Contract: a `DotenvWatch(workspace, named)` holds stamps of the dotenv files. `check()`
looks in the folders `tools.workspace_secrets` looks in (the root, and the folders one
level down that it lists: `list_dotenv_paths`) and stats each file named like a dotenv
file there; a stamp is `(path, st_mtime_ns, st_size, st_ino)`. A folder is listed again
only when its own stamp, `(st_ctime_ns, st_mtime_ns, st_ino)`, changed since the last
check (an entry created, removed or renamed in it changes both times); else its last
listing is used (`list_folder`; the listings of the folders looked in at the last check
are kept, no others). No file is read unless
its stamp is new or changed; then those files alone are read, with the bounds they are
read with at start (`read_dotenv_files`), and their secrets found (`find_dotenv_secrets`,
`named` being `AGENT_CLI_SECRET_NAMES`'s value). It returns a `DotenvChange` (the files
read, their secret values, and only what is newly worth saying: credentials left
visible and files not read that no check reported before, and the folders not looked
in when there are more of them), or None when no stamp is new or changed and no more
folders are left out. A removed file changes nothing: what was learned stays learned.
The first check reads every dotenv file: it is the read at start.

A stamp taken within `RACY_NANOSECONDS` of the file's mtime is not trusted: file systems
keep coarse times, so the file may be written again within the same tick, at the same
size, and look unchanged (git calls such an index entry "racy"). Its stamp is not kept,
so the file is read again at each check until it is older; what it holds is then known,
so nothing is said unless it changed. A folder whose ctime or mtime is that recent is
listed again at each check, for the same reason.

Cost per check: one `stat` per folder looked in and per dotenv-named file, a listing of
each folder changed since the last check, nothing read (figures in docs/performance.md).
A tool call costs two checks, and one more per `toolbox.LIVE_CHECK_SECONDS` of a
command's streaming output; every request the session sends costs one. Never raises (as
`read_workspace_dotenv`).
"""

from __future__ import annotations

import dataclasses
import os
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_cli.tools.redaction import FoundSecrets
from agent_cli.tools.workspace_secrets import (
    FolderLister,
    ListedEntry,
    WorkspaceDotenv,
    find_dotenv_secrets,
    list_dotenv_paths,
    list_folder,
    read_dotenv_files,
)

Stamp = tuple[str, int, int, int]  # (path, st_mtime_ns, st_size, st_ino)
FolderStamp = tuple[int, int, int]  # (st_ctime_ns, st_mtime_ns, st_ino)
Listings = dict[Path, tuple[FolderStamp, Sequence[ListedEntry]]]
# Two seconds: the coarsest mtime a file system in common use keeps (FAT's).
RACY_NANOSECONDS = 2_000_000_000
UNTRUSTED_MTIME = -1  # a racy stamp's mtime: such a stamp is never kept


@dataclass(frozen=True)
class DotenvChange:
    """What one check found: the dotenv files read again (with the folders not looked
    in, when more are left out than before), and their secrets; `found.unhidden` holds
    only the credentials no earlier check said were left visible."""

    dotenv: WorkspaceDotenv
    found: FoundSecrets

    @property
    def files(self) -> tuple[str, ...]:
        """The paths, relative to the workspace, of the files read."""
        return tuple(file.path for file in self.dotenv.files)


class DotenvWatch:
    """The dotenv files of one workspace, stamped; see the module contract."""

    def __init__(
        self,
        workspace: Path,
        named: str,
        clock_ns: Callable[[], int] = time.time_ns,
        list_entries: FolderLister = list_folder,
    ) -> None:
        """`list_entries` lists a folder when its stamp changed (`list_folder`)."""
        self._workspace = workspace
        self._named = named
        self._clock_ns = clock_ns
        self._list_entries = list_entries
        self._stamps: frozenset[Stamp] = frozenset()
        self._listings: Listings = {}  # of the folders looked in at the last check
        self._folders_not_read = 0
        self._said: set[tuple[str, str]] = set()  # (entry, reason) of notices returned

    def check(self) -> DotenvChange | None:
        """The dotenv files new or changed since the last check, read; None if none."""
        now = self._clock_ns()
        listings: Listings = {}
        paths, folders_not_read = list_dotenv_paths(
            self._workspace, lambda folder: self._listed(folder, now, listings)
        )
        self._listings = listings
        stamped = {path: _stamp(self._workspace, path, now) for path in paths}
        changed = [path for path, mark in stamped.items() if mark and mark not in self._stamps]
        more_left_out = folders_not_read > self._folders_not_read
        self._stamps = frozenset(m for m in stamped.values() if m and m[1] != UNTRUSTED_MTIME)
        self._folders_not_read = folders_not_read
        if not changed and not more_left_out:
            return None
        read = read_dotenv_files(self._workspace, changed, folders_not_read * more_left_out)
        found = find_dotenv_secrets(read, self._named)
        return DotenvChange(self._unsaid(read), FoundSecrets(found.values, self._new(found)))

    def _listed(self, folder: Path, now: int, listings: Listings) -> Sequence[ListedEntry]:
        """`folder`'s entries: as the last check listed them while its stamp is the same
        and trusted, else listed now; kept in `listings` under the stamp taken before."""
        stamp = _folder_stamp(folder, now)
        last = self._listings.get(folder)
        entries = last[1] if stamp is not None and last and last[0] == stamp else None
        if entries is None:
            entries = self._list_entries(folder)
        if stamp is not None:
            listings[folder] = (stamp, entries)
        return entries

    def _new(self, found: FoundSecrets) -> tuple[tuple[str, str], ...]:
        """The credentials left visible that no check has said so before."""
        fresh = tuple(entry for entry in found.unhidden if entry not in self._said)
        self._said.update(fresh)
        return fresh

    def _unsaid(self, read: WorkspaceDotenv) -> WorkspaceDotenv:
        """`read` with each file's reason for not being read given only the first time."""
        files = []
        for file in read.files:
            said = file.unread is None or (file.path, file.unread) in self._said
            if file.unread is not None:
                self._said.add((file.path, file.unread))
            files.append(dataclasses.replace(file, unread=None) if said else file)
        return WorkspaceDotenv(tuple(files), read.folders_not_read)


def _stamp(workspace: Path, path: Path, now: int) -> Stamp | None:
    """The stamp of `path` (followed, as it is read; of the link itself when it cannot be
    followed, a loop: the read then says it is unreadable), None for a folder or nothing
    there; its mtime `UNTRUSTED_MTIME` when too recent to be trusted (module contract)."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError:
        try:
            found = os.lstat(path)
        except OSError:
            return None
    if stat.S_ISDIR(found.st_mode):
        return None
    mtime = found.st_mtime_ns
    if now - mtime < RACY_NANOSECONDS:
        mtime = UNTRUSTED_MTIME
    return (path.relative_to(workspace).as_posix(), mtime, found.st_size, found.st_ino)


def _folder_stamp(folder: Path, now: int) -> FolderStamp | None:
    """The stamp of `folder`, None when it cannot be had or is too recent to be trusted
    (its ctime or mtime within `RACY_NANOSECONDS` of `now`: module contract)."""
    try:
        found = os.stat(folder)
    except OSError:
        return None
    if now - max(found.st_ctime_ns, found.st_mtime_ns) < RACY_NANOSECONDS:
        return None
    return (found.st_ctime_ns, found.st_mtime_ns, found.st_ino)
