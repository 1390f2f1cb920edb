"""Removing one session's artifacts, and nothing else.

Contract: `remove_session_artifacts(root, session_id)` deletes what the artifact store
wrote for the session, the files named like artifacts (and its own leftover temp files)
in `<root>/<session_id>/tool-results/`, then each of those two folders that this leaves
empty. It never removes a tree wholesale and never follows a link: each folder is opened
relative to its parent's descriptor with O_NOFOLLOW (`nofollow_open`), and each file is
unlinked by name inside the folder that was opened. Anything else found there (a file of
another name, a folder, a link, a FIFO, or a link in place of the session folder) is left
and counted, and `SessionFolderKept` says so: an id that happens to name a folder agent-cli
did not make for that session cannot empty it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from pathlib import Path

from agent_cli.errors import PathStepRefused, SessionFolderKept
from agent_cli.nofollow_open import open_directory_beneath
from agent_cli.store.records import require_session_id

RESULTS_FOLDER = "tool-results"
# What `ArtifactStore.put` names its files, and what `write_file_atomic` names its temps.
_ARTIFACT_NAME = re.compile(r"[0-9a-f]{32}\.[a-z0-9]{1,8}")
_TEMP_NAME = re.compile(r"\.[0-9a-f]{32}\.[a-z0-9]{1,8}\.tmp-[0-9a-f]{12}")


def is_artifact_file_name(name: str) -> bool:
    """True for a name the artifact store gives a file (or its temp file while writing)."""
    return bool(_ARTIFACT_NAME.fullmatch(name) or _TEMP_NAME.fullmatch(name))


def remove_session_artifacts(root: Path, session_id: str) -> None:
    """Remove the artifacts of `session_id` under `root` (see the module contract).

    Nothing there is not an error. Raises `InvalidStoreInput` for an id that is not a
    session's, `SessionFolderKept` when foreign entries stay, and `OSError` when the
    OS refuses a removal (what was removed before it stays removed).
    """
    require_session_id(session_id)
    try:
        root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        kept = _remove_session_folder(root_fd, session_id)
    finally:
        os.close(root_fd)
    if kept:
        raise SessionFolderKept(session_id, str(Path(root) / session_id), kept)


def _remove_session_folder(root_fd: int, session_id: str) -> int:
    """Empty and remove `<root>/<session_id>`; how many foreign entries were kept."""
    folder_fd = _open_folder(root_fd, session_id)
    if folder_fd is None:
        return 1 if _exists(root_fd, session_id) else 0
    try:
        kept = 0
        for entry in _entry_names(folder_fd):
            if entry == RESULTS_FOLDER:
                kept += _remove_results_folder(folder_fd)
            else:
                kept += 1
    finally:
        os.close(folder_fd)
    return kept or _remove_if_empty(root_fd, session_id)


def _remove_results_folder(folder_fd: int) -> int:
    results_fd = _open_folder(folder_fd, RESULTS_FOLDER)
    if results_fd is None:
        return 1 if _exists(folder_fd, RESULTS_FOLDER) else 0
    try:
        names = _entry_names(results_fd)
        kept = sum(0 if _remove_artifact(results_fd, name) else 1 for name in names)
    finally:
        os.close(results_fd)
    return kept or _remove_if_empty(folder_fd, RESULTS_FOLDER)


def _remove_artifact(results_fd: int, name: str) -> bool:
    """Unlink `name` if it is an artifact file (a regular file, never a link); True if
    it is gone."""
    if not is_artifact_file_name(name):
        return False
    try:
        info = os.stat(name, dir_fd=results_fd, follow_symlinks=False)
    except FileNotFoundError:
        return True
    if not stat.S_ISREG(info.st_mode):
        return False
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name, dir_fd=results_fd)
    return True


def _open_folder(parent_fd: int, name: str) -> int | None:
    """A descriptor of the folder `name` in `parent_fd`, or None if there is no folder
    there (missing, or something else: a link, a file). Other refusals (EACCES) raise
    `OSError`: they say nothing about what the entry is."""
    try:
        return open_directory_beneath(parent_fd, [name])
    except PathStepRefused as refusal:
        if refusal.reason in ("not_found", "symlink", "not_a_directory"):
            return None
        code = refusal.errno or errno.EIO
        raise OSError(code, os.strerror(code)) from refusal


def _exists(parent_fd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def _entry_names(folder_fd: int) -> list[str]:
    with os.scandir(folder_fd) as scan:
        return [entry.name for entry in scan]


def _remove_if_empty(parent_fd: int, name: str) -> int:
    """rmdir `name`; 1 (one entry kept) if something appeared in it meanwhile, else 0."""
    try:
        os.rmdir(name, dir_fd=parent_fd)
    except FileNotFoundError:
        return 0
    except OSError as exc:
        if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
            return 1
        raise
    return 0
