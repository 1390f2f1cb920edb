"""The lines of an approval, numbered from either end, without touching the middle.

Contract: `numbered_from_start(raw_lines, kind)` yields `NumberedLine`s in order, and
`numbered_from_end` the same lines last first; both number each line by its position,
except that a run of `BLANK_RUN_MIN` or more blank lines becomes one counted line. Blank
runs are maximal runs of lines of the same blank kind (in a diff, the same +/-/space
marker with nothing after it), so both directions find the same runs, and a view can
take its head from one and its tail from the other. Both are lazy: a view of a
200,000-line write numbers the few dozen lines it shows, not every line (numbering them
all took about half a second before the question appeared).
`style_line` draws one line: controls written out, look-alikes of ASCII characters
marked (`lookalikes`), stray combining marks (`combining_marks`) and the positions the
view asks for (a same-looking change, `same_looking_lines`) written out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property

from rich.cells import cell_len
from rich.text import Text

from agent_cli.combining_marks import written_out_marks
from agent_cli.lookalikes import lookalike_positions, may_be_marked
from agent_cli.repl.safe_text import TAB_SIZE
from agent_cli.tools.approval import ApprovalKind
from agent_cli.tools.output import count_noun
from agent_cli.written_out import reveal_controls, revealed_pieces

BLANK_RUN_MIN = 3
NOTE_STYLE = "bold magenta"
CONTROL_STYLE = "reverse magenta"
DIFF_STYLES = {"+": "green", "-": "red", "@": "cyan"}
SPACE_RUN_MIN_COLUMNS = 32
TAB_STYLE = "dim"
NO_POSITIONS: frozenset[int] = frozenset()
TRAILING_SPACE = "·"  # a space drawn where a blank one could not be told from none
_BLANK_RUN = re.compile(r"[ \t]+")
_NOT_BLANK = None


@dataclass
class NumberedLine:
    """One shown line: the raw lines it stands for (`first`..`last`, 0-based; -1 for a
    note that stands for none) and its text, styled only when asked for; `written`, the
    positions in `raw` of further characters to write out (`style_line`)."""

    first: int
    last: int
    raw: str
    kind: ApprovalKind
    note: Text | None = None
    written: frozenset[int] = NO_POSITIONS
    drawn: frozenset[int] = NO_POSITIONS  # inside a secret: drawn as they are, none written out

    @property
    def label(self) -> str:
        if self.first < 0:
            return ""
        if self.first == self.last:
            return str(self.first + 1)
        return f"{self.first + 1}-{self.last + 1}"

    @cached_property
    def text(self) -> Text:
        if self.note is not None:
            return self.note
        return style_line(self.raw, self.kind, self.written, self.drawn)


# Per line (by index), positions: of characters to write out besides those every line
# writes out (`written_at`: `same_looking_lines`, a change that draws the same), or of a
# secret's characters, drawn as they are (`drawn_at`).
WrittenAt = Mapping[int, frozenset[int]]


def numbered_from_start(
    raw_lines: list[str],
    kind: ApprovalKind,
    start: int = 0,
    written_at: WrittenAt | None = None,
    drawn_at: WrittenAt | None = None,
) -> Iterator[NumberedLine]:
    """From line `start` on, which must be the first line of a shown line (0, or one past
    the `last` of a line this yielded): a page goes on where the one before it ended."""
    index = start
    while index < len(raw_lines):
        end = _run_end(raw_lines, index, kind, step=1)
        yield _numbered(raw_lines, index, end - 1, kind, written_at, drawn_at)
        index = end


def numbered_from_end(
    raw_lines: list[str],
    kind: ApprovalKind,
    written_at: WrittenAt | None = None,
    drawn_at: WrittenAt | None = None,
) -> Iterator[NumberedLine]:
    index = len(raw_lines) - 1
    while index >= 0:
        start = _run_end(raw_lines, index, kind, step=-1)
        yield _numbered(raw_lines, start + 1, index, kind, written_at, drawn_at)
        index = start


def number_lines(raw_lines: list[str], kind: ApprovalKind) -> list[NumberedLine]:
    """Every line, numbered (blank runs counted): for a view that shows them all."""
    return list(numbered_from_start(raw_lines, kind))


def _numbered(
    raw_lines: list[str],
    first: int,
    last: int,
    kind: ApprovalKind,
    written_at: WrittenAt | None,
    drawn_at: WrittenAt | None = None,
) -> NumberedLine:
    if last - first + 1 < BLANK_RUN_MIN:
        written = written_at.get(first, NO_POSITIONS) if written_at else NO_POSITIONS
        drawn = drawn_at.get(first, NO_POSITIONS) if drawn_at else NO_POSITIONS
        return NumberedLine(first, first, raw_lines[first], kind, written=written, drawn=drawn)
    marker = raw_lines[first][:1] if kind is ApprovalKind.DIFF else ""
    note = Text(marker, style=DIFF_STYLES.get(marker, ""))
    note.append(f"⋮ {last - first + 1} blank lines", style=NOTE_STYLE)
    return NumberedLine(first, last, "", kind, note)


def _run_end(raw_lines: list[str], start: int, kind: ApprovalKind, step: int) -> int:
    """Past the end (in direction `step`) of the blank run at `start`; one step from
    `start` when the line there is not blank or the run is too short to count."""
    blank_kind = _blank_kind(raw_lines[start], kind)
    end = start + step
    if blank_kind is _NOT_BLANK:
        return end
    while 0 <= end < len(raw_lines) and _blank_kind(raw_lines[end], kind) == blank_kind:
        end += step
    return end if abs(end - start) >= BLANK_RUN_MIN else start + step


def _blank_kind(line: str, kind: ApprovalKind) -> str | None:
    """The marker a blank line keeps ("" outside a diff), or None for a line with text.
    In a diff an empty line (no marker at all) is never blank: it is not diff output."""
    if kind is not ApprovalKind.DIFF:
        return "" if is_blank_line(line) else _NOT_BLANK
    if not line or not is_blank_line(line[1:]):
        return _NOT_BLANK
    return line[:1]


def style_line(
    line: str,
    kind: ApprovalKind,
    written: frozenset[int] = NO_POSITIONS,
    drawn: frozenset[int] = NO_POSITIONS,
) -> Text:
    """One line with controls made visible and tabs drawn, diff-coloured; see
    `_append_blanks` for runs of spaces and tabs. Spaces that end a line are drawn as
    `TRAILING_SPACE` (a diff's marker column aside): `echo \\ ` and `echo \\` differ
    to bash, so they must differ on screen. Look-alikes of ASCII characters are marked
    (`lookalikes`, strictest in a command); stray combining marks (`combining_marks`)
    and the characters at `written` are written out as controls are (`<U+0301>`), but
    none at `drawn` (a secret's characters: its shown form must stay one the view's cuts
    know, `approval_view.forms_as_shown`)."""
    style, start = "", 0
    if kind is ApprovalKind.DIFF:
        style = "bold" if line.startswith(("+++", "---")) else DIFF_STYLES.get(line[:1], "")
        start = 1 if line[:1] in (" ", "+", "-") and style != "bold" else 0
    marks = _line_marks(line, start, kind, written, drawn)
    text = Text(line[:start], style=style)
    column = position = start
    for run in _BLANK_RUN.finditer(line, start):
        column = _append_revealed(text, line, position, run.start(), column, marks)
        column = _append_blanks(text, run.group(), column, run.end() == len(line))
        position = run.end()
    _append_revealed(text, line, position, len(line), column, marks)
    return text


@dataclass(frozen=True)
class _LineMarks:
    """Positions in a line: characters to mark (`lookalike`), characters to write out."""

    lookalike: frozenset[int] = NO_POSITIONS
    written: frozenset[int] = NO_POSITIONS

    def touch(self, start: int, end: int) -> bool:
        """Whether any position from `start` to before `end` is marked or written out
        (a look-up per character: a long line of many words and marks stays linear)."""
        if not self.lookalike and not self.written:
            return False
        return any(at in self.lookalike or at in self.written for at in range(start, end))


def _line_marks(
    line: str, start: int, kind: ApprovalKind, written: frozenset[int], drawn: frozenset[int]
) -> _LineMarks:
    """The marks of `line` from `start` on (a diff's sign column aside)."""
    if line.isascii():
        return _LineMarks()
    in_command = kind is ApprovalKind.COMMAND
    body = line[start:]
    lookalike = {start + at for at in lookalike_positions(body, in_command=in_command)}
    marks = {start + at for at in written_out_marks(body, in_command=in_command)}
    return _LineMarks(frozenset(lookalike), (frozenset(marks) | written) - drawn)


def is_blank_line(line: str) -> bool:
    """True for a line of nothing but spaces and tabs (any other character, a
    no-break space or a control, is shown)."""
    return not line.strip(" \t")


def _append_blanks(text: Text, blanks: str, column: int, ends_line: bool = False) -> int:
    """Append a run of spaces and tabs starting at `column`; the column after it. A tab
    is drawn as `→` and the spaces up to the next stop of `TAB_SIZE` columns, so it is
    seen and takes the room it takes in an editor; a space of a run that `ends_line` as
    `TRAILING_SPACE`; a run that would take `SPACE_RUN_MIN_COLUMNS` or more columns is
    counted instead (`⟨28 tabs⟩`), so no run pushes text off the screen or onto a row of
    its own."""
    width = _blank_columns(blanks, column)
    if width >= SPACE_RUN_MIN_COLUMNS:
        note = f"⟨{_count_blanks(blanks)}⟩"
        text.append(note, style=NOTE_STYLE)
        return column + cell_len(note)
    for character in blanks:
        if character == " ":
            text.append(TRAILING_SPACE if ends_line else " ", style=TAB_STYLE if ends_line else "")
            column += 1
        else:
            stop = _next_tab_stop(column)
            text.append("→" + " " * (stop - column - 1), style=TAB_STYLE)
            column = stop
    return column


def _blank_columns(blanks: str, column: int) -> int:
    end = column
    for character in blanks:
        end = end + 1 if character == " " else _next_tab_stop(end)
    return end - column


def _next_tab_stop(column: int) -> int:
    return (column // TAB_SIZE + 1) * TAB_SIZE


def _count_blanks(blanks: str) -> str:
    tabs, spaces = blanks.count("\t"), blanks.count(" ")
    counted = [
        count_noun(tabs, "tab") if tabs else "",
        count_noun(spaces, "space") if spaces else "",
    ]
    return " and ".join(part for part in counted if part)


def _append_revealed(
    text: Text, line: str, start: int, end: int, column: int, marks: _LineMarks
) -> int:
    """Append `line[start:end]` (a word: no space or tab in it) with its controls and the
    characters at `marks.written` written out, and its look-alikes (`marks.lookalike`)
    marked. Look-alikes are marked, not rewritten: what the view shows of a secret must
    stay a form the view's cuts know (`approval_view.forms_as_shown`)."""
    piece = line[start:end]
    if not marks.touch(start, end):
        for part, is_control in reveal_controls(piece):
            text.append(part, style=CONTROL_STYLE if is_control else None)
            column += cell_len(part)
        return column
    runs: list[tuple[list[str], bool]] = []  # pieces drawn alike, appended at once
    for at, shown in enumerate(revealed_pieces(piece), start):
        if at in marks.written and shown == line[at]:
            shown = f"<U+{ord(line[at]):04X}>"
        is_marked = shown != line[at] or at in marks.lookalike
        if runs and runs[-1][1] is is_marked:
            runs[-1][0].append(shown)
        else:
            runs.append(([shown], is_marked))
    for pieces, is_marked in runs:
        part = "".join(pieces)
        text.append(part, style=CONTROL_STYLE if is_marked else None)
        column += cell_len(part)
    return column


def mark_lookalike_letters(text: Text) -> Text:
    """`text` with its look-alikes of ASCII characters marked as a command's are
    (`lookalikes.lookalike_positions`), its characters unchanged: a tool's heading and an
    approval's header name a path, host or command as the body does."""
    plain = text.plain
    if plain.isascii():
        return text
    offset = 0
    for line in plain.split("\n"):
        for at in lookalike_positions(line, in_command=True):
            text.stylize(CONTROL_STYLE, offset + at, offset + at + 1)
        offset += len(line) + 1
    return text


def write_out_marks(text: Text) -> Text:
    """`text` with its stray combining marks written out (`<U+0336>`) as a command's are
    (`combining_marks`), its styles kept: a tool's heading and an approval's header
    name a path or command as the body does."""
    return _written_out_at(text, lambda line: written_out_marks(line, in_command=True))


def write_out_lookalike_letters(text: Text) -> Text:
    """`text` with its look-alikes of ASCII characters written out (`g<U+0456>thub`)
    instead of marked (`mark_lookalike_letters`): for a console that draws no styles (a
    pipe, a log), where a mark would not be seen."""
    return _written_out_at(text, lambda line: lookalike_positions(line, in_command=True))


def _written_out_at(text: Text, positions_in: Callable[[str], Iterable[int]]) -> Text:
    """`text` with the characters at the positions `positions_in` finds in each of its
    lines written out as codes (`<U+0336>`, styled `CONTROL_STYLE`), its styles kept."""
    plain = text.plain
    if plain.isascii():
        return text
    positions: list[int] = []
    offset = 0
    for line in plain.split("\n"):
        positions += sorted(offset + at for at in positions_in(line))
        offset += len(line) + 1
    if not positions:
        return text
    cuts = sorted({cut for at in positions for cut in (at, at + 1)})
    pieces = text.divide(cuts)
    starts = [0, *cuts]
    shown = Text(style=text.style, end=text.end)
    written = set(positions)
    for start, piece in zip(starts, pieces, strict=True):
        if start in written:
            shown.append(f"<U+{ord(plain[start]):04X}>", style=CONTROL_STYLE)
        else:
            shown.append_text(piece)
    return shown


def holds_lookalike_letters(text: str, kind: ApprovalKind) -> bool:
    """True when a line of `text`, an approval of `kind`, holds a look-alike to mark."""
    in_command = kind is ApprovalKind.COMMAND
    if text.isascii() or not any(may_be_marked(c, in_command=in_command) for c in set(text)):
        return False  # (no character of it could be marked: no line needs reading)
    return any(lookalike_positions(line, in_command=in_command) for line in text.split("\n"))
