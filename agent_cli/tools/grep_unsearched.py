"""What grep's walk holds that it does not search, and the lines that say so.

Why: rg skips some files without a word, and an answer of "No matches (1 file searched)"
about a folder whose matching file was never searched misleads (outside attacks 14 and
15): a file over the read limit (rg's `--max-filesize`), a file whose name holds a secret
or a line break (`grep_names`), and agent-cli's own state folders (`state_folders`),
which no file tool reads.

Contract: `walk_for_grep(context, where, glob)` runs rg's own walk (`grep_names.
listed_files`, `GrepNamesTimedOut` past the time allowed) and returns a `GrepWalk`:
`listed`, the files of the walk outside agent-cli's state folders; `state_folders`, those
folders as the walk names them (to leave out with `--glob=!/...`); `oversized`, the files
over the read limit with their sizes, names withheld left out; and `notes`, one line per
kind of file not searched (a few oversized ones by name, the rest counted; withheld names
only counted, never named; each state folder). Names are written out as approvals write
them (`written_out.reveal_all`).
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field

from agent_cli.tools.context import ToolContext
from agent_cli.tools.grep_names import (
    GrepNamesTimedOut,
    is_left_out,
    listed_files,
    withheld_notes,
)
from agent_cli.tools.output import count_noun, format_size
from agent_cli.tools.state_folders import SKIPPED
from agent_cli.written_out import reveal_all

__all__ = ["GrepWalk", "walk_for_grep"]

OVERSIZED_NAMED = 3  # files over the size cap named in an answer; the rest are counted


@dataclass
class GrepWalk:
    """What `walk_for_grep` found (module contract)."""

    listed: list[str] = field(default_factory=list)
    state_folders: list[str] = field(default_factory=list)
    oversized: list[tuple[str, int]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def walk_for_grep(context: ToolContext, where: list[str], glob: str | None) -> GrepWalk:
    """The walk rg will make for a search of `where` with `glob` (module contract)."""
    workspace, limits = context.workspace, context.limits
    chosen = [f"--glob={glob}"] if glob else []
    timeout = limits.search_timeout_seconds
    listed, state = _outside_state_folders(
        context, listed_files([*chosen, *where], workspace, timeout=timeout)
    )
    kept = [name for name in listed if not is_left_out(name, context.secrets)]
    cap = limits.max_read_file_bytes
    oversized = _oversized(kept, workspace.root_fd, cap)
    everything = _without_glob(context, where, listed, glob)
    notes = [
        *_oversized_notes(oversized, cap),
        *withheld_notes(listed, everything, context.secrets),
        *(f"[{reveal_all(folder)}/ was not searched: {SKIPPED}]" for folder in state),
    ]
    return GrepWalk(listed, state, oversized, notes)


def _outside_state_folders(context: ToolContext, listed: list[str]) -> tuple[list[str], list[str]]:
    """The files of a walk outside agent-cli's state folders, and those folders."""
    workspace = context.workspace
    state = workspace.state_folders.folders_among(listed, workspace.root_fd)
    inside = tuple(f"{folder}/" for folder in state)
    return [name for name in listed if not name.startswith(inside)], state


def _without_glob(
    context: ToolContext, where: list[str], listed: list[str], glob: str | None
) -> list[str]:
    """The walk's files without the model's glob (`listed` when none was given), for the
    count of names withheld for a secret (`grep_names.withheld_notes`: so no glob can ask
    whether such a name matches it); none when that walk outlasts the time allowed or
    there is no secret to look for."""
    if not glob or context.secrets.pattern is None:
        return listed
    try:
        every = listed_files(
            where, context.workspace, timeout=context.limits.search_timeout_seconds
        )
    except GrepNamesTimedOut:
        return []
    return _outside_state_folders(context, every)[0]


def _oversized(listed: list[str], root_fd: int, cap: int) -> list[tuple[str, int]]:
    """The listed files over `cap` bytes, with their sizes: rg's `--max-filesize` skips
    them without a word (an outside attack: "No matches" about a file never searched).
    One `lstat` each, beside the root's held descriptor (rg follows no link)."""
    found = []
    for name in listed:
        try:
            size = os.stat(name, dir_fd=root_fd, follow_symlinks=False).st_size
        except OSError:
            continue  # gone since rg listed it: rg will not search it either
        if size > cap:
            found.append((name, size))
    return found


def _oversized_notes(oversized: list[tuple[str, int]], cap: int) -> list[str]:
    """One line per file not searched for its size, the first few by name (with the
    command that reads it: grep's own pattern is not repeated, `tools.echo`)."""
    notes = []
    for name, size in oversized[:OVERSIZED_NAMED]:
        shown = reveal_all(name)
        notes.append(
            f"[{shown} ({format_size(size)}) was not searched: over the {format_size(cap)} "
            f"cap; bash: grep -n PATTERN {shlex.quote(shown)} | head]"
        )
    rest = len(oversized) - OVERSIZED_NAMED
    if rest > 0:
        notes.append(
            f"[{count_noun(rest, 'more file')} over the {format_size(cap)} cap "
            f"{'was' if rest == 1 else 'were'} not searched]"
        )
    return notes
