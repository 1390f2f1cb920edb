"""Confinement of file tools to one workspace root.

Contract: `resolve_inside` returns the fully resolved path (every symlink followed) and
refuses, with `WorkspaceEscape`, anything whose resolved form is not the root or below it:
absolute paths elsewhere, `..` that climbs out, and symlinks (file or directory, dangling
or not) whose target lies outside. That answers "which file does the user mean"; the
tools then open the resolved path through `open_file` / `open_directory`, which walk it
from a descriptor of the root held since construction without following a link at any
component (`safe_open`), so a folder swapped for a link afterwards is refused, not
followed.

Names: `display` names what a tool acts on by its resolved path (relative to the root),
never by the path as given: a link keeps its own name there (`notes.md` for a link to
`.git/config`), and `docs/../README.md` with `docs` a link to `a/b` reads as
`README.md` where the OS opens `a/README.md`. A name whose first component starts with
`~` is shown as `./~/...`, so a folder named `~` in the workspace never reads as the home
folder, and every control in a name is written out as approvals write it (`^[`, `^J`).
`link_route` gives the path as given when a link leads from it to another name, so the
user is told both.

agent-cli's own folders (`state_folders`: transcripts, memory, artifacts, the prompt
history, config.toml) are refused wherever they lie inside the root, by any route
(a fifteenth outside attack: run in the home folder, they lay in the workspace).
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable
from pathlib import Path
from stat import S_ISDIR

from agent_cli.errors import ConfigError, ToolError, WorkspaceEscape, WorkspaceGone
from agent_cli.nofollow_open import DIRECTORY_FLAGS
from agent_cli.tools.safe_open import open_directory_beneath, open_file_beneath
from agent_cli.tools.state_folders import NO_STATE_FOLDERS, StateFolders
from agent_cli.written_out import reveal_all

# Directories no search descends into: version control, environments, caches.
SKIPPED_DIRECTORY_NAMES = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
    }
)


class Workspace:
    """The directory the tools may touch; `root` is resolved once, at construction.
    `state_folders`: agent-cli's own folders, which no path may name even inside `root`."""

    def __init__(self, root: Path, state_folders: StateFolders = NO_STATE_FOLDERS) -> None:
        """Raise `ConfigError("workspace", ...)` when `root` is not an existing directory."""
        self.state_folders = state_folders
        try:
            self.root = Path(root).resolve(strict=True)
        except OSError as error:
            raise ConfigError("workspace", "missing") from error
        try:
            self.root_fd = os.open(self.root, DIRECTORY_FLAGS)
        except OSError as error:
            raise ConfigError("workspace", "not_a_directory") from error
        weakref.finalize(self, os.close, self.root_fd)

    def resolve_inside(self, raw_path: str) -> Path:
        """The resolved absolute path for `raw_path`, or `WorkspaceEscape` if it leads out;
        ToolError for a NUL, a path through a loop of symbolic links, or one into
        agent-cli's own state folders (`state_folders`: by any route or spelling)."""
        if "\x00" in raw_path:
            raise ToolError("The path contains a NUL character; pass a plain file path.")
        joined = self.root / raw_path if raw_path.strip() else self.root
        try:
            resolved = joined.resolve(strict=False)
        except (RuntimeError, OSError):  # RuntimeError: a loop of links, on Python 3.11
            raise ToolError(
                "That path goes through symbolic links that lead back to each other (a "
                "loop), so it names no file; use another path."
            ) from None
        if self.is_inside(resolved):
            self.state_folders.refuse(resolved, self.root)
            return resolved
        lexical = Path(os.path.normpath(joined))
        how = "through a symbolic link" if self.is_inside(lexical) else "by its location"
        raise WorkspaceEscape(  # the path is not repeated: `tools.echo`
            f"That path leads outside the workspace {how}; refused. File tools only "
            f"work inside {self.root}; use a path relative to it."
        )

    def is_inside(self, path: Path) -> bool:
        return path == self.root or path.is_relative_to(self.root)

    def display(self, raw_path: str, resolved: Path) -> str:
        """The name of the file or folder `resolved` (from `resolve_inside(raw_path)`), as
        the user reads it: relative to the root, "." for the root, `./` before a first
        component starting with `~` (module doc). The resolved path, not `raw_path`: that
        is the file the tool opens or writes."""
        return unambiguous(resolved.relative_to(self.root).as_posix())

    def link_route(self, raw_path: str, resolved: Path) -> str | None:
        """`raw_path` as the user reads it when a symbolic link leads from it to
        `resolved` (its lexical form names something else); None when it names `resolved`
        directly."""
        lexical = Path(os.path.normpath(self.root / raw_path))
        if lexical == resolved:
            return None
        if self.is_inside(lexical) and ".." not in Path(raw_path).parts:
            return unambiguous(lexical.relative_to(self.root).as_posix())
        return reveal_all(raw_path) if Path(raw_path).is_absolute() else unambiguous(raw_path)

    def named_path(self, raw_path: str, resolved: Path) -> Path:
        """The path `raw_path` names before any link is followed (what the stale-write
        guard holds beside `resolved`, `seen_files`): its lexical form inside the root;
        with a `..`, which the OS takes after the link before it, its folder resolved and
        its own last name kept; `resolved` when the name is not a workspace path."""
        joined = self.root / raw_path
        if ".." not in Path(raw_path).parts:
            named = Path(os.path.normpath(joined))
        elif joined.name not in ("", ".."):
            try:
                named = joined.parent.resolve(strict=False) / joined.name
            except (RuntimeError, OSError):  # a loop made since `resolve_inside`
                return resolved
        else:
            return resolved
        return named if self.is_inside(named) else resolved

    def relative_parts(self, resolved: Path) -> tuple[str, ...]:
        """The components of a path from `resolve_inside`, below the root."""
        return resolved.relative_to(self.root).parts

    def open_file(self, resolved: Path, shown: str, flags: int, mode: int = 0o644) -> int:
        """An fd for the regular file at `resolved`, no link followed on the way."""
        self.require_same_root()
        return open_file_beneath(self.root_fd, self.relative_parts(resolved), shown, flags, mode)

    def held_root_opener(self) -> Callable[[str], int]:
        """A read-only opener for the many files of one call (grep confirming its matches).

        The root is checked once, now (`require_same_root`); each path then given, relative
        to the root as a program such as rg names it (`sub/a.txt`), is opened from the held
        root descriptor without following a link at any component (`safe_open`). That walk
        is what keeps a swapped-in link out; checking the root again per file only cost two
        system calls a file.
        """
        self.require_same_root()
        root_fd = self.root_fd

        def open_relative(relative: str) -> int:
            return open_file_beneath(root_fd, relative.split("/"), relative, os.O_RDONLY)

        return open_relative

    def open_directory(self, resolved: Path, shown: str, create_missing: bool = False) -> int:
        """An fd for the directory at `resolved`, no link followed on the way."""
        self.require_same_root()
        parts = self.relative_parts(resolved)
        return open_directory_beneath(self.root_fd, parts, shown, create_missing)

    def identity(self) -> tuple[int, int]:
        """The (device, inode) of the root folder held since the start: the same for the
        folder after a move or a rename, and through a link to it (`seen_roots`)."""
        held = os.fstat(self.root_fd)
        return held.st_dev, held.st_ino

    def require_same_root(self) -> None:
        """Raise `WorkspaceGone` when the root folder was moved, deleted or replaced since
        the start: the held descriptor would otherwise act on a folder the user no longer
        sees there."""
        held = os.fstat(self.root_fd)
        try:
            now = os.stat(self.root, follow_symlinks=False)
        except OSError:
            raise WorkspaceGone(str(self.root), "nothing") from None
        if (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino):
            return
        raise WorkspaceGone(str(self.root), "another folder" if S_ISDIR(now.st_mode) else "nothing")

    def gone_now(self) -> WorkspaceGone | None:
        """What `require_same_root` would raise now, or None while the root is in place."""
        try:
            self.require_same_root()
        except WorkspaceGone as gone:
            return gone
        return None


