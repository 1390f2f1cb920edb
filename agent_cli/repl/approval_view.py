"""A permission question that shows everything it approves, and cannot be scrolled away.

Contract: `build_approval_view(request, width, height)` lays out what the user approves
(a new file's content, an edit's coloured unified diff, a command) so that:
- every line is numbered, and runs of 3 or more blank lines become one counted line
  (a command of `touch DANGER_RAN`, 80 newlines and a harmless `echo` once showed only
  the echo on a 40-row screen);
- control, format and other invisible characters are shown as letters (`^[`, `^M`,
  `<U+202E>`, `<U+FE0F>`; `safe_text.reveal_controls`), never obeyed or silently
  dropped; a tab is drawn as `→` up to its stop, and a run of spaces and tabs 32
  columns wide or more is counted (`⟨28 tabs⟩`), not drawn;
- a line wider than the screen goes on in rows under a blank gutter (`   ┆ `), cut where
  the cells run out, not at a space (a space at either side of the cut drawn `·`), and the
  header's further rows start with `  ↳ `: no row that content fills starts where a
  line number or a `[compact]` line would, so a command cannot draw a line of its own;
- the header names the file by its whole path, or when that would take more than
  `MAX_HEADER_ROWS` rows, by its start and its end (the file name); a path holding a
  space is quoted, its line feeds and other controls written out (`safe_text.show_path`);
- the header (which says how many lines there are) and the question fit on one screen
  together, with `reserved_rows` left for the question (the asker measures it): a body
  too tall shows its head and its tail with a counted line for what is left out, and a
  line longer than `MAX_LINE_ROWS` rows shows its start and its end; a changed diff line
  also a window around each place where it differs from its counterpart
  (`line_counterparts`), as many as fit, and a gap that still holds such a place says so
  (`CHANGED_GAP_NOTE`): two lines that differ are never drawn the same.
  `view.is_shortened` is then True and the question offers `v` to see more.
With `full=True` nothing is left out (blank runs and space runs stay counted): the lines
from `from_line` on, `FULL_VIEW_PAGE_LINES` at most; when more follow, a counted line
says so and how many lines and bytes are approved as a whole, and `view.next_line` is
where the next page starts (`v` again). Every line of any write can so be read before
answering, a page at a time (printing all 200,000 lines of a huge write at once took
minutes). An edit or overwrite that changes nothing says so instead of showing an
empty diff.
Only the lines that can be shown are numbered and styled (`approval_lines`), so a huge
text costs about as much as a short one; the header still counts every line.
With `unasked_by` (the "always" answer that lets the call through), the same view shows
what a call does without asking: the header says which answer allowed it, and no note
offers `v` (there is no question to answer).
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from agent_cli.changed_spans import Span
from agent_cli.repl.approval_lines import (
    NO_POSITIONS,
    NOTE_STYLE,
    TAB_STYLE,
    TRAILING_SPACE,
    NumberedLine,
    WrittenAt,
    holds_lookalike_letters,
    is_blank_line,
    mark_lookalike_letters,
    numbered_from_end,
    numbered_from_start,
    write_out_marks,
)
from agent_cli.repl.git_files_warning import build_git_changed_warning, build_git_file_warning
from agent_cli.repl.hidden_text_warning import (
    build_hidden_text_warning,
    build_literal_mark_warning,
)
from agent_cli.repl.line_counterparts import DiffCounterparts
from agent_cli.repl.safe_text import clip_line, clip_middle, show_path
from agent_cli.safe_cuts import safe_head_end, safe_tail_start
from agent_cli.same_looking_lines import same_looking_changes
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.tools.approval import Approval, ApprovalKind
from agent_cli.tools.approval_scope import TargetKind
from agent_cli.tools.output import count_noun, format_size
from agent_cli.written_out import reveal_all, reveal_controls

if TYPE_CHECKING:
    from agent_cli.tools.permissions import PermissionRequest

MAX_LINE_ROWS = 4
# A shortened line that differs from its counterpart may take up to this many rows (never
# more than a third of the body) to show a window around each place where it differs.
MAX_CHANGED_LINE_ROWS = 8
CHANGED_GAP_NOTE = "characters not shown, some of them changed"
CHANGED_GAP_STYLE = "bold reverse yellow"
# Rows kept free under the body when the caller does not measure its question: the
# question, a possible "answer y, a or n", a spare.
RESERVED_ROWS = 3
MIN_BODY_ROWS = 6
MAX_HEADER_ROWS = 3
FULL_VIEW_PAGE_LINES = 1000
LINE_MARK, CONTINUED_MARK = " │ ", " ┆ "  # after a line's number; after a blank gutter
HEADER_CONTINUED_MARK = "  ↳ "
LOOKALIKE_NOTE = "a word holds look-alikes of ASCII letters or signs, shown marked"
SHORT_LOOKALIKE_NOTE = "look-alikes marked"  # where the long note would pass MAX_HEADER_ROWS
SAME_LOOKING_NOTE = "a change draws like what it replaces, the characters that differ written out"
SHORT_SAME_LOOKING_NOTE = "same-looking change written out"
_MEASURING_CONSOLE = Console(file=io.StringIO(), width=80, color_system=None)


@dataclass(frozen=True)
class ApprovalView:
    header: Text
    lines: list[Text]
    is_shortened: bool
    # A full listing that stopped at a page's end: the line (0-based) the next page
    # starts at; None when it reached the end (and for a view that is not a listing).
    next_line: int | None = None


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
    *,
    reserved_rows: int = RESERVED_ROWS,
    from_line: int = 0,
    folder: str | None = None,
) -> ApprovalView:
    """The header and body lines to print before the question (or, with `unasked_by`,
    instead of it); see the module contract. `folder`: the folder the call runs in, named
    in the header (given when it is not the one agent-cli was started in)."""
    approval = approval_of(request)
    raw_lines = split_lines(approval)
    written_at = same_looking_lines(approval, raw_lines)
    header = build_header(request, approval, raw_lines, width, unasked_by, written_at, folder)
    if not raw_lines:
        return ApprovalView(header, [_framed(_empty_note(approval), 1, width)], False)
    drawn_at = SecretPositions(raw_lines, request.secrets)
    if full:
        lines, next_line = _listing_page(approval, raw_lines, from_line, written_at, drawn_at)
        gutter = max((len(line.label) for line in lines), default=1)
        return ApprovalView(
            header, [_framed(line, gutter, width) for line in lines], False, next_line
        )
    budget = max(MIN_BODY_ROWS, height - header_rows(header, width) - reserved_rows)
    ends = _collect_ends(raw_lines, approval.kind, budget, written_at, drawn_at)
    gutter = max((len(line.label) for line in (*ends.head, *ends.tail)), default=1)
    secrets = forms_as_shown(request.secrets)
    counterparts = (
        DiffCounterparts(raw_lines, written_at, drawn_at)
        if approval.kind is ApprovalKind.DIFF
        else None
    )
    changed_rows = max(MAX_LINE_ROWS, min(MAX_CHANGED_LINE_ROWS, budget // 3))
    layout = _Layout(
        gutter,
        width,
        secrets,
        raw_lines,
        approval.kind,
        written_at,
        drawn_at,
        counterparts,
        changed_rows,
    )
    one_page = _is_last_page(raw_lines, approval.kind, 0)
    fitted, is_shortened = fit_lines(ends, layout, budget, one_page, unasked_by is None)
    rows = [_framed(line, gutter, width) for line in fitted]
    return ApprovalView(header, rows, is_shortened)


def view_offer(request: PermissionRequest, from_line: int = 0) -> str:
    """The `v` answer the question offers for a listing from `from_line`: `[v] view every
    line`, or for a text longer than a page the lines its page holds."""
    approval = approval_of(request)
    raw_lines = split_lines(approval)
    page = _page(raw_lines, approval.kind, from_line)
    last = page[-1].last + 1 if page else len(raw_lines)
    if from_line == 0 and last >= len(raw_lines):
        return "[v] view every line"
    return f"[v] view lines {from_line + 1:,}-{last:,}"


def same_looking_lines(approval: Approval, raw_lines: list[str]) -> WrittenAt:
    """For a diff, the lines that change characters into others drawn alike, with the
    positions to write out in each (`same_looking_lines.same_looking_changes`)."""
    if approval.kind is not ApprovalKind.DIFF or approval.text.isascii():
        return {}
    return same_looking_changes(raw_lines)


def _page(
    raw_lines: list[str],
    kind: ApprovalKind,
    from_line: int,
    written_at: WrittenAt | None = None,
    drawn_at: WrittenAt | None = None,
) -> list[NumberedLine]:
    """The shown lines of the page from `from_line`: `FULL_VIEW_PAGE_LINES` at most, a
    counted blank run being one."""
    lines = numbered_from_start(raw_lines, kind, from_line, written_at, drawn_at)
    return list(islice(lines, FULL_VIEW_PAGE_LINES))


def _is_last_page(raw_lines: list[str], kind: ApprovalKind, from_line: int) -> bool:
    page = _page(raw_lines, kind, from_line)
    return not page or page[-1].last + 1 >= len(raw_lines)


def _empty_note(approval: Approval) -> NumberedLine:
    words = (
        "⋮ no change: the new text is the same as the file's"
        if approval.kind is ApprovalKind.DIFF
        else "⋮ nothing: the text is empty"
    )
    return NumberedLine(-1, -1, "", ApprovalKind.CONTENT, Text(words, style=NOTE_STYLE))


def _collect_ends(
    raw_lines: list[str], kind: ApprovalKind, count: int, written_at: WrittenAt, drawn_at: WrittenAt
) -> _Ends:
    """Up to `count` numbered lines from each end (no view shows more in `count` rows);
    merged into `head` alone when the two meet."""
    head = list(islice(numbered_from_start(raw_lines, kind, 0, written_at, drawn_at), count))
    if not head or head[-1].last == len(raw_lines) - 1:
        return _Ends(head, [], len(raw_lines))
    tail = list(islice(numbered_from_end(raw_lines, kind, written_at, drawn_at), count))
    if tail[-1].first <= head[-1].last + 1:
        joined = [*head, *(line for line in reversed(tail) if line.first > head[-1].last)]
        return _Ends(joined, [], len(raw_lines))
    return _Ends(head, tail, len(raw_lines))


def _listing_page(
    approval: Approval,
    raw_lines: list[str],
    from_line: int,
    written_at: WrittenAt,
    drawn_at: WrittenAt,
) -> tuple[list[NumberedLine], int | None]:
    """The page that starts at `from_line`: `FULL_VIEW_PAGE_LINES` shown lines at most (a
    counted blank run is one), and where the next page starts (None: this one is the
    last). A page that is not the last ends with a line that counts the lines to come."""
    page = _page(raw_lines, approval.kind, from_line, written_at, drawn_at)
    next_line = page[-1].last + 1 if page else len(raw_lines)
    if next_line >= len(raw_lines):
        return page, None
    total, left = len(raw_lines), len(raw_lines) - next_line
    size = format_size(len(approval.text.encode("utf-8", "surrogatepass")))
    which = (
        "them"
        if _is_last_page(raw_lines, approval.kind, next_line)
        else f"the next {FULL_VIEW_PAGE_LINES:,}"
    )
    note = Text(
        f"⋮ lines {next_line + 1:,}-{total:,} ({count_noun(left, 'line')}) not listed yet: "
        f"answer v to list {which}. Approving approves all {total:,} lines ({size})."
    )
    note.stylize(NOTE_STYLE)
    return [*page, NumberedLine(-1, -1, "", ApprovalKind.CONTENT, note)], next_line


def build_approval_header(
    request: PermissionRequest, width: int, folder: str | None = None
) -> Text:
    """The header alone (to repeat it above the question after a full listing)."""
    approval = approval_of(request)
    return build_header(request, approval, split_lines(approval), width, folder=folder)


def split_lines(approval: Approval) -> list[str]:
    """The lines of the approved text, none for an empty one; a file's or command's final
    newline ends its last line rather than starting an empty one. Only `\n` splits:
    other separators are controls, shown as such."""
    text = approval.text
    if not text:
        return []
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
    written_at: WrittenAt | None = None,
    folder: str | None = None,
) -> Text:
    """The tool (`in <folder>` after it, when given: where it runs), what it will do,
    and how many lines follow: one line, or rows after the
    first that start with `HEADER_CONTINUED_MARK`, at most `MAX_HEADER_ROWS` where the
    note on look-alike letters can be shortened to fit (a narrow terminal); with
    `unasked_by` (`always for notes.sh`) it says that answer allows it without a
    question. `written_at`: `same_looking_lines` of the approval, when found already.
    Added or removed lines that show secret text as `[REDACTED]` get a warning under it,
    in rows of its own (`hidden_text_warning`), as do lines holding that mark as their own
    text, and so do a call asked again because
    git's files changed and a write of a file git reads (`git_files_warning`)."""
    if written_at is None:
        written_at = same_looking_lines(approval, raw_lines)
    notes = (holds_lookalike_letters(approval.text, approval.kind), bool(written_at))
    tool = clip_line(request.tool, 40)
    if folder is not None:  # whole, unless past about two rows (its own name stays)
        room = (MAX_HEADER_ROWS - 1) * (width - len(HEADER_CONTINUED_MARK)) - 40
        tool += f" in {show_path(folder, max(room, 20))}"
    header = _build_header(request, approval, raw_lines, (tool, width), unasked_by, notes)
    if _rows(header, width) > MAX_HEADER_ROWS and any(notes):
        header = _build_header(
            request, approval, raw_lines, (tool, width), unasked_by, notes, compact=True
        )
    if approval.hidden_added_lines or approval.hidden_removed_lines:  # rows of its own
        warning = build_hidden_text_warning(  # (past the limit: it must be read)
            approval.hidden_added_lines, unasked_by is None, approval.hidden_removed_lines
        )
        header.append("\n")
        header.append_text(_hang(warning, width))
    if approval.literal_mark_lines:
        literal = build_literal_mark_warning(
            approval.literal_mark_lines, approval.kind, unasked_by is None
        )
        header.append("\n")
        header.append_text(_hang(literal, width))
    for warning in git_warnings(request, asked=unasked_by is None):
        header.append("\n")
        header.append_text(_hang(warning, width))
    return header


