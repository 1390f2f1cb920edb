"""The lines of an approval, numbered from either end, without touching the middle.

Contract: `numbered_from_start(raw_lines, kind)` yields `NumberedLine`s in order, and
`numbered_from_end` the same lines last first; both number each line by its position,
except that a run of `BLANK_RUN_MIN` or more blank lines becomes one counted line. Blank
runs are maximal runs of lines of the same blank kind (in a diff, the same +/-/space
marker with nothing after it), so both directions find the same runs, and a view can
take its head from one and its tail from the other. Both are lazy: a view of a
200,000-line write numbers the few dozen lines it shows, not every line (numbering them
all took about half a second before the question appeared).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from rich.cells import cell_len
from rich.text import Text

from agent_cli.repl.safe_text import TAB_SIZE
from agent_cli.tools.approval import ApprovalKind
from agent_cli.tools.output import count_noun
from agent_cli.written_out import reveal_controls

BLANK_RUN_MIN = 3
NOTE_STYLE = "bold magenta"
CONTROL_STYLE = "reverse magenta"
DIFF_STYLES = {"+": "green", "-": "red", "@": "cyan"}
SPACE_RUN_MIN_COLUMNS = 32
TAB_STYLE = "dim"
# Scripts with letters drawn like Latin ones (Unicode's confusables are mostly these).
LOOKALIKE_SCRIPTS = frozenset(
    {"CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC", "FULLWIDTH", "MATHEMATICAL", "LISU"}
)
TRAILING_SPACE = "·"  # a space drawn where a blank one could not be told from none
_BLANK_RUN = re.compile(r"[ \t]+")
_NOT_BLANK = None


@dataclass
class NumberedLine:
    """One shown line: the raw lines it stands for (`first`..`last`, 0-based; -1 for a
    note that stands for none) and its text, styled only when asked for."""

    first: int
    last: int
    raw: str
    kind: ApprovalKind
    note: Text | None = None

    @property
    def label(self) -> str:
        if self.first < 0:
            return ""
        if self.first == self.last:
            return str(self.first + 1)
        return f"{self.first + 1}-{self.last + 1}"

    @cached_property
    def text(self) -> Text:
        return self.note if self.note is not None else style_line(self.raw, self.kind)


def numbered_from_start(
    raw_lines: list[str], kind: ApprovalKind, start: int = 0
) -> Iterator[NumberedLine]:
    """From line `start` on, which must be the first line of a shown line (0, or one past
    the `last` of a line this yielded): a page goes on where the one before it ended."""
    index = start
    while index < len(raw_lines):
        end = _run_end(raw_lines, index, kind, step=1)
        yield _numbered(raw_lines, index, end - 1, kind)
        index = end


def numbered_from_end(raw_lines: list[str], kind: ApprovalKind) -> Iterator[NumberedLine]:
    index = len(raw_lines) - 1
    while index >= 0:
        start = _run_end(raw_lines, index, kind, step=-1)
        yield _numbered(raw_lines, start + 1, index, kind)
        index = start


def number_lines(raw_lines: list[str], kind: ApprovalKind) -> list[NumberedLine]:
    """Every line, numbered (blank runs counted): for a view that shows them all."""
    return list(numbered_from_start(raw_lines, kind))


def _numbered(raw_lines: list[str], first: int, last: int, kind: ApprovalKind) -> NumberedLine:
    if last - first + 1 < BLANK_RUN_MIN:
        return NumberedLine(first, first, raw_lines[first], kind)
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


def style_line(line: str, kind: ApprovalKind) -> Text:
    """One line with controls made visible and tabs drawn, diff-coloured; see
    `_append_blanks` for runs of spaces and tabs. Spaces that end a line are drawn as
    `TRAILING_SPACE` (a diff's marker column aside): `echo \\ ` and `echo \\` differ
    to bash, so they must differ on screen."""
    style, start = "", 0
    if kind is ApprovalKind.DIFF:
        style = "bold" if line.startswith(("+++", "---")) else DIFF_STYLES.get(line[:1], "")
        start = 1 if line[:1] in (" ", "+", "-") and style != "bold" else 0
    text = Text(line[:start], style=style)
    column = position = start
    for run in _BLANK_RUN.finditer(line, start):
        column = _append_revealed(text, line[position : run.start()], column)
        column = _append_blanks(text, run.group(), column, run.end() == len(line))
        position = run.end()
    _append_revealed(text, line[position:], column)
    return text


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


def _append_revealed(text: Text, piece: str, column: int) -> int:
    """Append `piece` (a word: no space or tab in it) with its controls written out, and
    its look-alike letters marked when it mixes scripts (`mixed_script_letters`). The
    letters are marked, not rewritten: what the view shows of a secret must stay a form
    the view's cuts know (`approval_view.forms_as_shown`)."""
    lookalikes = mixed_script_letters(piece)
    for part, is_control in reveal_controls(piece):
        if lookalikes and not is_control:
            for character in part:
                text.append(character, style=CONTROL_STYLE if character in lookalikes else None)
        else:
            text.append(part, style=CONTROL_STYLE if is_control else None)
        column += cell_len(part)
    return column


def mark_lookalike_letters(text: Text) -> Text:
    """`text` with the look-alike letters of each word that mixes scripts marked as the
    approval view marks them (`mixed_script_letters`), its characters unchanged: a tool's
    heading and an approval's header name a path or host as the body does."""
    plain = text.plain
    if plain.isascii():
        return text
    for word in re.finditer(r"\S+", plain):
        lookalikes = mixed_script_letters(word.group())
        for offset, character in enumerate(word.group()) if lookalikes else ():
            if character in lookalikes:
                at = word.start() + offset
                text.stylize(CONTROL_STYLE, at, at + 1)
    return text


def holds_lookalike_letters(text: str) -> bool:
    """True when a word of `text` mixes Latin letters with look-alike ones."""
    return not text.isascii() and any(map(mixed_script_letters, text.split()))


def mixed_script_letters(word: str) -> frozenset[str]:
    """The letters of `word` to mark because it mixes scripts: in a word
    with Latin letters, every letter of a script whose letters look like Latin ones
    (`LOOKALIKE_SCRIPTS`: `gіthub.com` with a Cyrillic `і` reads as github.com). Empty
    for any other word (Cyrillic, Greek or CJK text, `東京Tower`, stays as it is)."""
    if word.isascii():
        return frozenset()
    scripts = {letter: _script_of(letter) for letter in word if letter.isalpha()}
    if "LATIN" not in scripts.values():
        return frozenset()
    return frozenset(letter for letter, script in scripts.items() if script in LOOKALIKE_SCRIPTS)


def _script_of(letter: str) -> str:
    """A letter's script, as the first word of its Unicode name (`CYRILLIC`, `GREEK`,
    `LATIN`, `CJK`...); "" for a letter without a name."""
    name = unicodedata.name(letter, "")
    return name.split(" ", 1)[0]
