"""Changed lines of a diff that draw exactly like the lines they replace.

Why: an edit that replaced `café` (U+00E9) with `cafe` + U+0301 showed `-name = café`
and `+name = café`, the same on screen and nothing to say the file changes. Text that
Unicode counts as the same (canonically equivalent: equal after NFC) is drawn the same
by a terminal, so the view cannot show such a change by drawing it; it writes the
characters that differ out instead (`caf<U+00E9>`, `cafe<U+0301>`) and the header says
so. (Other invisible differences are written out everywhere already: controls, zero
widths, variation selectors by `written_out`; stray combining marks by
`combining_marks`. Look-alikes of other letters are marked by `lookalikes`.)

Contract: `same_looking_changes(diff_lines)` maps the index of each `-` or `+` line of
a unified diff (as `tools.approval` builds it) that draws the same as a line of the
other sign in the same change, though it differs, to the positions in it to write
out: the non-ASCII characters and marks of the part where the two differ (their common
start and end left as they are). Lines of no such pair are not in it. Pure.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

_CHANGE_SIGNS = ("-", "+", "\\")


def same_looking_changes(diff_lines: Sequence[str]) -> dict[int, frozenset[int]]:
    """See the module contract. Time linear in the diff's length: lines are matched by
    their NFC form within each change, not compared pairwise."""
    found: dict[int, frozenset[int]] = {}
    index = 2  # after the `---` and `+++` lines
    while index < len(diff_lines):
        if diff_lines[index][:1] not in ("-", "+"):
            index += 1
            continue
        end = index
        while end < len(diff_lines) and diff_lines[end][:1] in _CHANGE_SIGNS:
            end += 1
        found.update(_pairs_in_change(diff_lines, range(index, end)))
        index = end
    return found


def _pairs_in_change(diff_lines: Sequence[str], change: range) -> dict[int, frozenset[int]]:
    removed: dict[str, int] = {}
    for at in change:
        line = diff_lines[at]
        if line[:1] == "-" and not line.isascii():
            removed.setdefault(unicodedata.normalize("NFC", line[1:]), at)
    found: dict[int, frozenset[int]] = {}
    for at in change:
        line = diff_lines[at]
        if line[:1] != "+" or line.isascii():
            continue
        other = removed.get(unicodedata.normalize("NFC", line[1:]))
        if other is None or diff_lines[other][1:] == line[1:]:
            continue
        old, new = _differing_positions(diff_lines[other], line)
        found[other], found[at] = found.get(other, frozenset()) | old, new
    return found


def _differing_positions(removed: str, added: str) -> tuple[frozenset[int], frozenset[int]]:
    """The positions, in each line (sign included), of the non-ASCII characters in the
    part between the two lines' common start and common end."""
    start = 1
    while start < min(len(removed), len(added)) and removed[start] == added[start]:
        start += 1
    end = 0  # how many characters both end with, not reaching back into `start`
    while (
        end < min(len(removed), len(added)) - start
        and removed[len(removed) - 1 - end] == added[len(added) - 1 - end]
    ):
        end += 1

    def non_ascii(line: str) -> frozenset[int]:
        return frozenset(at for at in range(start, len(line) - end) if not line[at].isascii())

    return non_ascii(removed), non_ascii(added)
