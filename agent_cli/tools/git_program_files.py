"""The files that can make git run programs, and what they hold at one moment.

Why: git's read-only subcommands (`status`, `diff`, `log`, ...) run programs their
configuration names: `core.fsmonitor`, `core.pager`, `diff.external`, textconv and filter
drivers (chosen per file by `.gitattributes`), `core.sshCommand`, hooks (`git status`
writing the index runs `post-index-change`), aliases. After `p` for `git status`, the model
edited `.git/config` to add `fsmonitor = touch FSMONITOR_RAN; false`, and the next
`git status` ran that program unasked. So an "always" answer for a command that runs git
(`runs_git`) holds only while these files hold what they held when it was given.

Contract: `read_git_program_files(start, environ)` is a `GitProgramFiles`: for each file
below, what it holds (`file_digest.read_digest`: its content's sha256 and whether it is
executable, since git runs only an executable hook; or what stands there instead), never
following a link to read anything but a regular file, never blocking on one. `changed_files(before, after, start)` names the files that differ. The
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
- what any of those configuration files names, followed further (`git_config_names`):
  `include.path` and `includeIf.*.path` files, `core.attributesFile`, every file of
  `core.hooksPath`, a relative one taken from each worktree top and git folder found, as
  git takes it (a relative `.githooks` is `ws/.githooks`, not `ws/.git/.githooks`).
`is_git_program_file(path, environ)` says whether a file about to be written is one of
these for the repository around it, so its question can warn.
Below `start` the walk skips `SKIPPED_FOLDERS` (`node_modules`, `.venv`, caches) and stops
after `MAX_WALKED_FOLDERS` folders, nearest first: a repository or attribute file deeper in
a larger tree is not watched. Known gaps: a program a configuration names by path
(`fsmonitor = ./watch.sh`) is not read, only the configuration naming it; `.gitattributes` in a sibling folder of `start`
inside the same repository is not read; `-c` options and `GIT_CONFIG_*` variables are the
process's own (the model cannot change them for later commands).
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from agent_cli.tools.file_digest import read_digest, read_small_text
from agent_cli.tools.git_config_names import read_config_names
from agent_cli.tools.shell_word import split_shell_words
from agent_cli.tools.workspace_secrets import SKIPPED_FOLDERS

_SHELL_WORD_BREAKS = re.compile(r"[\s;&|()<>`'\"{}$=]+")
ATTRIBUTE_FILE_NAMES = frozenset({".gitattributes", ".gitmodules"})
CONFIG_FILES = ("config", "config.worktree")  # in each git folder
# How deep a word is read again as shell text (`bash -c "g\\it status"`).
MAX_QUOTING_DEPTH = 4
# Folders of the workspace walked for repositories and attribute files, nearest first: a
# check runs before each git command an "always" answer covers, so it stays bounded.
MAX_WALKED_FOLDERS = 5_000
MAX_FILES_NAMED = 3  # changed files a question names; the rest are counted


@dataclass(frozen=True)
class GitProgramFiles:
    """What each watched file held (`digests`: path -> digest), sorted by path."""

    digests: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class _Repositories:
    """The git folders watched, the worktree files watched, and the worktree tops known
    (where git runs hooks and takes a relative hooks path or attributes file from)."""

    folders: list[Path]
    worktree_files: list[Path]
    tops: list[Path]


def runs_git(command: str) -> bool:
    """True when a word of `command` names git (`git`, `/usr/bin/git`), wherever it
    stands (`cd sub && git log`), also once bash has removed its quotes (`\\git`, `g\\it`,
    `'g'it`, `"g"it`, `$'\\x67it'`) and within a quoted word read again as shell text
    (`bash -c 'g\\it log'`), `MAX_QUOTING_DEPTH` deep: an answer for it holds only while
    git's files do. Read loosely (`g\\\\it`, `echo git` count too): a word taken for git
    wrongly only binds an answer to git's files."""
    return _names_git(command, MAX_QUOTING_DEPTH)


def _names_git(text: str, depth: int) -> bool:
    """`runs_git` for `text`, its words read again `depth` more times."""
    if any(Path(word).name == "git" for word in _SHELL_WORD_BREAKS.split(text) if word):
        return True
    if depth == 0:
        return False
    words = [word for word in split_shell_words(text) if word != text]
    return any(_names_git(word, depth - 1) for word in words)


def read_git_program_files(start: Path | None, environ: Mapping[str, str]) -> GitProgramFiles:
    """The watched files (module contract) for commands started in `start` (None: not
    known, so only the user's and the system's files) and their digests now."""
    configs, others = _user_files(environ)
    bases: list[Path] = []
    if start is not None:
        found = _repository_files(start, environ)
        configs += [folder / name for folder in found.folders for name in CONFIG_FILES]
        others += [path for folder in found.folders for path in _git_folder_files(folder)]
        others += found.worktree_files
        bases = [*found.tops, *found.folders]
    names = read_config_names(configs, bases, _home(environ))
    others += [*names.configs, *names.attribute_files]
    others += [path for folder in names.hooks_folders for path in _folder_files(folder)]
    return GitProgramFiles(tuple(sorted({str(path): read_digest(path) for path in others}.items())))


