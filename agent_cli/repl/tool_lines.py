"""Tool calls as a compact panel: what runs, then how it went.

Contract: `build_tool_started_line` draws the top of the panel when a tool starts (so a
long command is visible while it runs): the tool and every argument of the call, as its
approval writes them, whole up to a bound and never only their head (`call_rows`); with
`--yes` this panel is the only record of what a call did. `build_tool_finished_line`
closes it with the outcome summary (a command that exited non-zero is marked apart from
a success), the size and the artifact pointer; `tool_preview` draws the lines between
the two.
"""

from __future__ import annotations

import re

from rich.cells import chop_cells
from rich.text import Text

from agent_cli.events import ToolFinished, ToolStarted
from agent_cli.repl.call_rows import build_call_rows
from agent_cli.repl.error_text import describe_error
from agent_cli.repl.pointer_forms import shorten_artifact_pointer, show_pointer
from agent_cli.repl.safe_text import FAKE_COMPACT_MARK, clip_line, is_fake_compact_line
from agent_cli.repl.word_wrap import find_row_spans
from agent_cli.safe_cuts import POINTER_SPAN
from agent_cli.tools.output import format_size

BOTTOM, SIDE = "╰─ ", "│ "
ERROR_WIDTH = 400
INTERRUPTED_WORDS = "interrupted by Ctrl-C; the output so far is kept"
FULL_OUTPUT_AT = " · full output: "
_SIZE_IN_SUMMARY = re.compile(r"\b\d+(?:\.\d+)? (?:B|KB|MB)\b")
# A command's summary when it ended with a non-zero exit code or a signal (`tools.shell`):
# not an error for the model (it reads the code), but no success to show either.
_NONZERO_EXIT = re.compile(r"^(?:exit -?[1-9]\d*|signal \d+),")
COMMAND_TOOL = "bash"
# How a call ended, as the closing line marks it: (mark, style).
OUTCOME_MARKS = {
    "ok": ("✓ ", "green"),
    "failed": ("✗ ", "red"),
    "nonzero": ("✗ ", "yellow"),
}


def build_tool_started_line(
    event: ToolStarted, width: int | None = None, *, styled: bool = True
) -> Text:
    """The panel's top: the tool and every argument of its call, on rows of `width`
    cells (see `call_rows`). `styled`: whether the console draws styles; where it does
    not, look-alikes are written out instead of marked."""
    return build_call_rows(event.name, event.arguments, width, styled=styled)


def build_tool_finished_line(
    event: ToolFinished, width: int | None = None, handle_label: str = ""
) -> Text:
    """The panel's bottom: outcome, size and where the whole output is: where the REPL
    numbers pointers, the pointer as a person reads it (`show_pointer`) followed by
    `handle_label`, the short way to expand it; elsewhere (`-p`, a pipe) the shortest
    pointer that still resolves.
    With `width`, a line that would not fit gives the pointer's place to its short way
    (`/expand N` from `handle_label`; `/last` where there is none, which shows the last
    output only), then leaves out the size, then the words "full output:", then clips its words, so it stays one row inside
    the frame; a failure's words are wrapped instead, onto as many rows as they need."""
    words = _outcome_words(event) or ("failed" if event.is_error else "done")
    if event.interrupted:
        words = INTERRUPTED_WORDS
    size = ""
    if not event.is_error and not _SIZE_IN_SUMMARY.search(event.summary):
        size = f" · {format_size(event.size_bytes)} of output"
    pointer = ""
    if event.artifact_pointer and handle_label:
        pointer = clip_line(show_pointer(event.artifact_pointer), 200)
    elif event.artifact_pointer:
        pointer = clip_line(shorten_artifact_pointer(event.artifact_pointer), 200)
    outcome = classify_outcome(event)
    line = _assemble_finished(outcome, words, size, pointer, handle_label)
    if width is None or line.cell_len <= width:
        return line
    pointer = _short_way_to(handle_label) if pointer else ""
    for shown_size, at in ((size, FULL_OUTPUT_AT), ("", FULL_OUTPUT_AT), ("", " · ")):
        line = _assemble_finished(outcome, words, shown_size, pointer, at=at)
        if line.cell_len <= width:
            return line
    if outcome == "failed":  # what went wrong and what to do: every word of it
        return _wrapped_failure(words, pointer, width)
    room = width - len(BOTTOM) - 2 - (len(FULL_OUTPUT_AT) + len(pointer) if pointer else 0)
    line = _assemble_finished(outcome, clip_line(words, max(room, 10)), "", pointer)
    return fit_row(line, width)


