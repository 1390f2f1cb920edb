"""Opening workspace paths without following a symbolic link, in the tools' own words.

The walk itself is `agent_cli.nofollow_open` (shared with the source resolver): from the
workspace root's descriptor, one component at a time with `openat` and `O_NOFOLLOW`, so a
folder swapped for a link while a tool runs is refused, never followed. This module only
turns its refusals into what the model reads: `WorkspaceEscape` for a link or a name that
is not plain, `ToolError` with a next step for the rest. A refusal names no part of the
path the model gave but one that exists (the link, or the file, met on the way): the
answer is redacted, and the model's own words redacted would say which is a secret
(`tools.echo`).

A search that lets another program (ripgrep) walk the tree by name must treat what it
reports as candidates and show only what it reads again through these functions.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from agent_cli import nofollow_open
from agent_cli.errors import PathStepRefused, ToolError, WorkspaceEscape

__all__ = [
    "open_directory_beneath",
    "open_file_beneath",
]


def open_directory_beneath(
    root_fd: int, parts: Sequence[str], shown: str, create_missing: bool = False
) -> int:
    """An fd for the directory `parts` below `root_fd` (no part may be a link).

    With `create_missing`, missing directories are made on the way (each one created
    relative to its parent's descriptor, then opened with `O_NOFOLLOW`).
    """
    try:
        return nofollow_open.open_directory_beneath(root_fd, parts, create_missing)
    except PathStepRefused as refusal:
        raise _in_words(refusal, shown) from refusal


def open_file_beneath(
    root_fd: int, parts: Sequence[str], shown: str, flags: int, mode: int = 0o644
) -> int:
    """An fd for the regular file `parts` below `root_fd`, opened with `flags` (a file it
    creates gets `mode`, narrowed by the umask); no component may be a link."""
    if not parts:
        raise ToolError("The path names the workspace directory itself; give a file path.")

    def open_at(name: str, step_flags: int, dir_fd: int | None) -> int:
        return os.open(name, step_flags, mode, dir_fd=dir_fd)

    try:
        descriptor, _ = nofollow_open.open_file_beneath(root_fd, parts, flags, open_at)
    except PathStepRefused as refusal:
        raise _in_words(refusal, shown) from refusal
    return descriptor


def _in_words(refusal: PathStepRefused, shown: str) -> ToolError:
    """The message the model reads for a refused step: what happened and what to do.
    `shown` (the path as given, normalised) is named only where the step refused is the
    last, one that exists (a directory, a device); a link or a file met on the way is
    named by itself (module contract)."""
    name = refusal.component
    reason = refusal.reason
    if reason == "not_a_plain_name":
        return WorkspaceEscape("Only plain folder and file names are walked; refused.")
    if reason == "symlink":
        return WorkspaceEscape(
            f"{name!r} on the way is a symbolic link (it may have been swapped in while the "
            "tool ran); links are not followed here, so this was refused."
        )
    if reason == "not_found":
        what = "file" if refusal.last else "file or directory"
        return ToolError(f"No such {what}. Check the path with list_dir.")
    if reason == "is_a_directory":
        return ToolError(f"{shown} is a directory, not a file; use list_dir.")
    if reason == "not_a_regular_file":
        return ToolError(f"{shown} is not a regular file (device, socket or pipe); refused.")
    if reason == "not_a_directory":
        return ToolError(f"{name!r} on the way is not a directory.")
    if reason == "permission":
        return ToolError("Permission denied by the file system.")
    return ToolError(f"Refused: {os.strerror(refusal.errno) if refusal.errno else reason}.")
