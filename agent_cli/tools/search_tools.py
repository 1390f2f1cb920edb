"""list_dir and grep: looking around the workspace without changing it.

Contract: both stay inside the workspace, and both open what they read from the held
workspace descriptor without following a link at any component (`safe_open`): the
folder to list or search is walked to with `O_NOFOLLOW`, each subfolder of its tree is
opened relative to its parent's descriptor with `O_NOFOLLOW | O_DIRECTORY`, and each
file relative to its folder's descriptor with `O_NOFOLLOW`.
So a folder swapped for a link during the call is refused or skipped, never followed.
`grep` walks in a stable (sorted) order, never descends into version-control,
environment or cache directories, skips symlinks, binary and oversized files, and stops
at a match cap, saying so and how to narrow the search.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from agent_cli.errors import ToolError
from agent_cli.tools.context import PreparedCall, ToolContext, ToolLimits
from agent_cli.tools.output import ToolResult, format_size
from agent_cli.tools.safe_open import DIRECTORY_FLAGS, FILE_FLAGS
from agent_cli.tools.workspace import SKIPPED_DIRECTORY_NAMES, Workspace


def prepare_list_dir(context: ToolContext, arguments: dict[str, Any]) -> PreparedCall:
    raw = arguments.get("path", ".")
    resolved = context.workspace.resolve_inside(raw)
    shown = context.workspace.display(raw, resolved)
    return PreparedCall(f"list {shown}", lambda: list_directory(context, resolved, shown))


def list_directory(context: ToolContext, path: Path, shown: str) -> ToolResult:
    """Directories first (with '/'), then files with sizes; symlinks show their target."""
    if not path.exists():
        raise ToolError(f"{shown}: no such directory. List its parent to see what exists.")
    if not path.is_dir():
        raise ToolError(f"{shown} is a file, not a directory; use read_file.")
    descriptor = context.workspace.open_directory(path, shown)
    try:
        with os.scandir(descriptor) as scan:
            entries = sorted(scan, key=lambda entry: (not _is_real_dir(entry), entry.name))
        cap = context.limits.list_max_entries
        lines = [
            _describe_entry(context.workspace, path, descriptor, entry) for entry in entries[:cap]
        ]
    finally:
        os.close(descriptor)
    if len(entries) > cap:
        lines.append(f"[{len(entries) - cap} more entries not shown]")
    directories = sum(1 for entry in entries if _is_real_dir(entry))
    header = f"Directory: {shown} ({directories} directories, {len(entries) - directories} files)"
    return ToolResult(header, "\n".join(lines), summary=f"{len(entries)} entries")


def _is_real_dir(entry: os.DirEntry[str]) -> bool:
    return entry.is_dir(follow_symlinks=False)


def _describe_entry(
    workspace: Workspace, folder: Path, descriptor: int, entry: os.DirEntry[str]
) -> str:
    """One line for an entry of the folder open as `descriptor` (its stats go through it)."""
    if entry.is_symlink():
        target = os.readlink(entry.name, dir_fd=descriptor)
        landing = (folder / target).resolve(strict=False)  # only to label it; never opened
        is_outside = not workspace.is_inside(landing)
        return f"{entry.name} -> {target}" + (" (outside the workspace)" if is_outside else "")
    if _is_real_dir(entry):
        return f"{entry.name}/"
    return f"{entry.name}  ({format_size(entry.stat(follow_symlinks=False).st_size)})"


@dataclass
class GrepTally:
    matches: list[str] = field(default_factory=list)
    files_with_matches: int = 0
    files_searched: int = 0
    files_skipped: int = 0
    is_capped: bool = False


def prepare_grep(context: ToolContext, arguments: dict[str, Any]) -> PreparedCall:
    pattern = arguments["pattern"]
    try:
        regex = re.compile(pattern)
    except re.error as error:
        raise ToolError(
            f"Invalid regular expression {pattern!r}: {error.msg} at position {error.pos}. "
            "grep uses Python `re` syntax; escape special characters such as ( ) [ ] { } "
            ". * + ? | with a backslash, or use a simpler pattern."
        ) from error
    raw = arguments.get("path", ".")
    resolved = context.workspace.resolve_inside(raw)
    shown = context.workspace.display(raw, resolved)
    if not resolved.exists():
        raise ToolError(f"{shown}: no such file or directory. Use list_dir to look around.")
    glob = arguments.get("glob")
    return PreparedCall(
        f"grep {pattern!r} in {shown}",
        lambda: search_workspace(context, regex, resolved, shown, glob),
    )


def search_workspace(
    context: ToolContext, regex: re.Pattern[str], path: Path, shown: str, glob: str | None
) -> ToolResult:
    """Every line matching `regex` in the files under `path`, up to the match cap."""
    tally = GrepTally()
    workspace = context.workspace
    if path.is_file():
        parent = workspace.open_directory(path.parent, shown)
        candidates = iter([(workspace.display(str(path), path), parent, path.name)])
    else:
        parent = workspace.open_directory(path, shown)
        candidates = _candidate_files(workspace.display(str(path), path), parent, glob)
    try:
        for relative, folder, name in candidates:
            _search_file(folder, name, relative, regex, context.limits, tally)
            if tally.is_capped:
                break
    finally:
        os.close(parent)
    return _render_grep(regex.pattern, shown, tally)


def _candidate_files(
    start_shown: str, start: int, glob: str | None
) -> Iterator[tuple[str, int, str]]:
    """(workspace-relative name, folder descriptor, name) of every file under `start`.

    Depth first in sorted order; each subfolder is opened relative to its parent's
    descriptor with `O_NOFOLLOW | O_DIRECTORY`, so a folder swapped for a link is
    skipped, never entered.
    """
    prefix = "" if start_shown == "." else start_shown + "/"
    with os.scandir(start) as scan:
        entries = sorted(scan, key=lambda entry: entry.name)
    for entry in entries:
        relative = prefix + entry.name
        if entry.is_dir(follow_symlinks=False):
            if entry.name not in SKIPPED_DIRECTORY_NAMES:
                yield from _candidate_files_below(relative, start, entry.name, glob)
        elif glob is None or fnmatch.fnmatch(entry.name, glob) or fnmatch.fnmatch(relative, glob):
            yield relative, start, entry.name


def _candidate_files_below(
    relative: str, parent: int, name: str, glob: str | None
) -> Iterator[tuple[str, int, str]]:
    try:
        folder = os.open(name, DIRECTORY_FLAGS, dir_fd=parent)
    except OSError:  # swapped for a link, removed, or unreadable: not entered
        return
    try:
        yield from _candidate_files(relative, folder, glob)
    finally:
        os.close(folder)


def _search_file(
    folder: int,
    name: str,
    relative: str,
    regex: re.Pattern[str],
    limits: ToolLimits,
    tally: GrepTally,
) -> None:
    handle = _open_searchable(folder, name, limits.max_read_file_bytes)
    if handle is None:
        tally.files_skipped += 1
        return
    with handle:
        tally.files_searched += 1
        try:
            _match_lines(handle, relative, regex, limits, tally)
        except OSError:
            tally.files_skipped += 1


def _open_searchable(folder: int, name: str, max_bytes: int) -> BinaryIO | None:
    """The file `name` of `folder` opened for reading, if it is a regular text file
    no bigger than `max_bytes`; None for links (refused by O_NOFOLLOW), folders that
    were swapped in, binary, oversized, vanished or unreadable files."""
    try:
        descriptor = os.open(name, os.O_RDONLY | FILE_FLAGS, dir_fd=folder)
    except OSError:
        return None
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
        os.close(descriptor)
        return None
    handle = os.fdopen(descriptor, "rb")
    try:
        is_text = b"\x00" not in handle.read(8192)
        handle.seek(0)
    except OSError:
        is_text = False
    if not is_text:
        handle.close()
        return None
    return handle


def _match_lines(
    handle: Any, relative: str, regex: re.Pattern[str], limits: ToolLimits, tally: GrepTally
) -> None:
    has_match = False
    for number, raw in enumerate(handle, 1):
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if regex.search(line) is None:
            continue
        if len(tally.matches) >= limits.grep_max_matches:
            tally.is_capped = True
            break
        has_match = True
        if len(line) > limits.grep_max_line_chars:
            line = line[: limits.grep_max_line_chars] + " [...]"
        tally.matches.append(f"{relative}:{number}: {line}")
    tally.files_with_matches += int(has_match)


def _render_grep(pattern: str, shown: str, tally: GrepTally) -> ToolResult:
    count = len(tally.matches)
    where = f"/{pattern}/ under {shown}"
    if count == 0:
        header = f"No matches for {where} ({tally.files_searched} files searched)."
        return ToolResult(header, summary="no matches")
    if tally.is_capped:
        header = (
            f"First {count} matches for {where} (stopped at the cap of {count}; "
            "narrow the pattern, path or glob to see the rest)"
        )
    else:
        header = f"{count} matches in {tally.files_with_matches} files for {where}"
    body = "\n".join(tally.matches)
    if tally.files_skipped:
        body += f"\n[{tally.files_skipped} binary, oversized or unreadable files skipped]"
    summary = f"{count}{'+' if tally.is_capped else ''} matches in {tally.files_with_matches} files"
    return ToolResult(header, body, summary=summary)
