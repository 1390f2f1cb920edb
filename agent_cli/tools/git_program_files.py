"""The files that can make git run programs, and what they hold at one moment.

Why: git's read-only subcommands (`status`, `diff`, `log`, ...) run programs their
configuration names: `core.fsmonitor`, `core.pager`, `diff.external`, textconv and filter
drivers (chosen per file by `.gitattributes`), `core.sshCommand`, hooks (`git status`
writing the index runs `post-index-change`), aliases. After `p` for `git status`, the model
edited `.git/config` to add `fsmonitor = touch FSMONITOR_RAN; false`, and the next
`git status` ran that program unasked. So an "always" answer for a command that runs git
(`runs_git`) holds only while these files hold what they held when it was given.

Contract: `read_git_program_files(start, environ)` is a `GitProgramFiles`: for each file
below, a digest of its content (sha256), or what stands there instead (nothing, a folder,
a FIFO, an error), never following a link to read anything but a regular file, never
blocking on one. `changed_files(before, after, start)` names the files that differ. The
files, for the repository around `start` (found as git finds it: `$GIT_DIR`, or the first
`.git` folder or `gitdir:` file in `start` or a folder above it) and every repository
below `start` (a `.git` met walking it, links not followed), each with its submodules'
git folders (`modules/...`) and its common folder (`commondir`):
- in each git folder: `config`, `config.worktree`, `info/attributes`, every file in `hooks/`;
- every `.gitattributes` and `.gitmodules` below `start`, and in each folder from the top
  of the repository around it down to `start`;
- the user's and the system's: `$GIT_CONFIG_GLOBAL` or `~/.gitconfig` and
  `$XDG_CONFIG_HOME/git/config` (`~/.config/git/config`), `.../git/attributes`,
  `$GIT_CONFIG_SYSTEM` or `/etc/gitconfig`, `/etc/gitattributes`;
- what any of those configuration files names, followed further: `include.path` and
  `includeIf.*.path` files, `core.attributesFile`, every file of `core.hooksPath`.
Below `start` the walk skips `SKIPPED_FOLDERS` (`node_modules`, `.venv`, caches) and stops
after `MAX_WALKED_FOLDERS` folders, nearest first: a repository or attribute file deeper in
a larger tree is not watched. Known gaps: a program a configuration names by path (`fsmonitor = ./watch.sh`) is not
read, only the configuration naming it; `.gitattributes` in a sibling folder of `start`
inside the same repository is not read; `-c` options and `GIT_CONFIG_*` variables are the
process's own (the model cannot change them for later commands).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from agent_cli.tools.workspace_secrets import SKIPPED_FOLDERS

_SHELL_WORD_BREAKS = re.compile(r"[\s;&|()<>`'\"{}$=]+")
ATTRIBUTE_FILE_NAMES = frozenset({".gitattributes", ".gitmodules"})
GIT_FOLDER_FILES = ("config", "config.worktree", "info/attributes")
MAX_INCLUDES = 64  # configuration files followed through include.path, in all
# Folders of the workspace walked for repositories and attribute files, nearest first: a
# check runs before each git command an "always" answer covers, so it stays bounded.
MAX_WALKED_FOLDERS = 5_000
MAX_FILES_NAMED = 3  # changed files a question names; the rest are counted


@dataclass(frozen=True)
class GitProgramFiles:
    """What each watched file held (`digests`: path -> digest), sorted by path."""

    digests: tuple[tuple[str, str], ...]


def runs_git(command: str) -> bool:
    """True when a word of `command` names git (`git`, `/usr/bin/git`), wherever it
    stands (`cd sub && git log`): an answer for it holds only while git's files do."""
    return any(Path(word).name == "git" for word in _SHELL_WORD_BREAKS.split(command) if word)


def read_git_program_files(start: Path | None, environ: Mapping[str, str]) -> GitProgramFiles:
    """The watched files (module contract) for commands started in `start` (None: not
    known, so only the user's and the system's files) and their digests now."""
    configs, others = _user_files(environ)
    if start is not None:
        folders, worktree_files = _repository_files(start, environ)
        for folder in folders:
            configs += [folder / name for name in GIT_FOLDER_FILES if name != "info/attributes"]
            others += [folder / "info/attributes", *_folder_files(folder / "hooks")]
        others += worktree_files
    digests = dict(_digests_of_configs(configs, environ, start))
    digests.update((str(path), _digest(path)) for path in others)
    return GitProgramFiles(tuple(sorted(digests.items())))


