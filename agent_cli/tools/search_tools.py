"""grep: searching file contents in the workspace with ripgrep.

Contract: the search stays inside the workspace (the starting path is checked as every
tool checks its path, and rg follows no symbolic link). It uses ripgrep's linear-time
regex engine, so no pattern can hang it; it skips what `.gitignore` and friends ignore,
version-control, environment and cache folders, binary files (counting those that
matched) and files over the read limit. A line that holds a secret is never shown nor
counted, whatever the pattern (`grep_secrets`: a match is an answer too). It walks in a
stable (sorted) order, stops at a match cap saying so and how to narrow the search, and
gives up after a bounded time with what it found. A pattern rg cannot parse, and a
pattern or glob holding a NUL (which no argument of a program can carry) or longer than
`MAX_PATTERN_BYTES`, are refused in plain words before anything runs. No answer repeats
the pattern, the glob or a path that is not there (`tools.echo`): the result is redacted,
and the model's own words redacted would say which of them is a secret.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_cli.errors import ToolError
from agent_cli.safe_cuts import cut_around, cut_head
from agent_cli.secret_forms import SecretForms
from agent_cli.tools.context import PreparedCall, ToolContext, ToolLimits
from agent_cli.tools.grep_confirm import Match, confirm_matches
from agent_cli.tools.grep_names import GrepNamesTimedOut, exclusion_globs, literal_glob
from agent_cli.tools.grep_secrets import SecretFiles
from agent_cli.tools.grep_unsearched import walk_for_grep
from agent_cli.tools.listing import refuse_inside_git
from agent_cli.tools.output import ToolResult, count_noun, format_size
from agent_cli.tools.ripgrep import RgRun, rg_refusal_reason, run_rg
from agent_cli.tools.ripgrep_records import RecordSearch, find_in_records
from agent_cli.written_out import reveal_all

__all__ = ["prepare_grep", "search_workspace"]

_BINARY_MATCH = re.compile(rb"^(.*): binary file matches \(found .* byte around offset \d+\)$")
_FILES_SEARCHED = re.compile(rb"^(\d+) files searched$")
MAX_PATTERN_BYTES = 100_000  # as UTF-8
REGEX_HELP = (
    "grep uses ripgrep's regex syntax (like Python's `re`, without look-around or "
    "back-references); escape special characters such as ( ) [ ] { } . * + ? | with a "
    "backslash, or use a simpler pattern."
)


@dataclass
class GrepTally:
    matches: list[Match] = field(default_factory=list)
    files_searched: int = 0
    files_skipped: int = 0
    dropped: int = 0  # reported by rg, but not found again inside the workspace
    is_capped: bool = False
    has_stats: bool = False
    oversized: list[tuple[str, int]] = field(default_factory=list)  # not searched: size
    walk_notes: list[str] = field(default_factory=list)  # what was not searched, and why


def prepare_grep(context: ToolContext, arguments: dict[str, Any]) -> PreparedCall:
    pattern = arguments["pattern"]
    if not isinstance(pattern, str) or "\x00" in pattern:
        raise ToolError("The pattern must be text without NUL characters.")
    glob = arguments.get("glob")
    for name, text in (("pattern", pattern), ("glob", glob or "")):
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > MAX_PATTERN_BYTES:  # (the OS refuses an argument of 128 KiB)
            raise ToolError(
                f"The {name} is {size:,} bytes; grep takes at most {MAX_PATTERN_BYTES:,}. "
                "Search for a shorter, distinctive part of it."
            )
    raw = arguments.get("path", ".")
    resolved = context.workspace.resolve_inside(raw)
    shown = context.workspace.display(raw, resolved)
    if not resolved.exists():
        raise ToolError("No file or directory has that path. Use list_dir to look around.")
    if not (resolved.is_dir() or resolved.is_file()):  # a FIFO would block the search
        raise ToolError(f"{shown} is not a regular file or a directory; refused.")
    refuse_inside_git(context.workspace, resolved)
    if glob is not None and "\x00" in glob:  # the OS takes no NUL in an argument
        raise ToolError("The glob must be text without NUL characters, e.g. '*.py'.")
    return PreparedCall(
        f"grep {pattern!r} in {shown}",
        lambda: search_workspace(context, pattern, resolved, shown, glob),
    )


def search_workspace(
    context: ToolContext, pattern: str, path: Path, shown: str, glob: str | None
) -> ToolResult:
    """Every line matching `pattern` in the files under `path`, up to the match cap.

    rg runs at the workspace root (so the root's `.gitignore` applies to any path, and
    its paths and `glob` are relative to the root). Its matches are confirmed before
    they are shown (`grep_confirm`). rg reads a file with a UTF-16 byte order mark as
    text (`--encoding=auto`, as Windows writes it), every other as its bytes; the secret
    check and the confirmation read the same (`grep_confirm.as_rg_reads`). Files whose
    name holds a secret are left out as if absent (`grep_names`), and so are agent-cli's
    own state folders; files over the read limit are not searched; every answer says
    what was not searched and why (`grep_unsearched`: rg skips them without a word).
    """
    limits, workspace = context.limits, context.workspace
    relative = path.relative_to(workspace.root).as_posix()
    where = ["--", "." if relative == "." else f"./{relative}"]
    chosen = [f"--glob={glob}"] if glob else []
    try:  # the walk rg will make, oversized files too (rg skips those without a word)
        walk = walk_for_grep(context, where, glob)
    except GrepNamesTimedOut:
        return _render_grep(shown, pattern, GrepTally(), _timeout_note(limits), context)
    tally = GrepTally(oversized=walk.oversized, walk_notes=walk.notes)
    if path.is_file() and tally.oversized:  # named, rg would read it all (no cap then)
        tally.has_stats = True
        return _render_grep(shown, pattern, tally, "", context)
    filters = [  # (after the model's glob: the later glob wins)
        f"--max-filesize={limits.max_read_file_bytes}",
        *chosen,
        *exclusion_globs(walk.listed, context.secrets),
        *(f"--glob=!/{literal_glob(folder)}" for folder in walk.state_folders),
    ]
    args = [
        *("--null", "--line-number", "--no-heading", "--with-filename", "--binary"),
        *("--stats", "--sort=path", "--encoding=auto", *filters),
        f"--regexp={pattern}",
        *where,
    ]
    run = RgRun()
    open_inside = workspace.held_root_opener()  # the root is checked once per call
    secret_files = SecretFiles(open_inside, limits.max_read_file_bytes, context.secrets)
    lines = run_rg(args, workspace, run, timeout=limits.search_timeout_seconds)
    for line in lines:
        _take_line(line.rstrip(b"\n"), limits, tally, secret_files)
        if tally.is_capped:
            break
    lines.close()
    if not tally.has_stats and not tally.is_capped and not run.timed_out:
        _refuse_what_rg_refused(glob, run.stderr, (pattern, glob or "", relative))
    tally.files_skipped += run.stderr.count("\nrg: ") + run.stderr.startswith("rg: ")
    tally.matches, tally.dropped = confirm_matches(
        tally.matches, open_inside, limits.max_read_file_bytes
    )
    note = _timeout_note(limits) if run.timed_out else ""
    return _render_grep(shown, pattern, tally, note, context)


def _take_line(line: bytes, limits: ToolLimits, tally: GrepTally, secrets: SecretFiles) -> None:
    """One line of rg's output: a match (`path NUL number:text`), a binary file that
    matched, or a line of the closing statistics. A line holding a secret counts for
    nothing, nor does a binary file holding one, nor a line that cannot be checked or
    reads otherwise now (`grep_secrets`): only a line shown clean here may be "left out"
    later, so that note says nothing about a secret either."""
    path, nul, rest = line.partition(b"\0")
    if nul:
        number, _, text = rest.partition(b":")
        relative = _relative(path)
        if not number.isdigit() or secrets.shown_line(relative, int(number)) != text:
            return  # a secret's line, one that cannot be checked, or one changed since
        if len(tally.matches) >= limits.grep_max_matches:
            tally.is_capped = True
            return
        tally.matches.append(Match(relative, int(number), text))
    elif binary := _BINARY_MATCH.search(line):
        if secrets.holds(_relative(binary.group(1))):
            return  # (counted or not, it would say whether the pattern matched)
        tally.files_skipped += 1
        tally.files_searched -= 1  # rg counts it as searched; we did not show it
    elif searched := _FILES_SEARCHED.match(line):
        tally.files_searched += int(searched.group(1))
        tally.has_stats = True


def _relative(path: bytes) -> str:
    return path.decode("utf-8", "surrogateescape").removeprefix("./")


def _refuse_what_rg_refused(glob: str | None, stderr: str, given: tuple[str, ...]) -> None:
    """rg printed no statistics: it did not search. Say why in plain words, in rg's own
    words for what is wrong, never in those that repeat what was `given` (`tools.echo`)."""
    reason = rg_refusal_reason(stderr, given)
    if "regex" in stderr:
        raise ToolError(f"The pattern is not a valid regular expression ({reason}). {REGEX_HELP}")
    if glob and "glob" in stderr:
        raise ToolError(f"The glob is not valid ({reason}). Use a pattern like '*.py'.")
    raise ToolError(f"The search could not run ({reason}).")


def _timeout_note(limits: ToolLimits) -> str:
    seconds = limits.search_timeout_seconds
    return f"[search stopped after {seconds:g} s; narrow the path, glob or pattern]"


def _render_grep(
    shown: str, pattern: str, tally: GrepTally, note: str, context: ToolContext
) -> ToolResult:
    """The answer: the matches (or none) under `shown`, a folder or file that exists; the
    pattern (used only to find a match on a long line again) is not repeated (module
    contract)."""
    count = len(tally.matches)
    files = len({match.path for match in tally.matches})
    where = f"under {shown}"
    notes = [*tally.walk_notes, *([note] if note else [])]
    if tally.dropped:
        notes.insert(
            0,
            f"[{count_noun(tally.dropped, 'match', 'matches')} left out: the file changed "
            "while it was searched]",
        )
    if count == 0:
        searched = count_noun(max(tally.files_searched, 0), "file")
        cap = format_size(context.limits.max_read_file_bytes)
        if tally.oversized and tally.files_searched <= 0 and not tally.files_skipped:
            over = count_noun(len(tally.oversized), "file")  # never "No matches" then
            header = f"Nothing was searched {where}: {over} over the {cap} cap."
        elif tally.oversized:  # never "No matches" about a file not searched (an attack)
            left = f"; {len(tally.oversized):,} over the {cap} cap not searched"
            header = f"No matches {where} ({searched} searched{left})."
        else:
            header = f"No matches {where} ({searched} searched)."
        return ToolResult(header, "\n".join(_skipped(tally) + notes), summary="no matches")
    if tally.is_capped:
        header = (
            f"First {count} matches {where} (stopped at the cap of {count}; "
            "narrow the pattern, path or glob to see the rest)"
        )
    else:
        header = f"{_count_matches(count, files)} {where}"
    limit, secrets = context.limits.grep_max_line_chars, context.secrets
    past = _matches_past(pattern, tally.matches, limit, context.limits.search_timeout_seconds)
    body = [
        _format_match(match, limit, secrets, past.get(index))
        for index, match in enumerate(tally.matches)
    ]
    body += _skipped(tally)
    summary = _count_matches(count, files, capped=tally.is_capped)
    return ToolResult(header, "\n".join(body + notes), summary=summary)


def _format_match(match: Match, limit: int, secrets: SecretForms, found: int | None) -> str:
    """`path:number: text` (no line a secret touches gets here: `grep_secrets`), a long
    line cut where no secret form or pointer is split (the result is redacted too): its
    head, or a window around the match `found` at that character when the head would not
    show it whole (`_matches_past`)."""
    text = _line_text(match)
    if found is None:
        text = cut_head(text, limit, secrets, " [...]")
    else:
        text = cut_around(text, found, limit, secrets)
    return f"{reveal_all(match.path)}:{match.number}: {text}"


def _line_text(match: Match) -> str:
    return match.text.decode("utf-8", "replace").rstrip("\r")


def _matches_past(pattern: str, matches: list[Match], limit: int, timeout: float) -> dict[int, int]:
    """Where the first match starts (a character index) on each line longer than `limit`
    whose match ends beyond it, by the index of its `Match`: a match at column 200,000 of
    a minified line must be shown (an outside attack). rg finds it again in the line as
    shown (`find_in_records`: linear time, bounded); a line where it cannot is cut at
    its head as before."""
    long = [(index, text) for index, m in enumerate(matches) if len(text := _line_text(m)) > limit]
    if not long:
        return {}
    found: dict[int, int] = {}
    try:
        run = RecordSearch()
        for hit in find_in_records(pattern, (text for _, text in long), run, timeout=timeout):
            encoded = hit.text.encode("utf-8")
            if len(encoded[: hit.end].decode("utf-8", "replace")) > limit:
                found[long[hit.index][0]] = len(encoded[: hit.start].decode("utf-8", "replace"))
    except ToolError:
        return {}
    return found


def _skipped(tally: GrepTally) -> list[str]:
    """The binary files that matched and the files rg could not read: said whether
    anything else matched or not."""
    return [f"[{tally.files_skipped} binary or unreadable files skipped]"] * (
        tally.files_skipped > 0
    )


def _count_matches(matches: int, files: int, *, capped: bool = False) -> str:
    """`1 match in 1 file`, `3+ matches in 2 files` (the + when the cap stopped the search)."""
    match_word = "match" if matches == 1 and not capped else "matches"
    file_word = "file" if files == 1 else "files"
    return f"{matches}{'+' if capped else ''} {match_word} in {files} {file_word}"
