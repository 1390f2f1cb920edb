"""grep: searching file contents in the workspace with ripgrep.

Contract: the search stays inside the workspace (the starting path is checked as every
tool checks its path, and rg follows no symbolic link). It uses ripgrep's linear-time
regex engine, so no pattern can hang it; it skips what `.gitignore` and friends ignore,
version-control, environment and cache folders, binary files (counting those that
matched) and files over the read limit; it walks in a stable (sorted) order, stops at a
match cap saying so and how to narrow the search, and gives up after a bounded time
with what it found. A pattern rg cannot parse is refused in plain words.

`prepare_list_dir` lives in `listing` and is re-exported here for the toolbox.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_cli.errors import ToolError
from agent_cli.tools.context import PreparedCall, ToolContext, ToolLimits
from agent_cli.tools.listing import prepare_list_dir, refuse_inside_git
from agent_cli.tools.output import ToolResult
from agent_cli.tools.ripgrep import RgRun, run_rg

__all__ = ["prepare_grep", "prepare_list_dir", "search_workspace"]

_BINARY_MATCH = re.compile(rb": binary file matches \(found .* byte around offset \d+\)$")
_FILES_SEARCHED = re.compile(rb"^(\d+) files searched$")
REGEX_HELP = (
    "grep uses ripgrep's regex syntax (like Python's `re`, without look-around or "
    "back-references); escape special characters such as ( ) [ ] { } . * + ? | with a "
    "backslash, or use a simpler pattern."
)


@dataclass
class GrepTally:
    matches: list[str] = field(default_factory=list)
    files_with_matches: set[str] = field(default_factory=set)
    files_searched: int = 0
    files_skipped: int = 0
    is_capped: bool = False
    has_stats: bool = False


def prepare_grep(context: ToolContext, arguments: dict[str, Any]) -> PreparedCall:
    pattern = arguments["pattern"]
    if not isinstance(pattern, str) or "\x00" in pattern:
        raise ToolError("The pattern must be text without NUL characters.")
    raw = arguments.get("path", ".")
    resolved = context.workspace.resolve_inside(raw)
    shown = context.workspace.display(raw, resolved)
    if not resolved.exists():
        raise ToolError(f"{shown}: no such file or directory. Use list_dir to look around.")
    if not (resolved.is_dir() or resolved.is_file()):  # a FIFO would block the search
        raise ToolError(f"{shown} is not a regular file or a directory; refused.")
    refuse_inside_git(context.workspace, resolved, shown)
    glob = arguments.get("glob")
    return PreparedCall(
        f"grep {pattern!r} in {shown}",
        lambda: search_workspace(context, pattern, resolved, shown, glob),
    )


def search_workspace(
    context: ToolContext, pattern: str, path: Path, shown: str, glob: str | None
) -> ToolResult:
    """Every line matching `pattern` in the files under `path`, up to the match cap."""
    limits = context.limits
    relative = path.relative_to(context.workspace.root).as_posix()
    args = [
        *("--null", "--line-number", "--no-heading", "--with-filename", "--binary"),
        *("--stats", "--sort=path", f"--max-filesize={limits.max_read_file_bytes}"),
        *([f"--glob={glob}"] if glob else []),
        f"--regexp={pattern}",
        "--",
        "./" if relative == "." else f"./{relative}",
    ]
    tally, run = GrepTally(), RgRun()
    lines = run_rg(args, context.workspace.root, run, timeout=limits.search_timeout_seconds)
    for line in lines:
        _take_line(line.rstrip(b"\n"), limits, tally)
        if tally.is_capped:
            break
    lines.close()
    if not tally.has_stats and not tally.is_capped and not run.timed_out:
        _refuse_what_rg_refused(pattern, glob, run.stderr)
    tally.files_skipped += run.stderr.count("\nrg: ") + run.stderr.startswith("rg: ")
    note = _timeout_note(limits) if run.timed_out else ""
    return _render_grep(pattern, shown, tally, note)


def _take_line(line: bytes, limits: ToolLimits, tally: GrepTally) -> None:
    """One line of rg's output: a match (`path NUL number:text`), a binary file that
    matched, or a line of the closing statistics."""
    path, nul, rest = line.partition(b"\0")
    if nul:
        if len(tally.matches) >= limits.grep_max_matches:
            tally.is_capped = True
            return
        number, _, text = rest.partition(b":")
        relative = path.decode("utf-8", "replace").removeprefix("./")
        shown = text.decode("utf-8", "replace").rstrip("\r")
        if len(shown) > limits.grep_max_line_chars:
            shown = shown[: limits.grep_max_line_chars] + " [...]"
        tally.matches.append(f"{relative}:{number.decode()}: {shown}")
        tally.files_with_matches.add(relative)
    elif _BINARY_MATCH.search(line):
        tally.files_skipped += 1
        tally.files_searched -= 1  # rg counts it as searched; we did not show it
    elif searched := _FILES_SEARCHED.match(line):
        tally.files_searched += int(searched.group(1))
        tally.has_stats = True


def _refuse_what_rg_refused(pattern: str, glob: str | None, stderr: str) -> None:
    """rg printed no statistics: it did not search. Say why in plain words."""
    said = [line.strip() for line in stderr.splitlines() if line.strip()]
    reason = next((line[6:].strip() for line in said if line.startswith("error:")), None)
    if "regex" in stderr:
        raise ToolError(
            f"Invalid regular expression {pattern!r}: {reason or said[-1]}. {REGEX_HELP}"
        )
    if glob and "glob" in stderr:
        raise ToolError(f"Invalid glob {glob!r}: {reason or said[-1]}. Use a pattern like '*.py'.")
    raise ToolError(f"The search could not run: {said[-1] if said else 'no reason given'}.")


def _timeout_note(limits: ToolLimits) -> str:
    seconds = limits.search_timeout_seconds
    return f"[search stopped after {seconds:g} s; narrow the path, glob or pattern]"


def _render_grep(pattern: str, shown: str, tally: GrepTally, note: str) -> ToolResult:
    count, files = len(tally.matches), len(tally.files_with_matches)
    where = f"/{pattern}/ under {shown}"
    if count == 0:
        header = f"No matches for {where} ({max(tally.files_searched, 0)} files searched)."
        return ToolResult(header, note, summary="no matches")
    if tally.is_capped:
        header = (
            f"First {count} matches for {where} (stopped at the cap of {count}; "
            "narrow the pattern, path or glob to see the rest)"
        )
    else:
        header = f"{count} matches in {files} files for {where}"
    body = "\n".join(tally.matches)
    if tally.files_skipped:
        body += f"\n[{tally.files_skipped} binary, oversized or unreadable files skipped]"
    if note:
        body += f"\n{note}"
    summary = f"{count}{'+' if tally.is_capped else ''} matches in {files} files"
    return ToolResult(header, body, summary=summary)