def git_warnings(request: PermissionRequest, asked: bool) -> list[Text]:
    """The warnings of `git_files_warning` that `request` calls for: it is asked again
    because git's files changed, or it writes a file git reads."""
    warnings = []
    if request.git_changed is not None:
        warnings.append(build_git_changed_warning(request.git_changed))
    target = request.target
    if target is not None and target.kind is TargetKind.FILE and request.writes_git_file:
        warnings.append(build_git_file_warning(target.shown, asked))
    return warnings


def _build_header(
    request: PermissionRequest,
    approval: Approval,
    raw_lines: list[str],
    shown_as: tuple[str, int],
    unasked_by: str | None,
    holds: tuple[bool, bool],
    *,
    compact: bool = False,
) -> Text:
    """`build_header`; `shown_as`: the tool as named (with its folder) and the width;
    `holds`: whether it holds look-alikes and same-looking changes; `compact`: the notes
    in their short forms (`SHORT_LOOKALIKE_NOTE`, `N blank`)."""
    tool, width = shown_as
    lookalike_note = SHORT_LOOKALIKE_NOTE if compact else LOOKALIKE_NOTE
    same_looking_note = SHORT_SAME_LOOKING_NOTE if compact else SAME_LOOKING_NOTE
    count = len(raw_lines)
    blank = sum(1 for line in raw_lines if is_blank_line(line))
    lines = count_noun(count, "line")
    if blank:
        lines += f", {blank:,} blank"
    opening = f"permission needed for {tool}: "
    lookalikes, same_looking = holds
    if lookalikes:
        lines += f"; {lookalike_note}"
    if same_looking:
        lines += f"; {same_looking_note}"
    if approval.kind is ApprovalKind.COMMAND:
        what = f"run this command ({lines})"
    else:
        if approval.kind is ApprovalKind.DIFF:  # a write's description counts its lines
            same = " (no change in the text)" if approval.note else " (no change)"
            ending = f" (diff of {lines})" if count else same
            if approval.note:  # what the diff cannot show: hidden text, bytes, encoding
                ending = f"{ending[:-1]}; {approval.note})"
        else:
            said = [f"{blank} blank" if compact else f"{blank} of them blank"] if blank else []
            said += [lookalike_note] if lookalikes else []
            ending = "".join(f" ({note})" for note in said)
            if compact and said:
                ending = f" ({'; '.join(said)})"
        room = MAX_HEADER_ROWS * (width - len(HEADER_CONTINUED_MARK)) - len(opening) - len(ending)
        what = describe_request(request, max(room - 8, 20)) + ending
    if unasked_by is not None:
        header = Text.assemble(
            (tool, "bold"), (f" not asked ({reveal_all(unasked_by)}): {what}", "bold green")
        )
        return _hang(mark_lookalike_letters(write_out_marks(header)), width)
    header = Text.assemble(
        ("permission needed for ", "bold yellow"), (tool, "bold"), (": " + what, "bold yellow")
    )
    return _hang(mark_lookalike_letters(write_out_marks(header)), width)


