"""Which lines of two texts are the same, in time that grows with their length, not its square.

Contract: `LineMatcher(old, new)` is a `difflib.SequenceMatcher` over two lists of lines whose
`get_matching_blocks` (and so `get_opcodes`, `get_grouped_opcodes`) always describes a true
change from `old` to `new`: every block pairs equal lines, blocks rise in both lists and do not
touch, and the list ends with the sentinel `(len(old), len(new), 0)`.

Where both lists are short (`DIRECT_CELLS` or fewer line pairs) it is difflib's own answer. A
longer pair is split first: the common head and tail are matched, then the lines that occur
exactly once on each side, taken in an order that rises on both (patience anchors), and each
stretch between anchors is split the same way. A stretch left without anchors is given to
difflib in windows; and once the lines counted for anchors reach `ANCHOR_WORK_FACTOR` times
both texts' lines (anchors that each split off a line or two), every stretch left goes to
the windows too. A window may mark more lines changed than need be, never fewer.

Why: difflib's matcher finds one longest match at a time and scans the whole rest of the
texts for the next, so a change every few lines of a long file cost time in the square of its
length (20,000 lines with every seventh changed: 19 s; 60,000: 99 s) before the user was even
asked, and `--yes` paid it too.
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence

# Up to this many line pairs (old lines x new lines) a stretch is left to difflib (~0.2 s at most).
DIRECT_CELLS = 4_000_000
WINDOW_LINES = 300  # a stretch without anchors is matched in windows of this many lines
# Lines counted for anchors, in all, at most this many times the lines of both texts; then
# every stretch left goes to the windows (texts whose anchors each split off one line).
ANCHOR_WORK_FACTOR = 4
Block = tuple[int, int, int]  # (start in old, start in new, length)


class LineMatcher(difflib.SequenceMatcher[str]):
    """`difflib.SequenceMatcher(None, old, new)` with bounded matching (module contract)."""

    def __init__(self, old: Sequence[str], new: Sequence[str]) -> None:
        super().__init__(None, old, new)
        self._old, self._new = old, new
        self._blocks: list[difflib.Match] | None = None

    def get_matching_blocks(self) -> list[difflib.Match]:
        if len(self._old) * len(self._new) <= DIRECT_CELLS:
            return super().get_matching_blocks()
        if self._blocks is None:
            blocks = _merged(_match(self._old, self._new))
            end = difflib.Match(len(self._old), len(self._new), 0)
            self._blocks = [difflib.Match(*block) for block in blocks] + [end]
        return self._blocks


def _match(old: Sequence[str], new: Sequence[str]) -> list[Block]:
    """The matching blocks of `old` and `new` in order, touching blocks not yet merged."""
    blocks: list[Block] = []
    stretches = [(0, len(old), 0, len(new))]  # a stack: the newest stretch is matched first
    left_to_count = ANCHOR_WORK_FACTOR * (len(old) + len(new))
    while stretches:
        a_lo, a_hi, b_lo, b_hi = stretches.pop()
        head = _common_run(old, new, a_lo, a_hi, b_lo, b_hi, 1)
        tail = _common_run(old, new, a_hi - 1, a_lo + head - 1, b_hi - 1, b_lo + head - 1, -1)
        if head:
            blocks.append((a_lo, b_lo, head))
        if tail:
            blocks.append((a_hi - tail, b_hi - tail, tail))
        a_lo, b_lo, a_hi, b_hi = a_lo + head, b_lo + head, a_hi - tail, b_hi - tail
        if a_lo == a_hi or b_lo == b_hi:
            continue
        left_to_count -= (a_hi - a_lo) + (b_hi - b_lo)
        anchors = _anchors(old, new, a_lo, a_hi, b_lo, b_hi) if left_to_count >= 0 else []
        if anchors:
            edges = [(a_lo - 1, b_lo - 1), *anchors, (a_hi, b_hi)]
            blocks += [(i, j, 1) for i, j in anchors]
            stretches += [
                (i + 1, next_i, j + 1, next_j)
                for (i, j), (next_i, next_j) in zip(edges, edges[1:], strict=False)
            ]
        else:
            blocks += _windowed(old, new, a_lo, a_hi, b_lo, b_hi)
    return sorted(blocks)


def _windowed(
    old: Sequence[str], new: Sequence[str], a_lo: int, a_hi: int, b_lo: int, b_hi: int
) -> list[Block]:
    """difflib's blocks for a stretch without anchors, matched in windows of at most
    `WINDOW_LINES` old lines against the new lines at the same share of the stretch."""
    windows = max(1, -(-max(a_hi - a_lo, b_hi - b_lo) // WINDOW_LINES))
    a_cuts = [a_lo + (a_hi - a_lo) * k // windows for k in range(windows + 1)]
    b_cuts = [b_lo + (b_hi - b_lo) * k // windows for k in range(windows + 1)]
    blocks: list[Block] = []
    for k in range(windows):
        a_at, b_at = a_cuts[k], b_cuts[k]
        matcher = difflib.SequenceMatcher(
            None, old[a_at : a_cuts[k + 1]], new[b_at : b_cuts[k + 1]]
        )
        blocks += [(a_at + i, b_at + j, n) for i, j, n in matcher.get_matching_blocks() if n]
    return blocks


def _common_run(
    old: Sequence[str], new: Sequence[str], i: int, i_stop: int, j: int, j_stop: int, step: int
) -> int:
    """How many lines are equal walking from `old[i]` and `new[j]` by `step`, before either
    reaches its stop."""
    run = 0
    while i != i_stop and j != j_stop and old[i] == new[j]:
        i, j, run = i + step, j + step, run + 1
    return run


def _anchors(
    old: Sequence[str], new: Sequence[str], a_lo: int, a_hi: int, b_lo: int, b_hi: int
) -> list[tuple[int, int]]:
    """Pairs (i, j) of lines that occur once in `old[a_lo:a_hi]` and once in `new[b_lo:b_hi]`,
    the longest chain of them rising in both."""
    in_old, in_new = Counter(old[a_lo:a_hi]), Counter(new[b_lo:b_hi])
    where_new = {new[j]: j for j in range(b_lo, b_hi) if in_new[new[j]] == 1}
    pairs = [
        (i, where_new[old[i]])
        for i in range(a_lo, a_hi)
        if in_old[old[i]] == 1 and old[i] in where_new
    ]
    return _rising_chain(pairs)


def _rising_chain(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of `pairs` (rising in their first item) whose second items
    rise too (patience sorting)."""
    tops: list[int] = []  # the smallest second item ending a chain of each length
    ends: list[int] = []  # the index in `pairs` of that chain's last pair
    before: list[int] = []  # for each pair, the index of the pair before it in its chain
    for index, (_, j) in enumerate(pairs):
        length = bisect_left(tops, j)
        before.append(ends[length - 1] if length else -1)
        if length == len(tops):
            tops.append(j)
            ends.append(index)
        else:
            tops[length], ends[length] = j, index
    chain, at = [], ends[-1] if ends else -1
    while at != -1:
        chain.append(pairs[at])
        at = before[at]
    return chain[::-1]


def _merged(blocks: list[Block]) -> list[Block]:
    """`blocks` with each block that ends where the next starts joined to it."""
    merged: list[Block] = []
    for i, j, size in blocks:
        if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
            last = merged.pop()
            merged.append((last[0], last[1], last[2] + size))
        else:
            merged.append((i, j, size))
    return merged