def changed_files(
    before: GitProgramFiles, after: GitProgramFiles, start: Path | None
) -> tuple[str, ...]:
    """The files whose digest differs (or that came or went), as a person names them:
    relative to `start` when below it, else whole; in path order."""
    old, new = dict(before.digests), dict(after.digests)
    paths = sorted(p for p in old.keys() | new.keys() if old.get(p) != new.get(p))
    return tuple(_shown(Path(path), start) for path in paths)


def is_git_program_file(shown: str) -> bool:
    """True for a workspace path (as shown) that git reads its programs or their choice
    from: a `.git` file (`gitdir:` names the git folder) or anything under a `.git`
    folder, a `.gitattributes` or a `.gitmodules`."""
    parts = [part.lower() for part in Path(shown).parts]
    return ".git" in parts or (bool(parts) and parts[-1] in ATTRIBUTE_FILE_NAMES)


def _shown(path: Path, start: Path | None) -> str:
    if start is not None and path.is_relative_to(start):
        return str(path.relative_to(start))
    return str(path)


def _user_files(environ: Mapping[str, str]) -> tuple[list[Path], list[Path]]:
    """The user's and the system's configuration files, and their attribute files
    (module contract)."""
    home = Path(environ.get("HOME", "~")).expanduser()
    xdg = Path(environ.get("XDG_CONFIG_HOME") or home / ".config") / "git"
    glob = environ.get("GIT_CONFIG_GLOBAL")
    configs = [xdg / "config", Path(glob) if glob else home / ".gitconfig"]
    if not environ.get("GIT_CONFIG_NOSYSTEM"):
        configs.append(Path(environ.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"))
    return configs, [xdg / "attributes", Path("/etc/gitattributes")]


def _repository_files(start: Path, environ: Mapping[str, str]) -> tuple[list[Path], list[Path]]:
    """The git folders of the repositories around and below `start` (with their common
    and submodule folders), and the worktree files watched (module contract)."""
    around, top = _enclosing_repository(start, environ)
    found_below, worktree_files = _walk(start)
    entries = [*([around] if around is not None else []), *found_below]
    folders: list[Path] = []
    for entry in entries:
        for folder in _git_folders(entry):
            if folder not in folders:
                folders.append(folder)
    if top is not None and start != top and start.is_relative_to(top):
        for above in [top, *(top / p for p in _partial_paths(start.relative_to(top)))]:
            if above != start:
                worktree_files += [above / name for name in sorted(ATTRIBUTE_FILE_NAMES)]
    return folders, worktree_files


def _partial_paths(relative: Path) -> Iterator[Path]:
    """`a`, `a/b`, `a/b/c` for `a/b/c`."""
    for count in range(1, len(relative.parts) + 1):
        yield Path(*relative.parts[:count])


def _enclosing_repository(
    start: Path, environ: Mapping[str, str]
) -> tuple[Path | None, Path | None]:
    """The `.git` entry (or `$GIT_DIR`) of the repository git would use in `start`, and
    the top of its worktree (None, None: no repository there)."""
    git_dir = environ.get("GIT_DIR")
    if git_dir:
        return start / git_dir, None
    for folder in (start, *start.parents):
        entry = folder / ".git"
        if os.path.lexists(entry):
            return entry, folder
    return None, None


def _git_folders(entry: Path) -> list[Path]:
    """The git folders a `.git` entry stands for: the folder (or the one a `gitdir:`
    file names), its common folder, and its submodules' git folders."""
    folder = _gitdir_of(entry)
    folders = [folder]
    common = _read_small(folder / "commondir")
    if common:
        folders.append((folder / common.strip()).resolve())
    for base in list(folders):
        folders += _submodule_folders(base / "modules")
    return folders


def _gitdir_of(entry: Path) -> Path:
    """The folder a `.git` entry names: itself, or the target of its `gitdir:` line."""
    text = _read_small(entry) if not entry.is_dir() else None
    if text and text.startswith("gitdir:"):
        return (entry.parent / text[len("gitdir:") :].strip()).resolve()
    return entry


def _walk(start: Path) -> tuple[list[Path], list[Path]]:
    """The `.git` entries and the watched worktree files below `start`, walked without
    following links nor entering a `.git` folder or one of `SKIPPED_FOLDERS`
    (dependencies, environments, caches), nearest folders first, at most
    `MAX_WALKED_FOLDERS` of them; a folder that cannot be read is watched as itself (its
    error is its digest)."""
    entries: list[Path] = []
    files: list[Path] = []
    folders = deque([str(start)])  # (strings: a Path per folder cost more than the listing)
    walked = 0
    while folders and walked < MAX_WALKED_FOLDERS:
        folder = folders.popleft()
        walked += 1
        try:
            with os.scandir(folder) as scanned:
                found = list(scanned)
        except OSError:
            files.append(Path(folder))
            continue
        for item in found:
            name = item.name.lower()
            if name == ".git":
                entries.append(Path(item.path))
            elif name in ATTRIBUTE_FILE_NAMES:
                files.append(Path(item.path))
            elif name not in SKIPPED_FOLDERS and item.is_dir(follow_symlinks=False):
                folders.append(item.path)
    return entries, files


def _submodule_folders(modules: Path) -> list[Path]:
    """The git folders below a `modules` folder (those holding `HEAD`; a submodule's
    name may hold `/`), with their own submodules': links not followed, and no git
    folder entered but for its `modules`."""
    found: list[Path] = []
    for root, folders, names in os.walk(modules):
        if "HEAD" in names:
            found.append(Path(root))
            folders[:] = [name for name in folders if name == "modules"]
    return found


def _folder_files(folder: Path) -> list[Path]:
    """The folder itself (so its coming and going shows) and every entry in it."""
    try:
        with os.scandir(folder) as scanned:
            return [folder, *sorted(Path(item.path) for item in scanned)]
    except OSError:
        return [folder]


def _digests_of_configs(
    configs: list[Path], environ: Mapping[str, str], start: Path | None
) -> Iterator[tuple[str, str]]:
    """Each configuration file's digest, and those of the files it names, followed
    through includes (`MAX_INCLUDES` configuration files in all)."""
    queue, seen = list(configs), set[Path]()
    home = Path(environ.get("HOME", "~")).expanduser()
    while queue and len(seen) < MAX_INCLUDES + len(configs):
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        yield str(path), _digest(path)
        for kind, named in _named_in_config(_read_small(path) or "", path.parent, home):
            if kind == "include":
                queue.append(named)
            elif kind == "hooks":
                yield from ((str(p), _digest(p)) for p in _folder_files(named))
            else:
                yield str(named), _digest(named)


_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\](.*)$')
_ENTRY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*?)\s*$")
_NAMING_KEYS = {
    ("include", "path"): "include",
    ("includeif", "path"): "include",
    ("core", "attributesfile"): "file",
    ("core", "hookspath"): "hooks",
}


