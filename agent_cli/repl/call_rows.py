"""The top of a tool panel: the tool and every argument of its call, as it runs them.

Why: with `--yes` (and an "always" answer for a read) no question is asked, and this is
the only record of a call. It once showed three "telling" arguments, each clipped to one
row: a command after 90 spaces showed as blanks, `echo x…` never showed its `; touch`,
and an MCP call's `command: rm -rf important`, `script: …` or nested `steps` were never
drawn (the twenty-third outside tester).

Contract: `build_call_rows(name, arguments, width, styled)` draws:
- every argument, none left out: those that tell what a call does first
  (`TELLING_ARGUMENTS`, in that order), then the rest in the call's order; the body of a
  built-in write or edit (`BODY_ARGUMENTS`) as its size, its approval showing the change;
- each value as its approval writes it. A command (`MULTI_LINE_ARGUMENTS`) line by line
  as the approval's body (`approval_lines.style_line`): controls, zero-width and bidi
  characters written out, a tab drawn `→`, a run of spaces and tabs 32 columns wide or
  more counted (`⟨90 spaces⟩`), look-alikes marked. Any other string on one line with
  every control written out (`^J`, `^I`, `<U+200B>`), a run of 32 or more spaces counted
  the same way; a number, `true` or `null` as JSON; a nested value as compact JSON;
- never only the head of a value: one longer than `VALUE_LIMIT` characters keeps its
  first `VALUE_HEAD` and last `VALUE_TAIL`, the middle counted (`⟨N characters not
  shown⟩`), and a command that takes more than `MAX_COMMAND_ROWS` rows keeps its first
  and last rows around one row that counts the characters and lines left out;
- rows of `width` cells (`PIPE_WIDTH` where there is no screen: a pipe, a log). The top
  row holds the name and the arguments that fit whole after it. From the first one that
  does not, each argument starts a row of its own (`│   name: value`; the first may
  start on the top row when there is room), and a value goes on over rows marked
  `│ ┆ ` where its cells run out (`approval_view.fold_rows`), a command's further lines
  on rows `│   `. Nothing a value holds can start a row where the panel's marks are.
`styled`: whether the console draws styles; where it does not, look-alikes are written
out (`<U+0456>`) instead of marked. Pure.
"""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Any

from rich.text import Text

from agent_cli.combining_marks import written_out_marks
from agent_cli.lookalikes import lookalike_positions
from agent_cli.repl.approval_lines import (
    CONTROL_STYLE,
    NO_POSITIONS,
    NOTE_STYLE,
    SPACE_RUN_MIN_COLUMNS,
    mark_lookalike_letters,
    style_line,
    write_out_lookalike_letters,
    write_out_marks,
)
from agent_cli.repl.approval_view import fold_rows
from agent_cli.repl.safe_text import clip_middle
from agent_cli.safe_cuts import POINTER_SPAN, safe_head_end, safe_tail_start
from agent_cli.tools.approval import ApprovalKind
from agent_cli.tools.file_tools import count_text_lines
from agent_cli.tools.output import count_noun
from agent_cli.written_out import revealed_pieces

# Arguments that tell what a call does, shown first, in this order.
TELLING_ARGUMENTS = (
    "path",
    "file_path",
    "pattern",
    "glob",
    "command",
    "query",
    "pointer",
    "directory",
    "offset",
    "limit",
)
MULTI_LINE_ARGUMENTS = ("command",)  # drawn line by line; every other value on one line
# The bodies of the built-in writes, shown as their size: their approval shows the change
# with the session's secrets hidden (a diff), and the panel above it must not show them
# whole (a 2 MB body also held the panel 1.5-2.4 s before it drew).
BODY_ARGUMENTS = {"write_file": ("content",), "edit_file": ("old_string", "new_string")}
VALUE_LIMIT, VALUE_HEAD, VALUE_TAIL = 400, 240, 120  # characters of a value other than a command
MAX_COMMAND_ROWS = 12  # rows a command takes at most, its counted middle included
PIPE_WIDTH = 160  # cells of a row where there is no screen to fit (a pipe, a log)
MIN_START_ROOM = 20  # cells a value needs after its name to start on the top row
TOP = "╭─ "
NEW_LINE, GOES_ON = "│   ", "│ ┆ "  # a command's next line; a row a value goes on over