def _wrapped_failure(words: str, pointer: str, width: int) -> Text:
    """A failure's bottom line on as many rows as its words need, each inside `width`
    cells and indented under the first, broken at spaces and a word wider than a row
    chopped (a clipped failure hid its advice: "Include more surrounding lines to make
    it…")."""
    indent = " " * (len(BOTTOM) + 2)
    room = max(width - len(indent), 1)
    rows = [
        piece
        for start, end in find_row_spans(words, room)
        for piece in chop_cells(words[start:end].strip(), room) or [""]
    ]
    text = _assemble_finished("failed", rows[0], "", "")
    for row in rows[1:]:  # (a row posing as a `[compact]` line is marked inside the indent)
        fake = is_fake_compact_line(row)
        text.append(
            "\n" + (indent[: -len(FAKE_COMPACT_MARK)] + FAKE_COMPACT_MARK if fake else indent)
        )
        text.append(row, style=OUTCOME_MARKS["failed"][1])
    if pointer:
        text.append(f"\n{indent}full output: ", style="dim")
        text.append(pointer, style="cyan")
    return text


def classify_outcome(event: ToolFinished) -> str:
    """A key of `OUTCOME_MARKS`: "failed" for an error result, "nonzero" for a command
    that ran but exited non-zero or was killed by a signal, else "ok"."""
    if event.is_error:
        return "failed"
    if event.name == COMMAND_TOOL and _NONZERO_EXIT.match(event.summary):
        return "nonzero"
    return "ok"


def fit_row(row: Text, width: int | None) -> Text:
    """`row` cut to `width` cells with an ellipsis: the last guard for text whose
    characters are wider than one cell (the clipping above counts characters). A row
    with a pointer in it is left whole (a pointer must stay usable): printed at words,
    the pointer goes to a row of its own."""
    if width is not None and row.cell_len > width and not POINTER_SPAN.search(row.plain):
        row.truncate(max(width, 1), overflow="ellipsis")
    return row


def _short_way_to(handle_label: str) -> str:
    """What a line too narrow for the pointer shows in its place: the command of its
    number (`(/expand 3)` -> `/expand 3`), which stays right after later tools ran, or
    `/last` when it has none."""
    command = handle_label.strip().removeprefix("(").removesuffix(")")
    return command if command.startswith("/") else "/last"


def _assemble_finished(
    outcome: str,
    words: str,
    size: str,
    pointer: str,
    handle_label: str = "",
    at: str = FULL_OUTPUT_AT,
) -> Text:
    text = Text(BOTTOM, style="dim")
    mark, style = OUTCOME_MARKS[outcome]
    text.append(mark, style=style)
    text.append(words, style="" if outcome == "ok" else style)
    text.append(size, style="dim")
    if pointer:
        text.append(at, style="dim")
        text.append(pointer, style="cyan")
    if pointer and handle_label:
        text.append(f" {handle_label}", style="dim")
    return text


def _outcome_words(event: ToolFinished) -> str:
    """The summary; for a failure, the whole first line of the message (the summary is
    cut short for logs, and a person should read all of what went wrong), or the user's
    own words for its typed cause (`ToolFinished.cause`: the model's speak of "the user")."""
    if event.is_error and event.cause is not None:
        return clip_line(describe_error(event.cause), ERROR_WIDTH * 2)
    if event.is_error and event.output.strip():
        return clip_line(event.output.strip().split("\n", 1)[0], ERROR_WIDTH)
    return clip_line(event.summary, 160)


# When a Ctrl-C that ended the turn came, by its notice code, if before the tool started
NOT_STARTED_WHEN = {
    "permission_cancelled": "at the permission question",
    "tool_not_started": "before it started",  # while its call was prepared
}


def build_tool_unfinished_line(*, never_ran: str = "") -> Text:
    """Closes the panel of a tool whose turn ended before it reported (e.g. Ctrl-C);
    `never_ran`, the notice code of a Ctrl-C before the tool started (`NOT_STARTED_WHEN`),
    which also ended the turn (the line says so: it is the only line that
    Ctrl-C prints)."""
    text = Text(BOTTOM, style="dim")
    if never_ran:
        text.append(
            f"✗ not run: cancelled {NOT_STARTED_WHEN[never_ran]}; the turn ended, the "
            "conversation so far is kept",
            style="yellow",
        )
    else:
        text.append("✗ interrupted: no result was shown", style="red")
    return text
