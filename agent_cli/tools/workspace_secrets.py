"""The variables a workspace keeps in dotenv files, read at start so tools redact them.

A project's `.env` is where its keys live most often, and agent-cli's environment may
not hold them: without this, `read_file .env` or `cat .env` would send every value.

Contract: `read_workspace_dotenv(workspace)` reads the dotenv files at the workspace
root and in its folders one level down (`DOTENV_FOLDERS_READ` at most, in name order,
dot folders such as `.devcontainer` included; never those in `SKIPPED_FOLDERS`, which
hold version control, environments, dependencies and caches, not the project's own
files): files named `.env`, `.env.<name>`, `.env-<name>`, `.env_<name>`, `<name>.env`,
`.envrc`, `.secrets` (nektos/act's), `.dev.vars` or `.dev.vars.<name>` (Cloudflare
Wrangler's), a backup of one (`.env~`, `.env.bak`, `.orig`, `.old`, `.save`,
`.backup`, `.prev`, Emacs' `#.env#`) and a copy of one as desktop tools name it (`.env
copy`, `.env copy 2`, `.env - Copy (3)`, `.env (1)`, `.env.local copy`, `Copy of .env`),
but not templates (`.env.example`, `.sample`, `.template`, `.dist`, `.defaults`,
`.tmpl`, and their copies and backups), whose values are placeholders, nor Vim's
binary swap files (`.env.swp`); names are matched in any case (`.ENV`, `.Env copy`,
`.ENV.EXAMPLE` a template), as a case-insensitive file system opens them. Each is opened without blocking, and read when it is a
regular file: its first `MAX_DOTENV_BYTES` (most files whole), decoded and parsed by
`tools.dotenv_syntax` (every assignment, every reading of its value). It returns one
`DotenvFile` per file named so: its path relative to the workspace, its assignments and,
when some or all of it was not read, why (`NOT_REGULAR`: a pipe, a socket or a device,
which a read could wait on forever; `UNREADABLE`; `CUT`: only its first bytes), and how
many folders were not looked in for the limit. A folder named like a dotenv file (a
virtualenv called `.env`) and a link to nothing are no dotenv file; a folder one level
down that cannot be listed is passed over, since no tool can read its files either.
Never raises.

`find_dotenv_secrets(dotenv, named)` picks the secrets among the assignments by the
environment's rule (`tools.redaction.find_secrets`, each reading of each assignment, a
name assigned twice both times), and the credentials it leaves visible, by their first
reading, each as `<file>: <NAME>`; a reading over `MAX_HIDDEN_CHARS` is not hidden, and
is named (`LONG`) when its name looks like a credential; once a file's secrets add up to
`MAX_FILE_SECRET_CHARS`, its further ones are not hidden and the file is named (`MANY`).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_cli.tools.credential_names import is_credential_name
from agent_cli.tools.dotenv_syntax import Assignment, decode_dotenv, parse_dotenv
from agent_cli.tools.redaction import (
    SECRET_NAMES_VARIABLE,
    FoundSecrets,
    find_secrets,
    named_secrets,
)

MAX_DOTENV_BYTES = 4 * 1024 * 1024
# A longer value is not hidden: no credential is so long, and the redactor's start-up
# time grows with a secret's length (seconds for this one).
MAX_HIDDEN_CHARS = 32_768
LONG = "long"  # why a credential is not hidden, beside redaction's SHORT and ORDINARY_WORD
# What one file's secrets may add up to: past it (a chain of `NAME+=` lines gives each
# step's whole value, n squared characters in all) no more of its values are hidden, and
# the file is named (`MANY`): the redactor's start-up grows with what it hides.
MAX_FILE_SECRET_CHARS = 65_536
MANY = "many"
DOTENV_FOLDERS_READ = 200
SKIPPED_FOLDERS = frozenset(
    {
        *(".git", ".hg", ".svn", ".jj"),  # version control's own
        *(".venv", "venv", ".direnv", ".tox", ".nox"),  # environments tools build
        *("node_modules", "site-packages"),  # dependencies
        *("__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"),  # caches
    }
)
TEMPLATE_WORDS = ("example", "sample", "template", "dist", "defaults", "tmpl")
# A template's name: the word after `.`, `-` or `_` (`.env.example`, `.env-example`,
# `.env_sample`), or before `.env` (`example.env`): its values are placeholders.
_TEMPLATE = re.compile(rf"(?:^|[._-])(?:{'|'.join(TEMPLATE_WORDS)})(?:\.env)?$", re.IGNORECASE)
# Dotenv files by the names tools give them beside `.env`: direnv's `.envrc`, nektos/act's
# `.secrets` (what `act` reads secrets from), Cloudflare Wrangler's `.dev.vars` (and
# `.dev.vars.<environment>`).
DOTENV_NAMES = frozenset({".env", ".envrc", ".secrets", ".dev.vars"})
_DOTENV_STARTS = (".env.", ".env-", ".env_")  # `.env.local`, `.env-production`, `.env_dev`
# What an editor or a person adds to a file's name for a copy of it, with the same text:
# `.env~`, `.env.bak`, `#.env#` (Emacs' auto-save), `.envrc.orig`, `prod.env.old`.
_BACKUP_OF = re.compile(r"^#(.+)#$|~$|\.(?:bak|backup|orig|old|save|prev)$", re.IGNORECASE)
# What a file manager, an editor or a browser adds to a name for a copy of a file, at its
# end or before its last `.<part>`: macOS Finder's and VS Code's ` copy`, ` copy 2`,
# Windows Explorer's ` - Copy`, ` - Copy (2)`, a browser's ` (1)` (Firefox's `(1)`), so
# `.env copy`, `.env.local copy`, `.env copy.local`, `.env.production (2)`; and Windows'
# and Google Drive's `Copy of ` before it (`Copy (2) of .env`).
_COPY_MARK = re.compile(
    r"(?:\s+(?:-\s+)?copy(?:\s+\(?\d+\)?)?|\s*\(\d+\))(?=(?:\.[^.\s]*)?$)|^copy(?: \(\d+\))? of ",
    re.IGNORECASE,
)
# Vim's swap files (`.env.swp`, `.env.swo`, ...) are binary, not dotenv text.
_SWAP_FILE = re.compile(r"\.sw[a-p]$")
NOT_REGULAR = "not_regular"
UNREADABLE = "unreadable"
CUT = "cut"


@dataclass(frozen=True)
class DotenvFile:
    """One dotenv file: its path relative to the workspace, its assignments, and why
    some or all of it was not read (`NOT_REGULAR`, `UNREADABLE`, `CUT`), if so."""

    path: str
    assignments: tuple[Assignment, ...]
    unread: str | None = None


@dataclass(frozen=True)
class WorkspaceDotenv:
    """The workspace's dotenv files, and how many folders were not looked in."""

    files: tuple[DotenvFile, ...]
    folders_not_read: int = 0


