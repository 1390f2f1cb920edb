"""A permission question that shows everything it approves, and cannot be scrolled away.

Contract: `build_approval_view(request, width, height)` lays out what the user approves
(a new file's content, an edit's coloured unified diff, a command) so that:
- every line is numbered, and runs of 3 or more blank lines become one counted line
  (a command of `touch DANGER_RAN`, 80 newlines and a harmless `echo` once showed only
  the echo on a 40-row screen);
- control characters and escapes are shown as letters (`^[`, `^M`, `<U+202E>`), never
  obeyed or silently dropped; runs of 32 or more spaces or tabs are counted, not drawn;
- the header (which says how many lines there are) and the question fit on one screen
  together: a body too tall shows its head and its tail with a counted line for what is
  left out, and a line longer than `MAX_LINE_ROWS` rows shows its start and its end.
  `view.is_shortened` is then True and the question offers `v` to see every line.
With `full=True` nothing is left out (blank runs and space runs stay counted).
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from rich.console import Console
from rich.text import Text

from agent_cli.repl.safe_text import clip_line, reveal_controls
from agent_cli.tools.approval import Approval, ApprovalKind

BLANK_RUN_MIN = 3
MAX_LINE_ROWS = 4
# Rows kept free under the body: the question, a possible "answer y, a or n", a spare.
RESERVED_ROWS = 3
MIN_BODY_ROWS = 6
_SPACE_RUN = re.compile(r"[ \t]{32,}")
_DIFF_STYLES = {"+": "green", "-": "red", "@": "cyan"}
NOTE_STYLE = "bold magenta"
_MEASURING_CONSOLE = Console(file=io.StringIO(), width=80, color_system=None)
CONTROL_STYLE = "reverse magenta"


@dataclass
class NumberedLine:
    """One shown line: its number (or the range a collapsed run stands for) and its
    text, styled only when asked for (a 100,000-line file shows only its two ends)."""

    label: str
    raw: str
    kind: ApprovalKind
    note: Text | None = None

    @cached_property
    def text(self) -> Text:
        return self.note if self.note is not None else style_line(self.raw, self.kind)


@dataclass(frozen=True)
class ApprovalView:
    header: Text
    lines: list[Text]
    is_shortened: bool


def build_approval_view(request: Any, width: int, height: int, full: bool = False) -> ApprovalView:
    """The header and body lines to print before the question; see the module contract."""
    approval = approval_of(request)
    raw_lines = split_lines(approval)
    numbered = number_lines(raw_lines, approval.kind)
    gutter = max(len(line.label) for line in numbered) if numbered else 1
    header = build_header(request, approval, raw_lines, width)
    if full:
        return ApprovalView(header, [_with_gutter(line, gutter) for line in numbered], False)
    budget = max(MIN_BODY_ROWS, height - header_rows(header, width) - RESERVED_ROWS)
    fitted, is_shortened = fit_lines(numbered, _Layout(gutter, width), budget)
    return ApprovalView(header, [_with_gutter(line, gutter) for line in fitted], is_shortened)


def build_approval_header(request: Any, width: int) -> Text:
    """The header alone (to repeat it above the question after a full listing)."""
    approval = approval_of(request)
    return build_header(request, approval, split_lines(approval), width)


def split_lines(approval: Approval) -> list[str]:
    """The lines of the approved text; a file's or command's final newline ends its last
    line rather than starting an empty one. Only `\n` splits: other separators are
    controls, shown as such."""
    text = approval.text
    if approval.kind is not ApprovalKind.DIFF and text.endswith("\n"):
        text = text[:-1]
    return text.split("\n")


def approval_of(request: Any) -> Approval:
    """The request's approval text; a request without one shows its description."""
    approval = getattr(request, "approval", None)
    if isinstance(approval, Approval):
        return approval
    return Approval(ApprovalKind.COMMAND, str(request.description))


