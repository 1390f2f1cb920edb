"""list_dir and grep: looking around the workspace without changing it.

Contract: both stay inside the workspace. `grep` walks in a stable (sorted) order, never
descends into version-control, environment or cache directories, does not follow
directory symlinks, skips file symlinks that lead out, skips binary and oversized files,
and stops at a match cap, saying so and how to narrow the search.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_cli.errors import ToolError
from agent_cli.tools.context import PreparedCall, ToolContext, ToolLimits
from agent_cli.tools.output import ToolResult, format_size
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
    with os.scandir(path) as scan:
        entries = sorted(scan, key=lambda entry: (not entry.is_dir(), entry.name))
    cap = context.limits.list_max_entries
    lines = [_describe_entry(context.workspace, entry) for entry in entries[:cap]]
    if len(entries) > cap:
        lines.append(f"[{len(entries) - cap} more entries not shown]")
    directories = sum(1 for entry in entries if entry.is_dir())
    header = f"Directory: {shown} ({directories} directories, {len(entries) - directories} files)"
    return ToolResult(header, "\n".join(lines), summary=f"{len(entries)} entries")


def _describe_entry(workspace: Workspace, entry: os.DirEntry[str]) -> str:
    if entry.is_symlink():
        target = os.readlink(entry.path)
        is_outside = not workspace.is_inside(Path(entry.path).resolve(strict=False))
        return f"{entry.name} -> {target}" + (" (outside the workspace)" if is_outside else "")
    if entry.is_dir():
        return f"{entry.name}/"
    return f"{entry.name}  ({format_size(entry.stat().st_size)})"


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
    for file_path in _candidate_files(context.workspace, path, glob):
        _search_file(context.workspace, file_path, regex, context.limits, tally)
        if tally.is_capped:
            break
    return _render_grep(regex.pattern, shown, tally)


def _candidate_files(workspace: Workspace, start: Path, glob: str | None) -> Iterator[Path]:
    if start.is_file():
        yield start
        return
    for directory, subdirectories, files in os.walk(start):
        subdirectories[:] = sorted(d for d in subdirectories if d not in SKIPPED_DIRECTORY_NAMES)
        for name in sorted(files):
            candidate = Path(directory, name)
            relative = candidate.relative_to(workspace.root).as_posix()
            if glob is None or fnmatch.fnmatch(name, glob) or fnmatch.fnmatch(relative, glob):
                yield candidate


def _search_file(
    workspace: Workspace, path: Path, regex: re.Pattern[str], limits: ToolLimits, tally: GrepTally
) -> None:
    real = path.resolve(strict=False)
    if not workspace.is_inside(real) or not real.is_file():
        tally.files_skipped += 1
        return
    relative = path.relative_to(workspace.root).as_posix()
    try:
        with real.open("rb") as handle:
            is_searchable = os.fstat(
                handle.fileno()
            ).st_size <= limits.max_read_file_bytes and b"\x00" not in handle.read(8192)
            if not is_searchable:
                tally.files_skipped += 1
                return
            handle.seek(0)
            tally.files_searched += 1
            _match_lines(handle, relative, regex, limits, tally)
    except OSError:
        tally.files_skipped += 1


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
        header = f"{_count_matches(count, tally.files_with_matches)} for {where}"
    body = "\n".join(tally.matches)
    if tally.files_skipped:
        body += f"\n[{tally.files_skipped} binary, oversized or unreadable files skipped]"
    summary = _count_matches(count, tally.files_with_matches, capped=tally.is_capped)
    return ToolResult(header, body, summary=summary)


def _count_matches(matches: int, files: int, *, capped: bool = False) -> str:
    """`1 match in 1 file`, `3+ matches in 2 files` (the + when the cap stopped the search)."""
    match_word = "match" if matches == 1 and not capped else "matches"
    file_word = "file" if files == 1 else "files"
    return f"{matches}{'+' if capped else ''} {match_word} in {files} {file_word}"