def read_workspace_dotenv(workspace: Path) -> WorkspaceDotenv:
    """The workspace's dotenv files and their assignments (module contract)."""
    paths, folders_not_read = list_dotenv_paths(workspace)
    return read_dotenv_files(workspace, paths, folders_not_read)


def read_dotenv_files(
    workspace: Path, paths: Iterable[Path], folders_not_read: int = 0
) -> WorkspaceDotenv:
    """The dotenv files among `paths` (inside `workspace`, as `list_dotenv_paths` gives
    them) read as `read_workspace_dotenv` reads them; what is no file is left out."""
    found = []
    for path in paths:
        data, unread = _read_dotenv(path)
        if data is None and unread is None:
            continue  # a folder, or nothing there: no dotenv file
        assignments = tuple(parse_dotenv(decode_dotenv(data))) if data else ()
        found.append(DotenvFile(path.relative_to(workspace).as_posix(), assignments, unread))
    return WorkspaceDotenv(tuple(found), folders_not_read)


def find_dotenv_secrets(dotenv: WorkspaceDotenv, named: str) -> FoundSecrets:
    """The secret values of the dotenv files, longest first, and the credentials left
    visible (module contract); `named` is `AGENT_CLI_SECRET_NAMES`'s value."""
    names = named_secrets({SECRET_NAMES_VARIABLE: named})
    values: set[str] = set()
    unhidden: dict[str, str] = {}
    for file in dotenv.files:
        firsts, others, too_long = _layers(file.assignments)
        room = MAX_FILE_SECRET_CHARS
        layered = [(layer, True) for layer in firsts] + [(layer, False) for layer in others]
        for layer, is_first in layered:
            found = find_secrets({**layer, SECRET_NAMES_VARIABLE: named})
            new = [value for value in found.values if value not in values]
            room -= sum(map(len, new))
            if room < 0:
                unhidden[str(file.path)] = MANY
                break
            values.update(new)
            if is_first:  # a notice speaks of the value most readers take
                shown = ((f"{file.path}: {name}", why) for name, why in found.unhidden)
                unhidden.update(shown)
        for name in too_long:
            if name in names or is_credential_name(name):
                unhidden[f"{file.path}: {name}"] = LONG
    ordered = tuple(sorted(values, key=len, reverse=True))
    return FoundSecrets(ordered, tuple(unhidden.items()))