def build_header(request: Any, approval: Approval, raw_lines: list[str], width: int) -> Text:
    """One line: the tool, what it will do, and how many lines follow."""
    count = len(raw_lines)
    blank = sum(1 for line in raw_lines if not line.strip())
    lines = f"{count} line" if count == 1 else f"{count} lines"
    if blank:
        lines += f", {blank} blank"
    description = clip_line(_revealed(request.description), max(20, width // 2))
    if approval.kind is ApprovalKind.COMMAND:
        what = f"run this command ({lines})"
    elif approval.kind is ApprovalKind.DIFF:
        what = f"{description} (diff of {lines})"
    else:  # a write's description already counts its lines
        what = description + (f" ({blank} of them blank)" if blank else "")
    return Text.assemble(
        ("permission needed for ", "bold yellow"),
        (clip_line(request.tool, 40), "bold"),
        (": " + what, "bold yellow"),
    )


def _revealed(text: str) -> str:
    """`text` with its controls written out (`^[`, `<U+202E>`): a file name holding a
    bidi override must not read as another name in the header."""
    return "".join(part for part, _ in reveal_controls(text))


def header_rows(header: Text, width: int) -> int:
    return _rows(header, width)


def number_lines(raw_lines: list[str], kind: ApprovalKind) -> list[NumberedLine]:
    """Every line with its number; runs of blank lines collapsed into one counted line."""
    numbered: list[NumberedLine] = []
    index = 0
    while index < len(raw_lines):
        end = _blank_run_end(raw_lines, index, kind)
        if end - index >= BLANK_RUN_MIN:
            marker = raw_lines[index][:1] if kind is ApprovalKind.DIFF else ""
            note = Text(marker, style=_DIFF_STYLES.get(marker, ""))
            note.append(f"⋮ {end - index} blank lines", style=NOTE_STYLE)
            numbered.append(NumberedLine(f"{index + 1}-{end}", "", kind, note))
            index = end
            continue
        numbered.append(NumberedLine(str(index + 1), raw_lines[index], kind))
        index += 1
    return numbered


def _blank_run_end(raw_lines: list[str], start: int, kind: ApprovalKind) -> int:
    """The index after the run of blank lines starting at `start` (`start` if none).

    In a diff a line is blank when nothing but its +/-/space marker is there, and a run
    keeps one marker, so an added run is never merged with a removed one.
    """
    marker = raw_lines[start][:1] if kind is ApprovalKind.DIFF else ""
    end = start
    while end < len(raw_lines):
        line = raw_lines[end]
        is_blank = line.startswith(marker) and not line[len(marker) :].strip()
        if not is_blank or (kind is ApprovalKind.DIFF and not line):
            break
        end += 1
    return end


def style_line(line: str, kind: ApprovalKind) -> Text:
    """One line with controls made visible and long space runs counted, diff-coloured."""
    style = ""
    if kind is ApprovalKind.DIFF:
        style = "bold" if line.startswith(("+++", "---")) else _DIFF_STYLES.get(line[:1], "")
    text = Text(style=style)
    position = 0
    for run in _SPACE_RUN.finditer(line):
        _append_revealed(text, line[position : run.start()])
        text.append(f"⟨{len(run.group())} spaces⟩", style=NOTE_STYLE)
        position = run.end()
    _append_revealed(text, line[position:])
    return text


def _append_revealed(text: Text, piece: str) -> None:
    for part, is_control in reveal_controls(piece):
        text.append(part, style=CONTROL_STYLE if is_control else None)


@dataclass(frozen=True)
class _Layout:
    """How lines are printed: behind a gutter of `gutter` cells, on `width` columns."""

    gutter: int
    width: int

    def rows(self, line: NumberedLine) -> int:
        return _rows(_with_gutter(line, self.gutter), self.width)

    @property
    def content_width(self) -> int:
        return max(10, self.width - self.gutter - 3)


def fit_lines(
    lines: list[NumberedLine], layout: _Layout, budget: int
) -> tuple[list[NumberedLine], bool]:
    """Lines that fill at most `budget` rows: head, a counted gap, tail."""
    if _fits(lines, layout, budget):
        shortened = [_shorten_line(line, layout) for line in lines]
        return shortened, any(new is not old for new, old in zip(shortened, lines, strict=True))
    widest = lines[-1].label.split("-")[-1]
    note_rows = layout.rows(_gap_note(widest, widest))
    head = _take_lines(lines, layout, (budget - note_rows) // 2)
    head_rows = sum(layout.rows(line) for line in head)
    tail = _take_lines(lines[len(head) :][::-1], layout, budget - note_rows - head_rows)[::-1]
    gap = lines[len(head) : len(lines) - len(tail)]
    note = _gap_note(gap[0].label.split("-")[0], gap[-1].label.split("-")[-1])
    return [*head, note, *tail], True


def _gap_note(first: str, last: str) -> NumberedLine:
    text = Text(f"⋮ lines {first}-{last} not shown here; answer v to see every line")
    text.stylize(NOTE_STYLE)
    return NumberedLine("", "", ApprovalKind.CONTENT, text)


def _fits(lines: list[NumberedLine], layout: _Layout, budget: int) -> bool:
    used = 0
    for line in lines:
        used += layout.rows(_shorten_line(line, layout))
        if used > budget:
            return False
    return True


def _take_lines(lines: list[NumberedLine], layout: _Layout, budget: int) -> list[NumberedLine]:
    """The leading lines (each shortened if need be) that fit in `budget` rows."""
    taken: list[NumberedLine] = []
    used = 0
    for line in lines:
        shown = _shorten_line(line, layout)
        used += layout.rows(shown)
        if used > budget:
            break
        taken.append(shown)
    return taken


def _rows(text: Text, width: int) -> int:
    """Rows `text` takes when printed `width` cells wide (word wrap, long words folded),
    measured with rich's own wrapping so the estimate is what the screen will show."""
    return max(1, len(text.wrap(_MEASURING_CONSOLE, width, overflow="fold")))


def _shorten_line(line: NumberedLine, layout: _Layout) -> NumberedLine:
    """A line over `MAX_LINE_ROWS` rows keeps its start and end, the middle counted."""
    if layout.rows(line) <= MAX_LINE_ROWS:
        return line
    keep_start, keep_end = layout.content_width * 2, layout.content_width - 10
    length = len(line.text.plain)
    hidden = length - keep_start - keep_end
    shown = line.text[:keep_start]
    shown.append(f" ⟨{hidden:,} characters not shown⟩ ", style=NOTE_STYLE)
    shown.append_text(line.text[length - keep_end :])
    return NumberedLine(line.label, "", line.kind, shown)


def _with_gutter(line: NumberedLine, gutter: int) -> Text:
    row = Text(line.label.rjust(gutter) + " │ ", style="dim")
    row.append_text(line.text)
    return row