def _named_in_config(text: str, folder: Path, home: Path) -> Iterator[tuple[str, Path]]:
    """The (kind, path) pairs a configuration text names (`_NAMING_KEYS`): a relative
    path is taken from the file's `folder`, `~/` from `home`. Read loosely: a file that
    hides a name from this reading still changes as a whole when it changes."""
    section = ""
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header:
            section, line = header.group(1).lower(), header.group(2)
        entry = _ENTRY.match(line)
        kind = _NAMING_KEYS.get((section, entry.group(1).lower())) if entry else None
        if entry is None or kind is None:
            continue
        value = entry.group(2).split(" #")[0].split(" ;")[0].strip().strip('"')
        if value:
            named = home / value[2:] if value.startswith("~/") else folder / value
            yield kind, Path(os.path.normpath(named))


def _read_small(path: Path, limit: int = 1 << 20) -> str | None:
    """The text of a regular file (up to `limit` bytes), or None (none, or no file)."""
    data = _read_regular(path, limit)
    return None if data is None else data.decode("utf-8", "replace")


def _digest(path: Path) -> str:
    """sha256 of a regular file's content, or what stands at `path` instead."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return "nothing"
    except OSError as error:
        return f"error {error.errno}"
    if not stat.S_ISREG(info.st_mode):
        return f"not a file ({stat.S_IFMT(info.st_mode):o}, {info.st_ino})"
    data = _read_regular(path, None)
    return "unreadable" if data is None else hashlib.sha256(data).hexdigest()


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