def describe_request(request: PermissionRequest, limit: int) -> str:
    """The request's description in at most about `limit` characters, controls written
    out; the file it names shown by `show_path`, so its end (the file name) stays."""
    description, target = request.description, request.target
    if target is not None and target.kind is TargetKind.FILE:
        verb, _, rest = description.partition(" ")
        if rest.startswith(target.shown):
            after = reveal_all(rest[len(target.shown) :])
            path = show_path(target.shown, max(limit - len(verb) - 1 - len(after), 20))
            return f"{verb} {path}{after}"
    return clip_middle(list(reveal_all(description)), limit)


def _hang(text: Text, width: int) -> Text:
    """`text` in rows of `width` cells, the rows after the first behind
    `HEADER_CONTINUED_MARK`; broken at spaces, and a word too long for a row (a path)
    after a `/` where it has one, so the folder names and the file name stay whole."""
    plain, start, hung = text.plain, 0, Text()
    while start < len(plain):
        room = max(width - (len(HEADER_CONTINUED_MARK) if start else 0), 10)
        end = _row_end(plain, start, room)
        if start:
            hung.append("\n")
            hung.append(HEADER_CONTINUED_MARK, style="dim")
        row = text[start:end]
        row.rstrip()
        hung.append_text(row)
        start = end
        while start < len(plain) and plain[start] == " ":
            start += 1
    return hung


