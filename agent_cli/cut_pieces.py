"""Pieces of a secret left where text recorded before it was known was cut. Pure.

Why: every cut agent-cli makes keeps no piece of a secret it knows (`safe_cuts`). A value
named a secret only later (`AGENT_CLI_SECRET_NAMES=... agent-cli --continue`) may have
been cut by an earlier session: a spill preview's head or tail, L1's head and tail,
grep's 300-character lines, a page of `recall`, a range of `read_artifact`, a window of
`read_file`, a command stopped by its cap. What is left of it there is no whole form, so
redaction does not find it, and it would be sent with every request of the resumed
session.

Contract: `hide_cut_pieces(text, secrets)` gives `text` with each piece of a form of
`secrets` that stands at a cut edge replaced by `REDACTED_MARK`, and how many. The edges
are where agent-cli's own marks say text was left out or goes on elsewhere:
- a note line, one bracketed note alone on its line (`[... 41,000 bytes omitted ...]`,
  `[... characters cut by context compaction ...]`, `[more follows ...]`, `[lines 9-40
  not shown ...]`, a cap's or a timeout's note): the text before it ends at a cut and the
  text after it begins at one;
- an inline mark, `…` or `[...]` (a blank before it belongs to it): the same;
- the end of the first line (a tool result's header: a page, a range, a window begins
  after it) begins a cut text, and the end of the text ends one (a stopped command).
The same rule as the live cuts (`safe_cuts`, `SecretForms.open_match_start`): before an
edge, an ending that may be the start of an occurrence is hidden; after one, a beginning
that may be the end of one; and text between two edges that may lie wholly inside one
(a window in the middle of a key) is hidden whole. Line gaps count (`secret_pieces`), so
a key's lines behind `read_file`'s gutter are one piece. So that an edge that was no cut
keeps its ordinary text (a word's last letters, a hex digest, a row of dashes before a
note), a piece at an edge must hold at least `MIN_PIECE_CHARS` of a form's characters
(a middle piece, a run of that many on one line): fewer are what a coincidence gives,
and tell little of a secret of at least `MIN_SECRET_CHARS`. Pieces are looked for in
the text as recorded, before it is redacted (redacting first could split one: a whole
occurrence of another form inside it becomes the mark, and what is left is no longer at
the cut), and a piece and every whole occurrence it touches become one mark; the other
whole occurrences are the redactor's, after.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent_cli.secret_forms import REDACTED_MARK, SecretForms

MIN_PIECE_CHARS = 6
# A note line alone on its line (not a lone `[REDACTED]`), or an inline cut mark. Each
# alternative begins with a literal character, which keeps the scan fast.
_MARKS = re.compile(r"\[(?:\.\.\.\]|(?<![^\n]\[)(?!REDACTED\]\r?$)[^\n]*\]\r?$)|…", re.MULTILINE)


@dataclass(frozen=True)
class _Stretch:
    """Text between two marks (or the text's start or end): [start, end); `cut_from` is
    where a cut text may begin in it (its start after a mark; after a result's header
    line in the first stretch; None: nowhere). Every stretch ends at a cut: a mark or
    the text's end."""

    start: int
    end: int
    cut_from: int | None


def hide_cut_pieces(text: str, secrets: SecretForms) -> tuple[str, int]:
    """`text` with the pieces at its cut edges hidden, and how many (module contract)."""
    if not secrets or not text:
        return text, 0
    hidden: list[tuple[int, int]] = []
    for stretch in _stretches(text):
        for span in _pieces_in(text, stretch, secrets):
            start, end = _with_what_it_touches(text, span, secrets)
            while hidden and start <= hidden[-1][1]:  # merged with what it reaches back to
                previous_start, previous_end = hidden.pop()
                start, end = min(start, previous_start), max(end, previous_end)
            hidden.append((start, end))
    if not hidden:
        return text, 0
    pieces: list[str] = []
    position = 0
    for start, end in hidden:
        pieces.extend((text[position:start], REDACTED_MARK))
        position = end
    pieces.append(text[position:])
    return "".join(pieces), len(hidden)


def _stretches(text: str) -> list[_Stretch]:
    """The text between consecutive marks (module contract), in order."""
    marks = sorted(
        _with_its_space(text, found.start(), found.end()) for found in _MARKS.finditer(text)
    )
    stretches, position, cut_from = [], 0, None
    header_end = text.find("\n")
    if header_end >= 0 and (not marks or header_end < marks[0][0]):
        cut_from = header_end + 1  # a page, a range or a window begins after the header
    for start, end in marks:
        if start >= position:
            stretches.append(_Stretch(position, start, cut_from))
        position = max(position, end)
        cut_from = position
    stretches.append(_Stretch(position, len(text), cut_from))
    return [stretch for stretch in stretches if stretch.end > stretch.start]


def _with_its_space(text: str, start: int, end: int) -> tuple[int, int]:
    """A mark's span with what belongs to it: the blank grep writes before `[...]`, the
    line breaks around a note line."""
    if text[start] == "…":
        return start, end
    if end - start == len("[...]") and text[start:end] == "[...]":
        return (start - 1 if text.endswith(" ", 0, start) else start), end
    if text.endswith("\r\n", 0, start):
        start -= 2
    elif text.endswith("\n", 0, start):
        start -= 1
    return start, end + (1 if text.startswith("\n", end) else 0)


def _with_what_it_touches(
    text: str, span: tuple[int, int], secrets: SecretForms
) -> tuple[int, int]:
    """`span` widened over every whole occurrence that overlaps it: a piece may begin or
    end inside one, whose other part would be left whole-less."""
    start, end = span
    while True:
        low = start - secrets.longest_match
        touching = [(a, b) for a, b in secrets.occurrences(text, low, end) if b > start]
        wider = (min([start, *(a for a, _ in touching)]), max([end, *(b for _, b in touching)]))
        if wider == (start, end):
            return wider
        start, end = wider


def _pieces_in(text: str, stretch: _Stretch, secrets: SecretForms) -> list[tuple[int, int]]:
    """The spans of `stretch` to hide: a piece at its end (an ending that may start an
    occurrence), all of it from where a cut text begins when that may lie inside one,
    else a piece at that beginning (a beginning that may end one)."""
    begin, end = stretch.cut_from, stretch.end
    opened = secrets.open_match_start(text[stretch.start : end], MIN_PIECE_CHARS)
    open_from = None if opened is None else stretch.start + opened
    if begin is not None and secrets.is_middle_piece(text[begin:end], MIN_PIECE_CHARS):
        return [(begin if open_from is None else min(begin, open_from), end)]
    spans: list[tuple[int, int]] = []
    if begin is not None:
        closed = secrets.closed_match_end(text[begin:end], MIN_PIECE_CHARS)
        if closed is not None:
            spans.append((begin, begin + closed))
    if open_from is not None:
        spans.append((max(open_from, spans[-1][1] if spans else 0), end))
    return [(start, stop) for start, stop in spans if stop > start]
