"""How the offline model answers from tool results: one or two short sentences each.

Contract: `render_results_answer(results, questions)` turns the tool results that answer
the model's own calls into plain sentences: a file's line count and first heading (or
first line), a listing's size and first names, a search's match count and first match,
a command's exit code and first output line, and for an error the failing tool and the
first line of the error. Results follow the toolbox convention of a header line first
(naming the file, giving the exit code); content without one is read as plain text.
Pure and deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agent_cli.tools.output import count_noun

_QUOTE_LIMIT = 100
_NOTICE = re.compile(r"^\[.*\]$")
_LINE_NUMBER = re.compile(r"^\s*\d+(?:\t|: |\| |│ ?|→)")
_HEADING = re.compile(r"^#{1,6}\s+.*\w")  # "# ---" is a rule, not a heading
# Files where "#" starts a comment, not a Markdown heading.
_HASH_COMMENT_SUFFIXES = (
    ".py", ".sh", ".bash", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".rb", ".pl", ".r",
    ".conf", ".mk", ".dockerfile", ".env", ".gitignore",
)  # fmt: skip
_FENCE = re.compile(r"^\s*(```|~~~)")
_TOTAL_OF = re.compile(r"\bof\s+([\d,]+)\b")
_TOTAL_LINES = re.compile(r"\b([\d,]+)\s+lines?\b")
_TOTAL_ENTRIES = re.compile(
    r"\b([\d,]+)\s+(?:entries|entry|items?|files?|directories|directory)\b", re.IGNORECASE
)
_SIGNAL = re.compile(r"killed by signal (\d+)", re.IGNORECASE)
_TOTAL_MATCHES = re.compile(r"\b([\d,]+)\s+match(?:es|ing)?\b", re.IGNORECASE)
_GREP_MATCH = re.compile(r"^(.+?):(\d+):(.*)$")
_EXIT = re.compile(
    r"\bexit(?:ed)?(?:\s+with)?(?:\s+code|_code|\s+status)?\s*[:=]?\s*(-?\d+)", re.IGNORECASE
)
_OUTPUT_LABEL = re.compile(r"^[-=\s]*(?:stdout|stderr|output)[-=:\s]*$", re.IGNORECASE)
_POINTER = re.compile(
    r"artifact:[A-Za-z0-9][A-Za-z0-9._-]*:[A-Za-z0-9][A-Za-z0-9._-]*:[0-9a-f]{12,64}"
)


@dataclass(frozen=True)
class ToolResultView:
    """One tool_result joined with the call it answers (`tool` is "" when unknown)."""

    tool: str
    arguments: dict[str, Any]
    text: str
    is_error: bool


def render_results_answer(results: Sequence[ToolResultView], questions: Sequence[str]) -> str:
    """Sentences describing each result, one line per result, in call order."""
    asks_heading = any(re.search(r"heading|title", q, re.IGNORECASE) for q in questions)
    return "\n".join(describe_result(result, asks_heading) for result in results)


def describe_result(result: ToolResultView, asks_heading: bool = False) -> str:
    """One short description of `result`; errors always say the tool failed."""
    if result.is_error:
        return describe_error(result.tool, result.arguments, result.text)
    describers: dict[str, Callable[[dict[str, Any], str], str]] = {
        "read_file": lambda args, text: describe_read(args.get("path", ""), text, asks_heading),
        "list_dir": lambda args, text: describe_listing(args.get("path", "."), text),
        "grep": lambda args, text: describe_search(args.get("pattern", ""), text),
        "bash": lambda args, text: describe_command(args.get("command", ""), text),
        "write_file": lambda args, text: describe_write(args.get("path", ""), text),
        "edit_file": lambda args, text: describe_edit(args.get("path", ""), text),
        "read_artifact": lambda args, text: describe_artifact_part(text),
    }
    describer = describers.get(result.tool)
    sentence = (
        describer(result.arguments, result.text)
        if describer
        else describe_other(result.tool, result.text)
    )
    pointer = _POINTER.search(result.text)
    if pointer is None or result.tool == "read_artifact":
        return sentence
    return f"{sentence} The full output is saved as `{pointer.group(0)}`; ask me to read it."


def describe_read(path: str, text: str, asks_heading: bool = False) -> str:
    """'<path> has N lines. Its first heading is `# ...`.' (or its first line)."""
    lines = text.splitlines()
    header = lines[0] if lines and _names_path(lines[0], path) else None
    body = _strip_line_numbers([ln for ln in lines[1 if header else 0 :] if not _NOTICE.match(ln)])
    total = _count_in(header, _TOTAL_OF, _TOTAL_LINES)
    total = len(body) if total is None else total
    name = path or "The file"
    if total == 0 or not any(ln.strip() for ln in body):
        return f"{name} is empty." if total == 0 else f"{name} has {count_noun(total, 'line')}."
    heading = None if _uses_hash_comments(path) else find_first_heading(body)
    if heading is not None:
        return f"{name} has {count_noun(total, 'line')}. Its first heading is {_quote(heading)}."
    first = next(ln for ln in body if ln.strip())
    lead = "It has no Markdown heading; its first line is" if asks_heading else "Its first line is"
    return _sentence(f"{name} has {count_noun(total, 'line')}. {lead} {_quote(first)}")


def describe_listing(path: str, text: str) -> str:
    """'<dir> has N entries: `a`, `b`, `c` and 4 more.'"""
    lines = [ln for ln in text.splitlines() if ln.strip() and not _NOTICE.match(ln)]
    header = lines[0] if lines and _is_listing_header(lines[0]) else None
    entries = [_entry_name(ln) for ln in (lines[1:] if header else lines)]
    # "Directory: src (3 directories, 6 files)": the kinds add up to the entry count.
    counts = _TOTAL_ENTRIES.findall(header or "")
    total = sum(int(c.replace(",", "")) for c in counts) if counts else len(entries)
    name = "The current directory" if path in ("", ".", "./") else path
    if total == 0:
        return f"{name} is empty."
    shown = ", ".join(_quote(entry) for entry in entries[:5])
    more = f" and {total - min(5, len(entries))} more" if total > min(5, len(entries)) else ""
    return f"{name} has {count_noun(total, 'entry', 'entries')}: {shown}{more}."


def describe_search(pattern: str, text: str) -> str:
    """'`P` matched N lines; the first is in file:12: `...`.' or 'No matches for `P`.'"""
    lines = [ln for ln in text.splitlines() if ln.strip() and not _NOTICE.match(ln)]
    matches = [m for m in (_GREP_MATCH.match(ln) for ln in lines) if m]
    other = [ln for ln in lines if not _GREP_MATCH.match(ln)]
    total = _count_in(other[0] if other else None, _TOTAL_MATCHES)
    if not matches:
        if not lines or total == 0 or any("no match" in ln.lower() for ln in lines):
            return f"No matches for {_quote(pattern)}."
        return _sentence(
            f"The search for {_quote(pattern)} returned {count_noun(len(lines), 'line')}; "
            f"the first is {_quote(lines[0])}"
        )
    total = len(matches) if total is None else total
    first = matches[0]
    return _sentence(
        f"{_quote(pattern)} matched {count_noun(total, 'line')}; the first is in "
        f"{first.group(1)}:{first.group(2)}: {_quote(first.group(3).strip())}"
    )


def describe_command(command: str, text: str) -> str:
    """'`CMD` exited with code 0; its first output line is `...`.'"""
    lines = text.splitlines()
    signal = _SIGNAL.search(lines[0]) if lines else None
    found = next(((i, m) for i, m in enumerate(map(_EXIT.search, lines)) if m), None)
    if signal:
        found = (0, signal)
    exit_index = found[0] if found else -1
    output = [
        ln
        for i, ln in enumerate(lines)
        if i != exit_index and ln.strip() and not _NOTICE.match(ln) and not _OUTPUT_LABEL.match(ln)
    ]
    if signal:
        done = f"was killed by signal {signal.group(1)}"
    else:
        done = f"exited with code {found[1].group(1)}" if found else "finished"
    if not output:
        return f"{_quote(command)} {done} and printed nothing."
    return _sentence(f"{_quote(command)} {done}; its first output line is {_quote(output[0])}")


def describe_write(path: str, text: str) -> str:
    """'<path> was written: `<first line of the result>`'."""
    first = _first_line(text)
    return _sentence(f"{path or 'The file'} was written" + (f": {_quote(first)}" if first else ""))


_BYTE_RANGE = re.compile(r"\(bytes (\d+)-(\d+)\)")
_CONTINUE_AT = re.compile(r"continue with offset=(\d+)")


def describe_artifact_part(text: str) -> str:
    """'Bytes 0-16383 of the stored output start with `...`; more follows from 16384.'"""
    lines = text.splitlines()
    span = _BYTE_RANGE.search(lines[0]) if lines else None
    body = [ln for ln in lines[1:] if ln.strip() and not _NOTICE.match(ln)]
    if span:
        where, verb, empty = (
            f"Bytes {span.group(1)}-{span.group(2)} of the stored output",
            "start",
            "are",
        )
    else:
        where, verb, empty = "The stored output", "starts", "is"
    first = f" {verb} with {_quote(body[0])}" if body else f" {empty} empty"
    more = _CONTINUE_AT.search(text)
    rest = f"; more follows from byte {more.group(1)}" if more else "; that is the end of it"
    return _sentence(where + first + rest)


def describe_edit(path: str, text: str) -> str:
    """'<path> was edited: `<first line of the result>`'."""
    first = _first_line(text)
    return _sentence(f"{path or 'The file'} was edited" + (f": {_quote(first)}" if first else ""))


def describe_error(tool: str, arguments: dict[str, Any], text: str) -> str:
    """'read_file on `x` failed: `<first line of the error>`.'"""
    target = next(
        (str(arguments[key]) for key in ("path", "pattern", "command") if key in arguments), ""
    )
    subject = f"{tool or 'The tool'} on {_quote(target)}" if target else (tool or "The tool")
    first = _first_line(text)
    return (
        _sentence(f"{subject} failed: {_quote(first)}")
        if first
        else (f"{subject} failed without a message.")
    )


def describe_other(tool: str, text: str) -> str:
    """A tool the offline model has no special words for: size and first line."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return f"{tool or 'The tool'} returned nothing."
    return _sentence(
        f"{tool or 'The tool'} returned {count_noun(len(lines), 'line')}; the first is "
        f"{_quote(lines[0])}"
    )