def _row_end(plain: str, start: int, room: int) -> int:
    """Where a row from `start` ends: all of it when it fits in `room` cells, else at its
    last space, else after its last `/`, else where the cells run out."""
    cells, end = 0, start
    while end < len(plain):
        cells += cell_len(plain[end])
        if cells > room:
            break
        end += 1
    if end == len(plain) or plain[end] == " ":
        return max(end, start + 1)
    for breaker in (" ", "/"):
        found = plain.rfind(breaker, start, end)
        if found > start:
            return found + (breaker == "/")
    return max(end, start + 1)


def header_rows(header: Text, width: int) -> int:
    return _rows(header, width)


@dataclass(frozen=True)
class _Layout:
    """How lines are printed: behind a gutter of `gutter` cells, on `width` columns; the
    approval's lines (`raw_lines`, of `kind`) let a shortened diff line keep its change."""

    gutter: int
    width: int
    secrets: SecretForms = NO_SECRETS  # a shortened line splits none of them
    raw_lines: Sequence[str] = ()
    kind: ApprovalKind = ApprovalKind.CONTENT
    written_at: WrittenAt = field(default_factory=dict)  # same-looking changes written out
    drawn_at: WrittenAt = field(default_factory=dict)  # secrets' characters, none written out
    counterparts: DiffCounterparts | None = None  # for a diff: what its changed lines differ from
    changed_line_rows: int = MAX_LINE_ROWS  # a shortened line with changes to show: rows at most

    def rows(self, line: NumberedLine) -> int:
        return len(line_rows(line, self.content_width))

    def changes(self, line: NumberedLine) -> list[Span]:
        """Where `line` (a line of the approval, drawn) differs from its counterpart;
        none for a line without one."""
        if self.counterparts is None or line.first < 0:
            return []
        return self.counterparts.changes(line.first, line.text.plain) or []

    @property
    def content_width(self) -> int:
        return content_width(self.gutter, self.width)


