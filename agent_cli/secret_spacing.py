"""A token-like secret cut into pieces with something put between them. Pure: no I/O.

Why: a command can show a token in pieces at regular intervals, each piece short of a
run (`agent_cli.secret_runs`) and the whole no form: `sed 's/.\\{8\\}/& /g'` (groups of
8), a JSON list of 10-character pieces, `split -b 12` read back
with `tail -n +1 p_*` (the pieces behind `==> p_ab <==` headers). A reader joins them.

Contract: `SpacedFinder(values)` knows the values that have runs (`run_least`).
`spans(text, pos, endpos)` gives, in order and merged where they overlap, each stretch
of `text[pos:endpos]` that holds at least `run_least(value)` of a value's characters in
order, in pieces of at least `PIECE_CHARS` characters with 1 to `GAP_CHARS` other
characters between two pieces (a blank, a `-`, `", "`, a line break and a file's
header). Each piece holds its value's next characters; what stands between is anything.
Each stretch is at most `longest_span` characters long. Found from a few characters
every few of a value (`_TILE_CHARS`, one literal regex), grown both ways.

Not found: shorter pieces (`sed 's/.\\{4\\}/&-/g'`, `fold -w5 | tr '\\n' ' '`): a
search for every 4 characters of a value costs about a third more than all other
redaction of ordinary text, and 4 characters every 4 (pieces of 7) half as much. A piece
shorter than `PIECE_CHARS` after a gap (a value's first or last few characters, cut off
by the layout) is not joined and stays: so few characters tell nothing, and one of them
stands within `GAP_CHARS` of almost any text. `od -c`'s one character at a time is a
form (`secret_forms`), not this.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from agent_cli.literal_trie import trie_pattern
from agent_cli.secret_runs import merged_spans, run_least

PIECE_CHARS = 7
GAP_CHARS = 24
# Every piece holds a whole tile: the value is tiled at every `_TILE_CHARS`-th character,
# and a piece of `2 * _TILE_CHARS - 1` characters holds one wherever it begins.
_TILE_CHARS = (PIECE_CHARS + 1) // 2


class SpacedFinder:
    """Finds a value's pieces spaced out (module contract)."""

    def __init__(self, values: Iterable[str]) -> None:
        self._places: dict[str, list[tuple[str, int, int]]] = {}  # tile: (value, at, least)
        longest = 0
        for value in values:
            least = run_least(value)
            if least is None:
                continue
            longest = max(longest, len(value))
            for at in range(0, len(value) - _TILE_CHARS + 1, _TILE_CHARS):
                tile = value[at : at + _TILE_CHARS]
                self._places.setdefault(tile, []).append((value, at, least))
        pieces = sorted(self._places)
        self._pieces = (
            re.compile(trie_pattern([[re.escape(c) for c in piece] for piece in pieces]))
            if pieces
            else None
        )
        # a gap before each piece but the first, which holds `PIECE_CHARS` characters at least
        self.longest_span = longest + (longest // PIECE_CHARS + 2) * GAP_CHARS if longest else 0

    def __bool__(self) -> bool:
        return self._pieces is not None

    def spans(self, text: str, pos: int = 0, endpos: int = 1 << 62) -> Iterator[tuple[int, int]]:
        """The spaced-out values in `text[pos:endpos]` (module contract), in order."""
        if self._pieces is None:
            return
        pos, endpos = max(pos, 0), min(endpos, len(text))
        found: list[tuple[int, int]] = []
        at = pos
        while (hit := self._pieces.search(text, at, endpos)) is not None:
            at = hit.start() + 1
            for value, offset, least in self._places[hit.group()]:
                start, first = _stretch_back(text, hit.start(), value, offset, pos)
                end, last = _stretch(text, hit.end(), value, offset + _TILE_CHARS, endpos)
                if last - first < PIECE_CHARS:
                    continue  # the tile's own piece is too short to join others
                start, first = _grow_back(text, start, value, first, pos)
                end, last = _grow(text, end, value, last, endpos)
                if last - first >= least:
                    found.append((start, end))
                    at = max(at, end)  # the pieces inside it find the same
        yield from merged_spans(iter(sorted(found)))


def _stretch(text: str, at: int, value: str, index: int, endpos: int) -> tuple[int, int]:
    """How far `value[index:]` goes on right after `text[:at]`, with no gap."""
    while at < endpos and index < len(value) and text[at] == value[index]:
        at, index = at + 1, index + 1
    return at, index


def _stretch_back(text: str, at: int, value: str, index: int, pos: int) -> tuple[int, int]:
    """`_stretch` towards the start: where `value[:index]` ends right before `text[at:]`."""
    while at > pos and index > 0 and text[at - 1] == value[index - 1]:
        at, index = at - 1, index - 1
    return at, index


def _grow(text: str, at: int, value: str, index: int, endpos: int) -> tuple[int, int]:
    """How far `value[index:]` goes on after `text[:at]` in pieces (module contract):
    the end in `text`, and in `value`."""
    while index < len(value):
        at, index = _stretch(text, at, value, index, endpos)
        if len(value) - index < PIECE_CHARS:
            break
        piece = value[index : index + PIECE_CHARS]
        found = text.find(piece, at + 1, min(endpos, at + GAP_CHARS + PIECE_CHARS))
        if found < 0:
            break
        at, index = found + PIECE_CHARS, index + PIECE_CHARS
    return at, index


def _grow_back(text: str, at: int, value: str, index: int, pos: int) -> tuple[int, int]:
    """`_grow` towards the start: where `value[:index]`'s pieces before `text[at:]` begin,
    in `text` and in `value`."""
    while index > 0:
        at, index = _stretch_back(text, at, value, index, pos)
        if index < PIECE_CHARS:
            break
        piece = value[index - PIECE_CHARS : index]
        low = max(pos, at - GAP_CHARS - PIECE_CHARS)
        found = text.rfind(piece, low, at - 1) if at - 1 - PIECE_CHARS >= low else -1
        if found < 0:
            break
        at, index = found, index - PIECE_CHARS
    return at, index