def find_first_heading(lines: Sequence[str]) -> str | None:
    """The first Markdown ATX heading outside fenced code blocks, or None."""
    in_fence = False
    for line in lines:
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and _HEADING.match(line):
            return line.strip()
    return None


def _strip_line_numbers(lines: list[str]) -> list[str]:
    """Drop `cat -n` style prefixes when most lines carry one."""
    filled = [ln for ln in lines if ln.strip()]
    numbered = sum(1 for ln in filled if _LINE_NUMBER.match(ln))
    if not filled or numbered * 2 < len(filled):
        return lines
    return [_LINE_NUMBER.sub("", ln, count=1) for ln in lines]


def _names_path(line: str, path: str) -> bool:
    base = path.rstrip("/").rsplit("/", 1)[-1]
    return bool(base) and base in line and not _HEADING.match(line)


def _is_listing_header(line: str) -> bool:
    return (
        line.rstrip().endswith(":")
        or bool(_TOTAL_ENTRIES.search(line))
        or ("director" in line.lower())
    )


def _entry_name(line: str) -> str:
    name = re.sub(r"^\s*(?:[-*]\s+)?", "", line)
    return re.split(r"\t| {2,}", name, maxsplit=1)[0].strip()


def _count_in(line: str | None, *patterns: re.Pattern[str]) -> int | None:
    for pattern in patterns:
        match = pattern.search(line) if line else None
        if match:
            return int(match.group(1).replace(",", ""))
    return None


def _first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")


def _sentence(text: str) -> str:
    """`text` ended with one full stop: none added after a quote that already ends a
    sentence (`...list_dir.` rather than `...list_dir.`.)."""
    if text.endswith(("`.", "`!", "`?")) or re.search(r"[.!?]`$", text) or text.endswith("."):
        return text
    return text + "."


def _uses_hash_comments(path: str) -> bool:
    name = path.lower().rsplit("/", 1)[-1]
    return name.endswith(_HASH_COMMENT_SUFFIXES) or name in ("makefile", "dockerfile")


def quote_code(text: str, limit: int = _QUOTE_LIMIT) -> str:
    """`text` as inline code on one line, cut at `limit` characters (public for the
    offline model's lead sentences)."""
    return _quote(text, limit)


def _quote(text: str, limit: int = _QUOTE_LIMIT) -> str:
    """`text` as inline code on one line, cut at `limit` characters."""
    flat = " ".join(text.split()).replace("`", "'")
    return f"`{flat if len(flat) <= limit else flat[: limit - 1] + '…'}`"