def content_width(gutter: int, width: int) -> int:
    """The cells a line's text has on each row, right of the gutter and its mark."""
    return max(10, width - gutter - len(LINE_MARK))


def forms_as_shown(secrets: SecretForms) -> SecretForms:
    """`secrets` with each form also as the view shows it, its invisible characters
    written out (`<U+1A000>`): a line is shortened where it is shown, and there the
    form as stored no longer occurs, so a cut could split the secret. (Nothing else of a
    secret is written out: `SecretPositions`.)"""
    shown = {"".join(part for part, _ in reveal_controls(form)) for form in secrets.forms}
    added = shown - set(secrets.forms)
    if not added:
        return secrets
    return SecretForms(
        (*secrets.forms, *added), secrets.percent_forms, secrets.values, secrets.public_stretches
    )


class SecretPositions(Mapping[int, frozenset[int]]):
    """Per line of `raw_lines`, the positions inside an occurrence of one of `secrets`
    (any form, a URL's percent spellings too): there a combining mark or a same-looking
    change is drawn as it is, not written out, so the view shows the secret as a form its
    cuts know. Found when a line is laid out: only the lines a view shows cost a search."""

    def __init__(self, raw_lines: Sequence[str], secrets: SecretForms) -> None:
        self._raw_lines = raw_lines
        self._secrets = secrets

    def __getitem__(self, index: int) -> frozenset[int]:
        line = self._raw_lines[index]
        if line.isascii():  # (nothing but controls is written out of ASCII)
            return NO_POSITIONS
        spans = self._secrets.occurrences(line, 0, len(line))
        return frozenset(at for start, end in spans for at in range(start, end))

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self._raw_lines)))

    def __len__(self) -> int:
        return len(self._raw_lines)


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
    more = "every line" if lists_every_line else f"every line, {FULL_VIEW_PAGE_LINES:,} at a time"
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
    """A line over `MAX_LINE_ROWS` rows keeps its start and end, the middle counted. A
    changed diff line that differs from its counterpart (`line_counterparts`) past its
    start also keeps a window around each place where it differs, as many as fit in
    `layout.changed_line_rows` rows (at least one); a counted gap that still holds a
    difference says so (`CHANGED_GAP_NOTE`), so two lines that differ are never drawn
    the same."""
    if layout.rows(line) <= MAX_LINE_ROWS:
        return line
    plain, secrets, row = line.text.plain, layout.secrets, layout.content_width
    tail_start = safe_tail_start(plain, len(plain) - row + 10, secrets)
    spans = layout.changes(line)
    head_end = safe_head_end(plain, row * 2, secrets)
    if not any(end > head_end and start < tail_start for start, end in spans):
        kept = [(0, head_end), (tail_start, len(plain))]
        return _with_text(line, _kept_parts(line.text, kept, spans))
    shortened = line
    for windows in range(max(layout.changed_line_rows - 2, 1), 0, -1):
        kept = _change_windows(plain, spans, (row, windows, tail_start), secrets)
        shortened = _with_text(line, _kept_parts(line.text, kept, spans))
        if layout.rows(shortened) <= layout.changed_line_rows:
            break
    return shortened


