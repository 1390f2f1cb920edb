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
  `view.is_shortened` is then True and the question offers `v` to see more.
With `full=True` nothing is left out (blank runs and space runs stay counted), up to
`FULL_VIEW_MAX_LINES` lines; a longer text lists its first and last `FULL_VIEW_SIDE_LINES`
with a counted line for the rest, saying how many lines and bytes are approved as a
whole (`view.lists_every_line` is then False). Printing all 200,000 lines of a huge write
took minutes and helped nobody read it.
Only the lines that can be shown are numbered and styled (`approval_lines`), so a huge
text costs about as much as a short one; the header still counts every line.
With `unasked_by` (the "always" answer that lets the call through), the same view shows
what a call does without asking: the header says which answer allowed it, and no note
offers `v` (there is no question to answer).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from itertools import islice, takewhile
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from agent_cli.repl.approval_lines import (
    NOTE_STYLE,
    NumberedLine,
    number_lines,
    numbered_from_end,
    numbered_from_start,
)
from agent_cli.repl.safe_text import clip_line, reveal_controls
from agent_cli.safe_cuts import safe_head_end, safe_tail_start
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.tools.approval import Approval, ApprovalKind
from agent_cli.tools.output import count_noun, format_size

if TYPE_CHECKING:
    from agent_cli.tools.permissions import PermissionRequest

MAX_LINE_ROWS = 4
# Rows kept free under the body: the question, a possible "answer y, a or n", a spare.
RESERVED_ROWS = 3
MIN_BODY_ROWS = 6
FULL_VIEW_SIDE_LINES = 500
FULL_VIEW_MAX_LINES = 2 * FULL_VIEW_SIDE_LINES
_MEASURING_CONSOLE = Console(file=io.StringIO(), width=80, color_system=None)


@dataclass(frozen=True)
class ApprovalView:
    header: Text
    lines: list[Text]
    is_shortened: bool
    lists_every_line: bool = True  # False: even the full listing shows only the two ends


@dataclass(frozen=True)
class _Ends:
    """Candidate lines from the start (`head`, in order) and from the end (`tail`, last
    first). `tail` is empty when `head` already holds every line."""

    head: list[NumberedLine]
    tail: list[NumberedLine]
    line_count: int


def build_approval_view(
    request: PermissionRequest,
    width: int,
    height: int,
    full: bool = False,
    unasked_by: str | None = None,
) -> ApprovalView:
    """The header and body lines to print before the question (or, with `unasked_by`,
    instead of it); see the module contract."""
    approval = approval_of(request)
    raw_lines = split_lines(approval)
    header = build_header(request, approval, raw_lines, width, unasked_by)
    lists_every_line = len(raw_lines) <= FULL_VIEW_MAX_LINES
    if full:
        lines = _full_listing(approval, raw_lines)
        gutter = max((len(line.label) for line in lines), default=1)
        return ApprovalView(header, [_with_gutter(line, gutter) for line in lines], False)
    budget = max(MIN_BODY_ROWS, height - header_rows(header, width) - RESERVED_ROWS)
    ends = _collect_ends(raw_lines, approval.kind, budget)
    gutter = max((len(line.label) for line in (*ends.head, *ends.tail)), default=1)
    secrets = request.secrets
    layout = _Layout(gutter, width, secrets)
    fitted, is_shortened = fit_lines(ends, layout, budget, lists_every_line, unasked_by is None)
    rows = [_with_gutter(line, gutter) for line in fitted]
    return ApprovalView(header, rows, is_shortened, lists_every_line)


def _collect_ends(raw_lines: list[str], kind: ApprovalKind, count: int) -> _Ends:
    """Up to `count` numbered lines from each end (no view shows more in `count` rows);
    merged into `head` alone when the two meet."""
    head = list(islice(numbered_from_start(raw_lines, kind), count))
    if not head or head[-1].last == len(raw_lines) - 1:
        return _Ends(head, [], len(raw_lines))
    tail = list(islice(numbered_from_end(raw_lines, kind), count))
    if tail[-1].first <= head[-1].last + 1:
        joined = [*head, *(line for line in reversed(tail) if line.first > head[-1].last)]
        return _Ends(joined, [], len(raw_lines))
    return _Ends(head, tail, len(raw_lines))


