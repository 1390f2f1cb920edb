"""Where two lines differ: the spans of each that one match of the two leaves unpaired.

Why: an approval shortens a long diff line to its start and end, and showed the row where
it first differs from its counterpart. A 6,000-character line that changed `var a=1` at
its start and `good.example` -> `evil.example` in its middle showed the first change
only: the second was folded into `⟨5,704 characters not shown⟩` (session 26). The view
must know every place where the two lines differ, not the first one.

Contract: `changed_spans(old, new)` is a list of pairs `(span of old, span of new)`, each
span `(start, end)`, in order, apart and not touching on either side, such that the
pieces of `old` between its spans are, one for one, the pieces of `new` between its
spans: outside the spans the two lines read the same, and a reader who takes the hidden
text between spans as the same on both sides is right. Where one line has characters the
other lacks, both spans take in the characters on either side of that place (so a
window showing the span shows the place), and so no span of a line that has characters
is empty. Equal lines give `[]`.
Found by: the common start and end, then the middle's words, runs of spaces and single
signs matched by `tools.line_matcher.LineMatcher` (time that grows with the length, not
its square), each unmatched stretch narrowed to where its characters differ. A middle
longer than `MATCHED_CHARS_MAX` on either side is one span, from the first difference to
the last (matching 400,000 characters took about 2 s, and a view shows a few places of a
line at most: the others are counted as changed). A span may take in more characters
than differ (the match of words is not always the closest one), never fewer.
`shared_head(one, two)` and `shared_tail(one, two)`: how many characters two texts share
at their start, and at their end. Pure.
"""

from __future__ import annotations

import re
from itertools import accumulate

from agent_cli.tools.line_matcher import LineMatcher

Span = tuple[int, int]
SpanPair = tuple[Span, Span]  # (in old, in new)
MATCHED_CHARS_MAX = 50_000
_PIECE = re.compile(r"\w+|\s+|[^\w\s]")


def changed_spans(old: str, new: str) -> list[SpanPair]:
    """The spans where `old` and `new` differ, paired (module contract)."""
    if old == new:
        return []
    head = shared_head(old, new)
    tail = shared_tail(old[head:], new[head:])
    old_middle, new_middle = old[head : len(old) - tail], new[head : len(new) - tail]
    pairs = [
        ((head + a, head + b), (head + c, head + d))
        for (a, b), (c, d) in _middle_spans(old_middle, new_middle)
    ]
    return _joined([_widened(pair, len(old), len(new)) for pair in pairs])


def _middle_spans(old: str, new: str) -> list[SpanPair]:
    """The paired spans of `old` and `new` that differ, where the two share no start or
    end; a place where one has characters and the other none is a span of no characters
    on that side."""
    if not old or not new or max(len(old), len(new)) > MATCHED_CHARS_MAX:
        return [((0, len(old)), (0, len(new)))]
    old_starts, old_pieces = _pieces(old)
    new_starts, new_pieces = _pieces(new)
    pairs: list[SpanPair] = []
    for tag, i1, i2, j1, j2 in LineMatcher(old_pieces, new_pieces).get_opcodes():
        if tag == "equal":
            continue
        old_start, old_end = old_starts[i1], old_starts[i2]
        new_start, new_end = new_starts[j1], new_starts[j2]
        head = shared_head(old[old_start:old_end], new[new_start:new_end])
        tail = shared_tail(old[old_start + head : old_end], new[new_start + head : new_end])
        pairs.append(((old_start + head, old_end - tail), (new_start + head, new_end - tail)))
    return pairs


def _pieces(text: str) -> tuple[list[int], list[str]]:
    """`text` cut into words, runs of blanks and single signs; with the start of each,
    and `len(text)` after the last."""
    pieces = _PIECE.findall(text)
    return list(accumulate(map(len, pieces), initial=0)), pieces


def _widened(pair: SpanPair, old_length: int, new_length: int) -> SpanPair:
    """A pair where one side has no characters, with the character before and the one
    after it on both sides (they are equal, paired characters): so that a window that
    shows either span shows the place."""
    (a, b), (c, d) = pair
    if a < b and c < d:
        return pair
    before = 1 if a > 0 else 0  # (a > 0 exactly when c > 0: what precedes is paired)
    after = 1 if b < old_length else 0
    return (a - before, b + after), (c - before, d + after)


def _joined(pairs: list[SpanPair]) -> list[SpanPair]:
    """`pairs` in order with those that overlap or touch made one. (What lies between two
    pairs is paired characters, as many on each side, so they touch on both or neither.)"""
    joined: list[SpanPair] = []
    for (a, b), (c, d) in pairs:
        if joined and a <= joined[-1][0][1]:
            (last_a, last_b), (last_c, last_d) = joined.pop()
            joined.append(((last_a, max(last_b, b)), (last_c, max(last_d, d))))
        else:
            joined.append(((a, b), (c, d)))
    return joined


def shared_head(one: str, two: str) -> int:
    """How many characters `one` and `two` share from their start (halving the slices
    compared: C speed, without a loop over each character)."""
    low, high = 0, min(len(one), len(two))
    while low < high:
        middle = (low + high + 1) // 2
        if one[low:middle] == two[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def shared_tail(one: str, two: str) -> int:
    """How many characters `one` and `two` share at their end."""
    return shared_head(one[::-1], two[::-1])