@dataclass(frozen=True)
class _Row:
    """One drawn row of a value: of which of its lines (0-based), and `goes_on` when it
    continues the row above (a fold)."""

    text: Text
    line: int
    goes_on: bool


def build_call_rows(
    name: str, arguments: dict[str, Any], width: int | None, *, styled: bool = True
) -> Text:
    """The panel's top for a call of `name` with `arguments` (see the module contract)."""
    room = PIPE_WIDTH if width is None else max(width, 30)
    top = Text()  # (no base style: it would dim every value)
    top.append(TOP, style="dim")
    top.append_text(_own_words(clip_middle(revealed_pieces(name), 40), "bold magenta", styled))
    top.truncate(room, overflow="ellipsis")  # (a name of wide characters)
    rows, current, overflowed = [], top, False
    for argument in ordered_arguments(arguments):
        label = _own_words(clip_middle(revealed_pieces(argument), 24), "dim", styled)
        label.truncate(max(room // 2 - 2, 1), overflow="ellipsis")  # the name, not its ": "
        label.append(": ", style="dim")
        lines = value_lines(argument, arguments[argument], styled, summarized=_bodies(name))
        needed = current.cell_len + 2 + label.cell_len + lines[-1].cell_len
        if not overflowed and len(lines) == 1 and needed <= room:
            current.append("  ")
            current.append_text(label)
            current.append_text(lines[0])
            continue
        if overflowed or room - current.cell_len - 2 - label.cell_len < MIN_START_ROOM:
            rows.append(current)
            current = _gutter(NEW_LINE)
        else:
            current.append("  ")
        overflowed = True
        current.append_text(label)
        value_rows = _bounded(_fold(lines, room - current.cell_len, room - len(NEW_LINE)))
        current.append_text(value_rows[0].text)
        for row in value_rows[1:]:
            rows.append(current)
            current = _gutter(GOES_ON if row.goes_on else NEW_LINE)
            current.append_text(row.text)
    rows.append(current)
    return Text("\n").join(rows)


def ordered_arguments(arguments: dict[str, Any]) -> list[str]:
    """The argument names in the order the panel lists them: telling ones first."""
    telling = [name for name in TELLING_ARGUMENTS if name in arguments]
    return telling + [name for name in arguments if name not in TELLING_ARGUMENTS]


def _bodies(tool: str) -> tuple[str, ...]:
    return BODY_ARGUMENTS.get(tool, ())


def value_lines(
    argument: str, value: Any, styled: bool = True, summarized: tuple[str, ...] = ()
) -> list[Text]:
    """`value` drawn as the panel draws it: a command's lines (split at line feeds only,
    blank lines at its ends dropped, as the shell and the approval split them), a body
    among `summarized` as its size, or one line for any other value, bounded
    (`VALUE_LIMIT`)."""
    if argument in summarized and isinstance(value, str):
        counted = count_noun(count_text_lines(value), "line")
        size = f"{count_noun(len(value), 'character')}, {counted}"
        return [Text(f"⟨{size}⟩", style=NOTE_STYLE)]
    if argument in MULTI_LINE_ARGUMENTS and isinstance(value, str):
        lines = value.strip("\n").split("\n")
        return [_command_line(line, styled) for line in lines]
    text = value if isinstance(value, str) else _compact_json(value)
    return [_one_line(text, styled)]


def _compact_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)


def _command_line(line: str, styled: bool) -> Text:
    """One line of a command as its approval draws it; where no style is drawn, its
    look-alikes written out."""
    written = NO_POSITIONS if styled or line.isascii() else _lookalikes(line)
    return style_line(line, ApprovalKind.COMMAND, written)


def _lookalikes(line: str) -> frozenset[int]:
    return frozenset(lookalike_positions(line, in_command=True))


def _one_line(value: str, styled: bool) -> Text:
    """A value other than a command on one line: every control written out, a run of
    `SPACE_RUN_MIN_COLUMNS` or more spaces counted, stray combining marks written out
    and look-alikes marked as a command's (written out where no style is drawn); past
    `VALUE_LIMIT` characters its head and tail (`_head_and_tail`)."""
    pieces = revealed_pieces(value)
    lookalikes = NO_POSITIONS if value.isascii() else _lookalikes(value)
    if not value.isascii():
        written = written_out_marks(value, in_command=True) | (
            NO_POSITIONS if styled else lookalikes
        )
        for at in written:
            pieces[at] = f"<U+{ord(value[at]):04X}>"
    text, starts, start = Text(), [], 0
    while start < len(pieces):
        starts.append(len(text))
        end = start
        while end < len(pieces) and pieces[end] == " ":
            end += 1
        if end - start >= SPACE_RUN_MIN_COLUMNS:
            text.append(f"⟨{count_noun(end - start, 'space')}⟩", style=NOTE_STYLE)
        elif end > start:
            text.append(" " * (end - start))
        else:
            marked = pieces[start] != value[start] or start in lookalikes
            text.append(pieces[start], style=CONTROL_STYLE if marked else "")
            end = start + 1
        start = end
    return _head_and_tail(text, starts)


def _head_and_tail(text: Text, starts: list[int]) -> Text:
    """`text` whole up to `VALUE_LIMIT` characters, else about its first `VALUE_HEAD`
    and last `VALUE_TAIL` with the middle counted, cut only where a piece starts
    (`starts`: never inside a written-out code or a counted run) and never inside a
    pointer (`safe_cuts`)."""
    plain = text.plain
    if len(plain) <= VALUE_LIMIT:
        return text
    head_end = safe_head_end(plain, VALUE_HEAD)
    head_end = starts[bisect_right(starts, head_end) - 1]
    tail_start = safe_tail_start(plain, len(plain) - VALUE_TAIL)
    at = bisect_left(starts, tail_start)
    tail_start = starts[at] if at < len(starts) else len(plain)
    if tail_start <= head_end:
        return text
    shown = text[:head_end]
    shown.append(f" ⟨{tail_start - head_end:,} characters not shown⟩ ", style=NOTE_STYLE)
    shown.append_text(text[tail_start:])
    return shown


def _fold(lines: list[Text], first_room: int, room: int) -> list[_Row]:
    """The rows `lines` take: the first row `first_room` cells wide, every other `room`,
    each fold marked; a line that is one pointer and nothing else (no longer than
    `VALUE_LIMIT`) is one row, not cut, so it stays usable (the console wraps it). A line
    that holds a pointer among other text is folded like any other: left whole, the
    console wrapped it at its spaces onto rows of its own text, where a command could draw
    a panel's end of its own (`╰─ ✓ exit 0`) at column 0."""
    rows: list[_Row] = []
    for index, line in enumerate(lines):
        if len(line) <= VALUE_LIMIT and POINTER_SPAN.fullmatch(line.plain):
            rows.append(_Row(line, index, goes_on=False))
            continue
        first_width = max(first_room if index == 0 else room, 1)
        folded = fold_rows(line, max(room, 1), first_width)
        rows += [_Row(row, index, goes_on=at > 0) for at, row in enumerate(folded)]
    return rows


def _bounded(rows: list[_Row]) -> list[_Row]:
    """`rows` when there are at most `MAX_COMMAND_ROWS`, else the first and last ones
    with a row between that counts the characters left out (and, for a command of
    several lines, the lines they are on)."""
    if len(rows) <= MAX_COMMAND_ROWS:
        return rows
    head_count = (MAX_COMMAND_ROWS - 1) // 2
    tail_start = len(rows) - (MAX_COMMAND_ROWS - 1 - head_count)
    hidden = rows[head_count:tail_start]
    note = f"⋮ {count_noun(sum(len(row.text) for row in hidden), 'character')} not shown"
    first, last = hidden[0].line + 1, hidden[-1].line + 1
    if rows[-1].line:
        note += f" (line {first:,})" if first == last else f" (lines {first:,}-{last:,})"
    note_row = _Row(Text(note, style=NOTE_STYLE), first - 1, goes_on=False)
    return [*rows[:head_count], note_row, *rows[tail_start:]]


def _own_words(words: str, style: str, styled: bool) -> Text:
    """A name the panel draws (the tool's, an argument's) as the approval's header draws
    it: stray combining marks written out, look-alikes marked, or written out where no
    style is drawn."""
    text = Text()
    text.append(words, style=style)
    text = write_out_marks(text)
    return mark_lookalike_letters(text) if styled else write_out_lookalike_letters(text)


def _gutter(mark: str) -> Text:
    row = Text()
    row.append(mark, style="dim")
    return row