def _change_windows(
    plain: str, spans: list[Span], shape: tuple[int, int, int], secrets: SecretForms
) -> list[tuple[int, int]]:
    """The parts of `plain` to keep (start, end; in order): its first row, a window of
    about half a row around the start of each of `spans` not yet in view (`windows` at
    most; `shape` is (row, windows, tail_start)), and its end from `tail_start`."""
    row, windows, tail_start = shape
    room = max(row - 40, row // 2, 12)  # a row less the two gap notes
    kept = [(0, safe_head_end(plain, row, secrets))]
    for start, _ in spans:
        if len(kept) > windows or start >= tail_start:
            break
        if start < kept[-1][1]:  # its start is in view already
            continue
        around = safe_tail_start(plain, max(start - room // 3, kept[-1][1]), secrets)
        kept.append((around, max(safe_head_end(plain, around + room, secrets), around)))
    kept.append((max(tail_start, kept[-1][1]), len(plain)))
    return kept


def _with_text(line: NumberedLine, text: Text) -> NumberedLine:
    return NumberedLine(line.first, line.last, "", line.kind, text)


def _kept_parts(text: Text, kept: list[tuple[int, int]], spans: Sequence[Span] = ()) -> Text:
    """`text`'s parts `kept` (start, end; in order), each gap between them counted; a gap
    that holds part of one of `spans` (where the line differs from its counterpart)
    says so, in a style of its own."""
    shown, position = Text(), 0
    for start, end in kept:
        if end <= position:
            continue
        if start > position:
            shown.append_text(_gap(start - position, _overlaps(spans, position, start)))
        shown.append_text(text[max(start, position) : end])
        position = end
    return shown


def _gap(count: int, changed: bool) -> Text:
    if changed:
        return Text(f" ⟨{count:,} {CHANGED_GAP_NOTE}⟩ ", style=CHANGED_GAP_STYLE)
    return Text(f" ⟨{count:,} characters not shown⟩ ", style=NOTE_STYLE)


def _overlaps(spans: Sequence[Span], start: int, end: int) -> bool:
    return any(span_start < end and span_end > start for span_start, span_end in spans)


def line_rows(line: NumberedLine, width: int) -> list[Text]:
    """The rows `line` takes `width` cells wide: what is approved folded (`fold_rows`),
    a note of the view's own (no line number) wrapped at its words."""
    if line.first < 0:
        return list(line.text.wrap(_MEASURING_CONSOLE, width, overflow="fold"))
    return fold_rows(line.text, width)


def fold_rows(text: Text, width: int, first_width: int | None = None) -> list[Text]:
    """`text` (one line) cut into rows of `width` cells (the first `first_width` when
    given) wherever the cells run out, not at spaces: a word wrap drops the space where
    it breaks, and `rm -rf ./b… /` then reads as `rm -rf ./b…/`. A space that ends a row
    or starts the next one is drawn as `TRAILING_SPACE`, since a blank cell there cannot
    be told from none."""
    plain, offsets, cells = text.plain, [], 0
    room = width if first_width is None else first_width
    for index, character in enumerate(plain):
        size = cell_len(character)
        if cells and cells + size > room:
            offsets.append(index)
            cells, room = 0, width
        cells += size
    if not offsets:
        return [text]
    rows = list(text.divide(offsets))
    for index in range(len(rows) - 1):
        rows[index] = _edge_space_shown(rows[index], at_end=True)
        rows[index + 1] = _edge_space_shown(rows[index + 1], at_end=False)
    return rows


def _edge_space_shown(row: Text, at_end: bool) -> Text:
    """`row` with a space at its end (or start) drawn as `TRAILING_SPACE`."""
    plain = row.plain
    if not plain or plain[-1 if at_end else 0] != " ":
        return row
    if at_end:
        shown = row[:-1]
        shown.append(TRAILING_SPACE, style=TAB_STYLE)
        return shown
    shown = Text(style=row.style)  # the row's own style, not the mark's, for the rest
    shown.append(TRAILING_SPACE, style=TAB_STYLE)
    shown.append_text(row[1:])
    return shown


def _framed(line: NumberedLine, gutter: int, width: int) -> Text:
    """`line` behind its number, on rows of `width` cells (`fold_rows`): the rows after
    the first behind a blank gutter and `CONTINUED_MARK`, so no row that goes on starts
    where a number does."""
    rows = line_rows(line, content_width(gutter, width))
    framed = Text()
    for index, row in enumerate(rows):
        if index:
            framed.append("\n")
        mark = line.label.rjust(gutter) + LINE_MARK if index == 0 else " " * gutter + CONTINUED_MARK
        framed.append(mark, style="dim")
        framed.append_text(row)
    return framed