def describe_workspace_gone(gone: WorkspaceGone, session_id: str, after_call: bool = False) -> str:
    """What the model reads when the workspace folder is gone (`gone`): what happened,
    that nothing was done (`after_call`: that the call just made did it, which then ran),
    and what the user can do (the user's own words, which address the user, are
    `repl.error_text.describe_workspace_gone`). `--resume <id>` goes on in the recorded
    folder while it exists, else in the folder it is run in, and is refused only when
    both are gone (`session.opening`): so the advice is to run it in a folder that
    exists. This session cannot take up a folder made again, since it holds the
    descriptor of the one it started in."""
    resume = f"`agent-cli --resume {session_id}`"
    when = "during this call" if after_call else "while this session ran"
    if gone.now == "another folder":
        what = f"The workspace folder {gone.root} was replaced by another folder {when}"
        advice = (
            "This session's file tools and commands work only in the folder it started in: "
            f"the user can quit and run {resume} to go on with this conversation in the "
            "folder now there."
        )
    else:
        what = f"The workspace folder {gone.root} no longer exists (moved or deleted {when})"
        advice = (
            "No file tool or command can work in this session now. The user can quit and "
            f"run {resume} in a folder that exists to go on with this conversation: its "
            f"tools then work in {gone.root} if that folder is made again, else in the "
            "folder it is run in."
        )
    return f"{what}. {advice}" if after_call else f"{what}; nothing was done. {advice}"


def unambiguous(relative: str) -> str:
    """A workspace-relative path that cannot be read as another place: "." for the root,
    `./` before a first component starting with `~` (else read as a home folder), every
    control written out as approvals write it (`written_out.reveal_all`: `^[` for ESC,
    `^J` for a line feed), so the name the model and the user read is the one asked
    about, and no name reads as two."""
    if relative in ("", "."):
        return "."
    shown = reveal_all(relative)
    return f"./{shown}" if shown.startswith("~") else shown
