"""Confinement of file tools to one workspace root.

Contract: `resolve_inside` returns the fully resolved path (every symlink followed) and
refuses, with `WorkspaceEscape`, anything whose resolved form is not the root or below it:
absolute paths elsewhere, `..` that climbs out, and symlinks (file or directory, dangling
or not) whose target lies outside. Callers then operate on the resolved path only, and
open its final component with O_NOFOLLOW, so a link swapped in afterwards is not followed.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from agent_cli.errors import ConfigError, ToolError, WorkspaceEscape

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
    """The directory the tools may touch; `root` is resolved once, at construction."""

    def __init__(self, root: Path) -> None:
        """Raise `ConfigError("workspace", ...)` when `root` is not an existing directory."""
        try:
            self.root = Path(root).resolve(strict=True)
        except OSError as error:
            raise ConfigError("workspace", "missing") from error
        if not self.root.is_dir():
            raise ConfigError("workspace", "not_a_directory")

    def resolve_inside(self, raw_path: str) -> Path:
        """The resolved absolute path for `raw_path`, or `WorkspaceEscape` if it leads out."""
        if "\x00" in raw_path:
            raise ToolError("The path contains a NUL character; pass a plain file path.")
        joined = self.root / raw_path if raw_path.strip() else self.root
        resolved = joined.resolve(strict=False)
        if self.is_inside(resolved):
            return resolved
        lexical = Path(os.path.normpath(joined))
        how = "through a symbolic link" if self.is_inside(lexical) else "by its location"
        raise WorkspaceEscape(
            f"Path {raw_path!r} leads outside the workspace {how}; refused. File tools only "
            f"work inside {self.root}; use a path relative to it."
        )

    def is_inside(self, path: Path) -> bool:
        return path == self.root or path.is_relative_to(self.root)

    def display(self, raw_path: str, resolved: Path) -> str:
        """The path as the user would name it: relative to the root, "." for the root."""
        lexical = Path(os.path.normpath(self.root / raw_path))
        shown = lexical if self.is_inside(lexical) else resolved
        relative = shown.relative_to(self.root).as_posix()
        return relative or "."


def open_for_reading(path: Path, shown: str) -> int:
    """An fd for `path` (already resolved) that refuses a symlink in the final component."""
    return _open(path, shown, os.O_RDONLY)


def open_for_writing(path: Path, shown: str) -> int:
    """An fd that creates or truncates `path`, refusing a symlink in the final component."""
    return _open(path, shown, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)


def _open(path: Path, shown: str, flags: int, mode: int = 0o777) -> int:
    # O_NONBLOCK keeps a FIFO from hanging the agent; it changes nothing for regular files.
    flags |= os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    descriptor = _open_or_explain(path, shown, flags, mode)
    kind = os.fstat(descriptor).st_mode
    if stat.S_ISREG(kind):
        return descriptor
    os.close(descriptor)
    if stat.S_ISDIR(kind):
        raise ToolError(f"{shown} is a directory, not a file; use list_dir.")
    raise ToolError(f"{shown} is not a regular file (device, socket or pipe); refused.")


def _open_or_explain(path: Path, shown: str, flags: int, mode: int) -> int:
    try:
        return os.open(path, flags, mode)
    except FileNotFoundError as error:
        raise ToolError(f"{shown}: no such file. Check the path with list_dir.") from error
    except IsADirectoryError as error:
        raise ToolError(f"{shown} is a directory, not a file; use list_dir.") from error
    except PermissionError as error:
        raise ToolError(f"{shown}: permission denied by the file system.") from error
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise WorkspaceEscape(
                f"{shown} became a symbolic link while it was being opened; refused."
            ) from error
        raise ToolError(f"{shown}: {error.strerror or error}") from error