def changed_files(
    before: GitProgramFiles, after: GitProgramFiles, start: Path | None
) -> tuple[str, ...]:
    """The files whose digest differs (or that came or went), as a person names them:
    relative to `start` when below it, else whole; in path order."""
    old, new = dict(before.digests), dict(after.digests)
    paths = sorted(p for p in old.keys() | new.keys() if old.get(p) != new.get(p))
    return tuple(_shown(Path(path), start) for path in paths)


def is_git_program_file(path: Path, environ: Mapping[str, str]) -> bool:
    """True for a file (a resolved path) that git reads its programs or their choice
    from: a `.git` file (`gitdir:` names the git folder) or anything under a `.git`
    folder, a `.gitattributes` or a `.gitmodules`, the user's and the system's files,
    and what the configuration of the repository around it names (included files, the
    hooks folder and what is in it, the attributes file: `git_config_names`)."""
    parts = [part.lower() for part in path.parts]
    if ".git" in parts or (bool(parts) and parts[-1] in ATTRIBUTE_FILE_NAMES):
        return True
    configs, others = _user_files(environ)
    around, top = _enclosing_repository(path.parent, environ)
    folders = _git_folders(around) if around is not None else []
    configs += [folder / name for folder in folders for name in CONFIG_FILES]
    names = read_config_names(configs, [*([top] if top else []), *folders], _home(environ))
    return names.has(path) or any(_real(other) == path for other in others)


def _home(environ: Mapping[str, str]) -> Path:
    return Path(environ.get("HOME", "~")).expanduser()


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _shown(path: Path, start: Path | None) -> str:
    if start is not None and path.is_relative_to(start):
        return str(path.relative_to(start))
    return str(path)


def _user_files(environ: Mapping[str, str]) -> tuple[list[Path], list[Path]]:
    """The user's and the system's configuration files, and their attribute files
    (module contract)."""
    home = _home(environ)
    xdg = Path(environ.get("XDG_CONFIG_HOME") or home / ".config") / "git"
    glob = environ.get("GIT_CONFIG_GLOBAL")
    configs = [xdg / "config", Path(glob) if glob else home / ".gitconfig"]
    if not environ.get("GIT_CONFIG_NOSYSTEM"):
        configs.append(Path(environ.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"))
    return configs, [xdg / "attributes", Path("/etc/gitattributes")]


def _repository_files(start: Path, environ: Mapping[str, str]) -> _Repositories:
    """The git folders of the repositories around and below `start` (with their common
    and submodule folders), the worktree files watched (module contract), and the tops of
    their worktrees."""
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
    tops = [*([top] if top is not None else []), *(entry.parent for entry in found_below)]
    return _Repositories(folders, worktree_files, tops)


def _partial_paths(relative: Path) -> Iterator[Path]:
    """`a`, `a/b`, `a/b/c` for `a/b/c`."""
    for count in range(1, len(relative.parts) + 1):
        yield Path(*relative.parts[:count])


def _enclosing_repository(
    start: Path, environ: Mapping[str, str]
) -> tuple[Path | None, Path | None]:
    """The `.git` entry (or `$GIT_DIR`) of the repository git would use in `start`, and
    the top of its worktree (None, None: no repository there). With `$GIT_DIR` the top
    is `$GIT_WORK_TREE`, else `start` itself, as git takes it (git(1))."""
    git_dir = environ.get("GIT_DIR")
    if git_dir:
        return start / git_dir, start / environ.get("GIT_WORK_TREE", "")
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
    common = read_small_text(folder / "commondir")
    if common:
        folders.append((folder / common.strip()).resolve())
    for base in list(folders):
        folders += _submodule_folders(base / "modules")
    return folders


def _gitdir_of(entry: Path) -> Path:
    """The folder a `.git` entry names: itself, or the target of its `gitdir:` line."""
    text = read_small_text(entry) if not entry.is_dir() else None
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


def _git_folder_files(folder: Path) -> list[Path]:
    """The files of a git folder watched beside its configuration files."""
    return [folder / "info/attributes", *_folder_files(folder / "hooks")]


def _folder_files(folder: Path) -> list[Path]:
    """The folder itself (so its coming and going shows) and every entry in it."""
    try:
        with os.scandir(folder) as scanned:
            return [folder, *sorted(Path(item.path) for item in scanned)]
    except OSError:
        return [folder]
