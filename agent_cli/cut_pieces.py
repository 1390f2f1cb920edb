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
(fewer are what a coincidence gives, and tell little of a secret of at least
`MIN_SECRET_CHARS`); a middle piece, a run of `secret_pieces.MIDDLE_RUN_CHARS` on one
line. A whole occurrence is the redactor's: redact first, then hide pieces.
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
    """Text between two edges: [start, end), and whether a cut is on either side."""

    start: int
    end: int
    cut_before: bool
    cut_after: bool


def hide_cut_pieces(text: str, secrets: SecretForms) -> tuple[str, int]:
    """`text` with the pieces at its cut edges hidden, and how many (module contract)."""
    if not secrets or not text:
        return text, 0
    hidden: list[tuple[int, int]] = []
    for stretch in _stretches(text):
        hidden.extend(_pieces_in(text, stretch, secrets))
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
    """The text between consecutive edges (module contract), in order."""
    header_end = text.find("\n")
    edges: list[tuple[int, int]] = [] if header_end < 0 else [(header_end, header_end + 1)]
    edges += [_with_its_space(text, found.start(), found.end()) for found in _MARKS.finditer(text)]
    edges.sort()
    stretches, position, cut_before = [], 0, False
    for start, end in edges:
        if start >= position:
            stretches.append(_Stretch(position, start, cut_before, True))
        position, cut_before = max(position, end), True
    stretches.append(_Stretch(position, len(text), cut_before, True))
    return [stretch for stretch in stretches if stretch.end > stretch.start]


def _with_its_space(text: str, start: int, end: int) -> tuple[int, int]:
    """A mark's span with what belongs to it: the blank grep writes before `[...]`, the
    line breaks around a note line."""
    if text[start] == "…":
        return start, end
    if end - start == len("[...]") and text[start:end] == "[...]":
        return (start - 1 if text.endswith(" ", 0, start) else start), end
    before = start - len("\r\n" if text.endswith("\r\n", 0, start) else "\n"[:start])
    return before, end + (1 if text.startswith("\n", end) else 0)


def _pieces_in(text: str, stretch: _Stretch, secrets: SecretForms) -> list[tuple[int, int]]:
    """The spans of `stretch` to hide: all of it when it may lie inside one occurrence,
    else a piece at either cut."""
    part = text[stretch.start : stretch.end]
    if stretch.cut_before and stretch.cut_after and secrets.is_middle_piece(part):
        return [(stretch.start, stretch.end)]
    spans: list[tuple[int, int]] = []
    if stretch.cut_before:
        end = secrets.closed_match_end(part, MIN_PIECE_CHARS)
        if end is not None:
            spans.append((stretch.start, stretch.start + end))
    if stretch.cut_after:
        start = secrets.open_match_start(part, MIN_PIECE_CHARS)
        if start is not None:
            start = max(stretch.start + start, spans[-1][1] if spans else 0)
            spans.append((start, stretch.end))
    return [(start, end) for start, end in spans if end > start]
