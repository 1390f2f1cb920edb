"""Per-workspace persistence of the durable state (facts, pending items, evidence).

File: `<root>/<sha256(resolved workspace path)[:16]>.json` holding
`{"schema_version": 1, "workspace": "<resolved path>", "state": state_to_dict(state)}`
(other keys are ignored, such as the `workspace_id` that files saved by one earlier build
hold). A file belongs to the path it was saved for: a folder moved or renamed finds no file
at its new path, and a folder made later at the old path finds the old one. Nothing here
moves, merges or removes a file on its own; `bring` copies one folder's items into
another's when the user asks (`/facts bring`).
Saves are atomic (temp file, fsync, rename). Loading never starts empty over a file it
cannot read: a damaged file (not JSON, wrong schema version, another workspace, a state
the durable model rejects) is copied aside to `<name>.damaged-<n>` and
`MemoryFileDamaged` is raised with the reason and where the copy is. Only a missing file
means "no memory yet". A symlink, a FIFO or a folder at the path is refused without
being followed or waited on (`MemoryFileDamaged` "symlink" / "not_a_file", nothing copied).

Several sessions may share one workspace (two REPLs side by side). `update` therefore
re-reads the file and applies one change to what is on disk, all under an exclusive
flock on `<name>.lock`, so a change made by one process is never overwritten by another
that loaded the file earlier, and ids chosen under the lock cannot collide.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_cli.durable import (
    DurableContextState,
    bring_state,
    has_anything,
    state_from_dict,
    state_to_dict,
)
from agent_cli.errors import (
    DurableStateError,
    InvalidStoreInput,
    MemoryFileDamaged,
    MemoryWriteFailed,
    StateDirUnavailable,
    StoreFileNotRegular,
)
from agent_cli.store.file_lock import exclusive_lock
from agent_cli.store.fsutil import (
    DEFAULT_FILE_OPS,
    PRIVATE_FILE_MODE,
    FileOps,
    ensure_private_dir,
    errno_name,
    open_regular_file,
    write_all,
    write_file_atomic,
)
from agent_cli.store.path_text import path_key

SCHEMA_VERSION = 1
_DAMAGED_LABEL = "damaged"


class _Damage(Exception):
    """Internal: the file was read but cannot be trusted; `reason` is the code to report."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class MemoryStore:
    """Durable state files under `root`. `fs` carries the disk operations (tests inject
    failures through it: a full disk when saving, a refused open when loading)."""

    def __init__(self, root: Path, fs: FileOps | None = None) -> None:
        self.root = Path(root)
        self._fs = fs or DEFAULT_FILE_OPS

    def path_for(self, workspace: Path) -> Path:
        """The memory file of `workspace` (resolved, so every spelling maps to one file)."""
        return self._file_for(_workspace_key(workspace))

    def _file_for(self, key: str) -> Path:
        return self.root / f"{hashlib.sha256(key.encode('utf-8')).hexdigest()[:16]}.json"

    def recorded_path_for(self, recorded: str) -> Path:
        """The memory file of the folder a session recorded as `recorded` (a resolved path
        then), taken as written: the folder may be gone, or a link to another, since."""
        return self._file_for(path_key(recorded))

    def load(self, workspace: Path) -> DurableContextState:
        """The saved state of `workspace`, or an empty state if none was ever saved.

        Raises `MemoryFileDamaged` (after keeping a copy) or `StateDirUnavailable` when
        the file exists but cannot be opened for another reason (e.g. EACCES).
        """
        found = self._load_key(_workspace_key(workspace))
        return DurableContextState() if found is None else found

    def load_recorded(self, recorded: str) -> DurableContextState | None:
        """What the memory file of the folder recorded as `recorded` holds (`recorded_path_
        for`), or None when there is none; raises as `load` does."""
        return self._load_key(path_key(recorded))

    def _load_key(self, key: str) -> DurableContextState | None:
        path = self._file_for(key)
        raw = self._read_if_present(path)
        if raw is None:
            return None
        try:
            return _decode(raw, key)
        except _Damage as damage:
            kept_at = self._keep_damaged_copy(path, raw)
            raise MemoryFileDamaged(
                str(path), damage.reason, str(kept_at) if kept_at else None
            ) from None

    def stamp(self, workspace: Path) -> tuple[int, int, int] | None:
        """What tells a change to the memory file of `workspace` (its inode, size and
        modification time: a save replaces the file); None when there is none to read."""
        try:
            info = os.stat(self.path_for(workspace))
        except OSError:
            return None
        return (info.st_ino, info.st_size, info.st_mtime_ns)

    def save(self, workspace: Path, state: DurableContextState) -> Path:
        """Write `state` for `workspace` atomically and return the file's path.

        Raises `InvalidStoreInput` for something that is not a state, `StateDirUnavailable`
        or `MemoryWriteFailed` (the previous file is then untouched).
        """
        if not isinstance(state, DurableContextState):
            raise InvalidStoreInput("state", "not_a_durable_state")
        document = {
            "schema_version": SCHEMA_VERSION,
            "workspace": _workspace_key(workspace),
            "state": state_to_dict(state),
        }
        data = (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
        path = self.path_for(workspace)
        ensure_private_dir(self.root, self._fs)
        try:
            write_file_atomic(path, data, self._fs)
        except OSError as exc:
            raise MemoryWriteFailed(str(path), errno_name(exc)) from exc
        return path

    def update(
        self, workspace: Path, change: Callable[[DurableContextState], DurableContextState]
    ) -> DurableContextState:
        """Apply `change` to the state on disk now and save the result, under the lock.

        Returns the saved state. A damaged file whose copy was kept aside is replaced
        (the session already said so at start); one that could not be copied is left
        alone and `MemoryFileDamaged` raised. Whatever `change` raises propagates and
        nothing is written.
        """
        return self.update_stamped(workspace, change)[0]

    def update_stamped(
        self, workspace: Path, change: Callable[[DurableContextState], DurableContextState]
    ) -> tuple[DurableContextState, tuple[int, int, int] | None]:
        """`update`, and the `stamp` of the file it saved, taken under the lock: no other
        session's save can come between them."""
        ensure_private_dir(self.root, self._fs)
        path = self.path_for(workspace)
        with exclusive_lock(_lock_for(path)):
            state = change(self._load_or_replace_damaged(workspace))
            self.save(workspace, state)
            return state, self.stamp(workspace)

    def bring(self, recorded: str, workspace: Path) -> DurableContextState | None:
        """Copy what the memory file of the folder recorded as `recorded` holds into
        `workspace`'s (`durable.bring_state`: ids kept; `DurableIdsClash` when one would
        come to name another item, nothing written), under `workspace`'s lock. That file is
        only read (saves replace files whole, so it is read whole) and never changed.
        Returns what it held, or None when it holds nothing or is `workspace`'s own."""
        if self.recorded_path_for(recorded) == self.path_for(workspace):
            return None
        found = self.load_recorded(recorded)
        if found is None or not has_anything(found):
            return None
        self.update(workspace, lambda here: bring_state(found, here))
        return found

    def _load_or_replace_damaged(self, workspace: Path) -> DurableContextState:
        try:
            return self.load(workspace)
        except MemoryFileDamaged as damaged:
            if damaged.kept_at is None:
                raise
            return DurableContextState()

    # --- helpers ------------------------------------------------------------------------

    def _read_if_present(self, path: Path) -> bytes | None:
        try:
            fd = open_regular_file(path, os.O_RDONLY, self._fs)
        except FileNotFoundError:
            return None
        except StoreFileNotRegular:  # a FIFO, a folder: not opened for real, never waited on
            raise MemoryFileDamaged(str(path), "not_a_file", None) from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise MemoryFileDamaged(str(path), "symlink", None) from None
            raise StateDirUnavailable(str(path), errno_name(exc)) from exc
        with open(fd, "rb") as handle:
            return handle.read()

    def _keep_damaged_copy(self, path: Path, raw: bytes) -> Path | None:
        """Copy the damaged bytes to `<name>.damaged-<n>`; an identical earlier copy is reused.

        Returns None if no copy could be written (the damaged file itself is never touched,
        so it is still there to inspect)."""
        n = 1
        while True:
            candidate = path.with_name(f"{path.name}.{_DAMAGED_LABEL}-{n}")
            try:
                fd = os.open(
                    candidate,
                    os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                    PRIVATE_FILE_MODE,
                )
            except FileExistsError:
                if _holds_exactly(candidate, raw):
                    return candidate
                n += 1
                continue
            except OSError:
                return None
            return candidate if self._fill_copy(fd, candidate, raw) else None

    def _fill_copy(self, fd: int, candidate: Path, raw: bytes) -> bool:
        try:
            write_all(self._fs, fd, raw)
            self._fs.fsync(fd)
            return True
        except OSError:
            candidate.unlink(missing_ok=True)
            return False
        finally:
            os.close(fd)


def _lock_for(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def _workspace_key(workspace: Path) -> str:
    return path_key(str(Path(workspace).resolve()))


def _holds_exactly(path: Path, raw: bytes) -> bool:
    try:
        with open(open_regular_file(path, os.O_RDONLY), "rb") as handle:
            return bool(handle.read(len(raw) + 1) == raw)
    except (OSError, StoreFileNotRegular):
        return False


def _decode(raw: bytes, workspace: str) -> DurableContextState:
    """Check the envelope and rebuild the state, or raise `_Damage` with a reason code."""
    try:
        document: Any = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise _Damage("invalid_utf8") from None
    except ValueError:
        raise _Damage("invalid_json") from None
    except RecursionError:  # nesting deeper than the parser can follow
        raise _Damage("too_deeply_nested") from None
    if not isinstance(document, dict):
        raise _Damage("not_an_object")
    version = document.get("schema_version")
    if type(version) is not int or version != SCHEMA_VERSION:
        raise _Damage("bad_schema_version")
    if document.get("workspace") != workspace:
        raise _Damage("workspace_mismatch")
    if "state" not in document:
        raise _Damage("missing_state")
    try:
        return state_from_dict(document["state"])
    except DurableStateError as exc:
        raise _Damage(f"bad_state:{exc.field}:{exc.reason}") from None
    except (TypeError, ValueError):
        raise _Damage("bad_state") from None