def _full_listing(approval: Approval, raw_lines: list[str]) -> list[NumberedLine]:
    """Every line, or for a text over `FULL_VIEW_MAX_LINES` its two ends and a count."""
    if len(raw_lines) <= FULL_VIEW_MAX_LINES:
        return number_lines(raw_lines, approval.kind)
    side, total = FULL_VIEW_SIDE_LINES, len(raw_lines)
    head = list(
        takewhile(lambda line: line.first < side, numbered_from_start(raw_lines, approval.kind))
    )
    tail = list(
        takewhile(
            lambda line: line.last >= total - side, numbered_from_end(raw_lines, approval.kind)
        )
    )
    first, last = head[-1].last + 1, tail[-1].first - 1
    if first > last:  # a blank run spans the middle: the two ends meet
        return [*head, *(line for line in reversed(tail) if line.first >= first)]
    size = format_size(len(approval.text.encode("utf-8", "surrogatepass")))
    note = Text(
        f"⋮ lines {first + 1:,}-{last + 1:,} ({count_noun(last - first + 1, 'line')}) not "
        "listed: only the "
        f"first and last {side:,} are. Approving approves all {total:,} lines ({size})."
    )
    note.stylize(NOTE_STYLE)
    return [*head, NumberedLine(-1, -1, "", ApprovalKind.CONTENT, note), *reversed(tail)]


def build_approval_header(request: PermissionRequest, width: int) -> Text:
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


def approval_of(request: PermissionRequest) -> Approval:
    """The request's approval text; a request without one shows its description."""
    if request.approval is not None:
        return request.approval
    return Approval(ApprovalKind.COMMAND, str(request.description))


def build_header(
    request: PermissionRequest,
    approval: Approval,
    raw_lines: list[str],
    width: int,
    unasked_by: str | None = None,
) -> Text:
    """One line: the tool, what it will do, and how many lines follow; with `unasked_by`
    (`always for notes.sh`) it says that answer allows it without a question."""
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
    tool = (clip_line(request.tool, 40), "bold")
    if unasked_by is not None:
        return Text.assemble(tool, (f" not asked ({_revealed(unasked_by)}): {what}", "bold green"))
    return Text.assemble(
        ("permission needed for ", "bold yellow"),
        tool,
        (": " + what, "bold yellow"),
    )


def _revealed(text: str) -> str:
    """`text` with its controls written out (`^[`, `<U+202E>`): a file name holding a
    bidi override must not read as another name in the header."""
    return "".join(part for part, _ in reveal_controls(text))


def header_rows(header: Text, width: int) -> int:
    return _rows(header, width)


@dataclass(frozen=True)
class _Layout:
    """How lines are printed: behind a gutter of `gutter` cells, on `width` columns."""

    gutter: int
    width: int
    secrets: SecretForms = NO_SECRETS  # a shortened line splits none of them

    def rows(self, line: NumberedLine) -> int:
        return _rows(_with_gutter(line, self.gutter), self.width)

    @property
    def content_width(self) -> int:
        return max(10, self.width - self.gutter - 3)


def fit_lines(
    ends: _Ends,
    layout: _Layout,
    budget: int,
    lists_every_line: bool = True,
    offers_view: bool = True,
) -> tuple[list[NumberedLine], bool]:
    """Lines that fill at most `budget` rows: head, a counted gap (offering `v` when
    `offers_view`), tail."""
    if not ends.tail and _fits(ends.head, layout, budget):
        shortened = [_shorten_line(line, layout) for line in ends.head]
        changed = any(new is not old for new, old in zip(shortened, ends.head, strict=True))
        return shortened, changed
    widest = str(ends.line_count)
    note_rows = layout.rows(_gap_note(widest, widest, lists_every_line, offers_view))
    head = _take_lines(ends.head, layout, (budget - note_rows) // 2)
    head_rows = sum(layout.rows(line) for line in head)
    tail_candidates = ends.tail or ends.head[len(head) :][::-1]
    tail = _take_lines(tail_candidates, layout, budget - note_rows - head_rows)[::-1]
    first = head[-1].last + 2 if head else 1
    last = tail[0].first if tail else ends.line_count
    gap = _gap_note(str(first), str(last), lists_every_line, offers_view)
    return [*head, gap, *tail], True


def _gap_note(first: str, last: str, lists_every_line: bool, offers_view: bool) -> NumberedLine:
    more = "every line" if lists_every_line else f"its first and last {FULL_VIEW_SIDE_LINES}"
    offer = f"; answer v to see {more}" if offers_view else ""
    text = Text(f"⋮ lines {first}-{last} not shown here{offer}")
    text.stylize(NOTE_STYLE)
    return NumberedLine(-1, -1, "", ApprovalKind.CONTENT, text)


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
    plain, secrets = line.text.plain, layout.secrets
    head_end = safe_head_end(plain, layout.content_width * 2, secrets)
    tail_start = max(
        safe_tail_start(plain, len(plain) - layout.content_width + 10, secrets), head_end
    )
    shown = line.text[:head_end]
    shown.append(f" ⟨{tail_start - head_end:,} characters not shown⟩ ", style=NOTE_STYLE)
    shown.append_text(line.text[tail_start:])
    return NumberedLine(line.first, line.last, "", line.kind, shown)


def _with_gutter(line: NumberedLine, gutter: int) -> Text:
    row = Text(line.label.rjust(gutter) + " │ ", style="dim")
    row.append_text(line.text)
    return row