def _layers(
    assignments: tuple[Assignment, ...],
) -> tuple[list[dict[str, str]], list[dict[str, str]], list[str]]:
    """The assignments as environments `find_secrets` can read, each name once in each
    (a name given twice, or a value's other readings, go to the next one): those of the
    first readings, those of the others, and the names of readings too long to hide."""
    firsts: list[dict[str, str]] = []
    others: list[dict[str, str]] = []
    too_long: list[str] = []
    depth: dict[tuple[bool, str], int] = {}  # how many layers hold the name already
    for assignment in assignments:
        for index, reading in enumerate(assignment.readings):
            if len(reading) > MAX_HIDDEN_CHARS:
                too_long.append(assignment.name)
                continue
            layers, key = (firsts if index == 0 else others), (index == 0, assignment.name)
            level = depth[key] = depth.get(key, -1) + 1
            if level == len(layers):
                layers.append({})
            layers[level][assignment.name] = reading
    return firsts, others, too_long


def is_dotenv_name(name: str) -> bool:
    """A dotenv file's name, or its backup's or copy's, that is no template and no
    editor's swap file (module contract), in any case: a case-insensitive file system
    (macOS', Windows', WSL's) gives `.ENV` to a reader that asks for `.env`."""
    name = _original_name(name).lower()
    if _TEMPLATE.search(name) or _SWAP_FILE.search(name):
        return False
    return (
        name in DOTENV_NAMES
        or name.startswith(_DOTENV_STARTS)
        or name.endswith(".env")
        or name.startswith(".dev.vars.")
    )


def _original_name(name: str) -> str:
    """The name a backup or a copy was made from (`_BACKUP_OF`, `_COPY_MARK`), each mark
    taken off in turn (`.env copy~`, `.env.bak (1)`: `.env`); any other name as it is."""
    while True:
        plain = _BACKUP_OF.sub(lambda backup: backup.group(1) or "", name, count=1)
        plain = _COPY_MARK.sub("", plain, count=1)
        if plain == name:
            return name
        name = plain


@dataclass(frozen=True)
class ListedEntry:
    """An entry of a folder that `list_dotenv_paths` may use: a folder (not a link to
    one), or one named like a dotenv file (`is_dotenv_name`), or both."""

    path: Path
    is_folder: bool
    is_dotenv: bool


# A folder's entries that `list_dotenv_paths` may use, in name order (`list_folder`).
FolderLister = Callable[[Path], Sequence[ListedEntry]]


def list_folder(folder: Path) -> tuple[ListedEntry, ...]:
    """The folders and dotenv-named entries of `folder`, in name order; none when it
    cannot be listed. Nothing is opened or followed."""
    listed = []
    for entry in _entries(folder):
        is_folder, is_dotenv = _is_folder(entry), is_dotenv_name(entry.name)
        if is_folder or is_dotenv:
            listed.append(ListedEntry(Path(entry.path), is_folder, is_dotenv))
    return tuple(listed)


def list_dotenv_paths(
    workspace: Path, list_entries: FolderLister = list_folder
) -> tuple[list[Path], int]:
    """The paths named like dotenv files at the root and one level down, and how many
    folders were left unread for `DOTENV_FOLDERS_READ`: listings only, nothing opened.
    `list_entries` lists a folder (`list_folder`; the watch passes one that reuses the
    listing of a folder unchanged since its last check: `tools.dotenv_watch`)."""
    paths: list[Path] = []
    folders = not_read = 0
    for entry in list_entries(workspace):
        if not entry.is_folder:
            paths.append(entry.path)
        elif entry.path.name in SKIPPED_FOLDERS:
            continue
        elif folders == DOTENV_FOLDERS_READ:
            not_read += 1
        else:
            folders += 1
            paths += (each.path for each in list_entries(entry.path) if each.is_dotenv)
    return paths, not_read


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as listing:
            return sorted(listing, key=lambda entry: entry.name)
    except OSError:
        return []


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _read_dotenv(path: Path) -> tuple[bytes | None, str | None]:
    """The first `MAX_DOTENV_BYTES` of `path` if it is a regular file (a FIFO or a
    device is never waited on), and why some or all of it was not read, if so; neither
    for a folder or a path that leads nowhere."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None, None
    except OSError:
        return None, UNREADABLE
    try:
        mode = os.fstat(descriptor).st_mode
        if stat.S_ISDIR(mode):
            return None, None
        if not stat.S_ISREG(mode):
            return None, NOT_REGULAR
        data = _read_at_most(descriptor, MAX_DOTENV_BYTES + 1)
    except OSError:
        return None, UNREADABLE
    finally:
        os.close(descriptor)
    if len(data) > MAX_DOTENV_BYTES:
        return data[:MAX_DOTENV_BYTES], CUT
    return data, None


def _read_at_most(descriptor: int, limit: int) -> bytes:
    pieces: list[bytes] = []
    left = limit
    while left > 0:
        piece = os.read(descriptor, left)
        if not piece:
            break
        pieces.append(piece)
        left -= len(piece)
    return b"".join(pieces)
