"""Where a diff changes characters into others drawn alike, so the change cannot be seen.

Why: an edit that replaced `café` (U+00E9) with `cafe` + U+0301 showed `-name = café`
and `+name = café`, the same on screen and nothing to say the file changes. Pairing only
lines equal in full after NFC missed the same change beside a visible one (`# v1` into
`# v2`), a swap across a context line (`+café`, ` café`, `-café` reads as no change),
and ANGSTROM SIGN U+212B for `Å`. Text Unicode counts as the same (canonical
equivalence), and look-alikes of ASCII characters drawn in one cell (`lookalikes`), are
drawn the same by a terminal: the view cannot show such a change by drawing it, so it writes the
characters that differ out (`caf<U+00E9>`, `cafe<U+0301>`) and the header says so.

Contract: `same_looking_changes(diff_lines)` maps the index of a `-` or `+` line of a
unified diff (as `tools.approval` builds it) to the positions in it to write out: the
non-ASCII characters of each cluster (a character and the marks on it) that draws like
a cluster of a line of the other sign in the same hunk but differs from it. Found by:
- lines paired whole: a removed and an added line of one hunk, context lines between
  them or not, that draw alike in full (equal after NFC and look-alikes taken as their
  ASCII characters);
- the other lines paired in order within each change (the first `-` with the first
  `+`...): where the two draw alike from their start, and from their end, up to where
  they differ visibly, clusters that differ are written out; the parts between are
  compared below;
- what remains of each changed line (all of a line with no partner): a cluster that NFC
  changes (`e` + U+0301, U+212B) and a cluster drawn as its NFC form on the other side
  (`é`, `Å`) are both written out.
Text the same on both sides is never written out (`café` edited into `café!`); a hunk
whose changed lines are all NFC with no look-alike costs a check per line. Time linear
in the diff's length but for the clusters of lines that hold such characters. Pure.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from agent_cli.lookalikes import ascii_counterparts

# More distinct forms than this in one hunk: only the clusters NFC changes are written
# out (a search for each form's plain spelling would grow with their number).
MAX_SEARCHED_FORMS = 256
_SIGNS = ("-", "+")


@functools.lru_cache(maxsize=1)
def _narrow_counterparts() -> dict[int, str]:
    """`ascii_counterparts` but for two-cell characters (`（`, `Ａ`): a terminal draws
    them twice as wide as the ASCII character, so a change between them shows."""
    wide = ("W", "F")
    return {
        code: character
        for code, character in ascii_counterparts().items()
        if unicodedata.east_asian_width(chr(code)) not in wide
    }


@functools.lru_cache(maxsize=1)
def _lookalike_characters() -> frozenset[str]:
    return frozenset(map(chr, _narrow_counterparts()))


def _draws_as_itself(text: str) -> bool:
    """True when no cluster of `text` draws like another spelling: NFC, no look-alike."""
    if text.isascii():
        return True
    return unicodedata.is_normalized("NFC", text) and _lookalike_characters().isdisjoint(text)


def _drawn(text: str) -> str:
    """How `text` draws, as a key: NFC, look-alikes as their ASCII characters."""
    return unicodedata.normalize("NFC", text).translate(_narrow_counterparts())


def _is_continuing(character: str) -> bool:
    """A character drawn on the one before it: a mark, or a Hangul vowel or final jamo."""
    return unicodedata.category(character)[0] == "M" or "\u1160" <= character <= "\u11ff"


def _clusters(line: str, start: int, end: int) -> list[tuple[int, int]]:
    """The clusters of `line[start:end]` as (start, end) positions."""
    found: list[tuple[int, int]] = []
    for at in range(start, end):
        if found and _is_continuing(line[at]):
            found[-1] = (found[-1][0], at + 1)
        else:
            found.append((at, at + 1))
    return found


@dataclass(eq=False)  # (a key by identity)
class _Side:
    """One sign's lines of a hunk: the parts still to compare, and the positions found."""

    spans: list[tuple[int, int, int]] = field(default_factory=list)  # line, start, end
    marked: dict[int, set[int]] = field(default_factory=dict)

    def mark(self, line: str, at: int, start: int, end: int) -> None:
        positions = (position for position in range(start, end) if not line[position].isascii())
        self.marked.setdefault(at, set()).update(positions)


@dataclass(eq=False)
class _Hunk:
    """A hunk's lines and how each draws (`_drawn` of its text after the sign)."""

    lines: Sequence[str]
    span: range
    drawn: dict[int, str]

    def draws_as_itself(self, at: int) -> bool:
        return self.drawn[at] == self.lines[at][1:]


def same_looking_changes(diff_lines: Sequence[str]) -> dict[int, frozenset[int]]:
    """See the module contract."""
    found: dict[int, frozenset[int]] = {}
    for span in _hunks(diff_lines):
        changed = [at for at in span if diff_lines[at][:1] in _SIGNS]
        if all(_draws_as_itself(diff_lines[at]) for at in changed):
            continue  # (every cluster draws as itself: none can pass for another)
        drawn = {
            at: line[1:] if _draws_as_itself(line) else _drawn(line[1:])
            for at in span
            for line in (diff_lines[at],)
        }
        hunk = _Hunk(diff_lines, span, drawn)
        removed, added, context = _Side(), _Side(), _Side()
        _pair_lines(hunk, removed, added, context)
        _compare_rests(diff_lines, removed, added)
        for side in (removed, added, context):
            found.update((at, frozenset(spots)) for at, spots in side.marked.items() if spots)
    return found


def _hunks(diff_lines: Sequence[str]) -> Iterator[range]:
    """The lines of each hunk, after its `@@` line."""
    start = None
    for at in range(2, len(diff_lines)):
        if diff_lines[at].startswith("@@"):
            if start is not None:
                yield range(start, at)
            start = at + 1
    if start is not None:
        yield range(start, len(diff_lines))


def _pair_lines(hunk: _Hunk, removed: _Side, added: _Side, context: _Side) -> None:
    """Pair the hunk's lines, whole then in order (module contract), and compare each
    pair; what is left of each line goes to its side's `spans`. A changed line drawn
    like a context line (`_context_pairs`) is compared with it, the marks of the context
    line kept in `context`."""
    lines = hunk.lines
    paired = _whole_pairs(hunk)
    for one, two in paired.items():
        _compare_pair(hunk, one, two, removed, added)
    taken = {*paired, *paired.values()}
    for changed, same in _context_pairs(hunk, taken):
        side = removed if lines[changed][0] == "-" else added
        _compare_pair(hunk, changed, same, side, context)
        side.spans.pop()  # (it is paired in its change below, too)
    block: list[int] = []
    for at in [*hunk.span, None]:
        if at is not None and lines[at][:1] in ("-", "+", "\\"):
            block.append(at)
            continue
        ones = [line for line in block if lines[line][0] == "-" and line not in taken]
        twos = [line for line in block if lines[line][0] == "+" and line not in taken]
        for one, two in zip(ones, twos, strict=False):
            _compare_pair(hunk, one, two, removed, added)
        removed.spans += [(line, 1, len(lines[line])) for line in ones[len(twos) :]]
        added.spans += [(line, 1, len(lines[line])) for line in twos[len(ones) :]]
        block = []


def _whole_pairs(hunk: _Hunk) -> dict[int, int]:
    """Removed line to added line, for lines that draw alike in full but differ."""
    lines = hunk.lines
    by_drawing: dict[str, dict[str, list[int]]] = {}
    for at in hunk.span:
        if lines[at][:1] == "-":
            by_drawing.setdefault(hunk.drawn[at], {}).setdefault(lines[at][1:], []).append(at)
    paired: dict[int, int] = {}
    for at in hunk.span:
        if lines[at][:1] != "+":
            continue
        for raw, ones in by_drawing.get(hunk.drawn[at], {}).items():
            if ones and raw != lines[at][1:]:
                paired[ones.pop()] = at
                break
    return paired


def _context_pairs(hunk: _Hunk, taken: set[int]) -> list[tuple[int, int]]:
    """(changed line, context line) for each changed line not `taken` that draws like a
    context line of the hunk in full but differs: `+café`, ` café`, `-café` moves a line
    across one spelled otherwise, and reads as no change."""
    lines = hunk.lines
    context: dict[str, int] = {}
    for at in hunk.span:
        if lines[at][:1] == " ":
            context.setdefault(hunk.drawn[at], at)
    found = []
    for at in hunk.span:
        if lines[at][:1] in _SIGNS and at not in taken:
            same = context.get(hunk.drawn[at])
            if same is not None and lines[same][1:] != lines[at][1:]:
                found.append((at, same))
    return found


def _compare_pair(hunk: _Hunk, one: int, two: int, removed: _Side, added: _Side) -> None:
    """Write out the clusters that differ where lines `one` (removed) and `two` (added)
    draw alike from their start and from their end; the parts between to the spans."""
    first, second = hunk.lines[one], hunk.lines[two]
    start, end = _same_ends(first, second)
    if hunk.draws_as_itself(one) and hunk.draws_as_itself(two):
        removed.spans.append((one, start, len(first) - end))  # (nothing can differ unseen)
        added.spans.append((two, start, len(second) - end))
        return
    ones = _clusters(first, start, len(first) - end)
    twos = _clusters(second, start, len(second) - end)
    head = 0
    while head < min(len(ones), len(twos)) and _alike(first, ones[head], second, twos[head]):
        head += 1
    tail = 0
    while tail < min(len(ones), len(twos)) - head and _alike(
        first, ones[-1 - tail], second, twos[-1 - tail]
    ):
        tail += 1
    for index in [*range(head), *range(-tail, 0)]:
        (a, b), (c, d) = ones[index], twos[index]
        if first[a:b] != second[c:d]:
            removed.mark(first, one, a, b)
            added.mark(second, two, c, d)
    removed.spans.append((one, *_between(ones, head, tail, len(first) - end)))
    added.spans.append((two, *_between(twos, head, tail, len(second) - end)))


def _same_ends(first: str, second: str) -> tuple[int, int]:
    """Where the two lines' same start ends (after the sign) and how long their same end
    is, each at a cluster's edge and not overlapping: found by halving, slices compared
    whole, so a long line costs no step per character."""
    shortest = min(len(first), len(second))
    low, high = 1, shortest
    while low < high:  # the longest start alike: first[1:low] == second[1:low]
        middle = (low + high + 1) // 2
        low, high = (middle, high) if first[1:middle] == second[1:middle] else (low, middle - 1)
    start = low
    while start > 1 and (_continues(first, start) or _continues(second, start)):
        start -= 1
    low, high = 0, shortest - start
    while low < high:
        middle = (low + high + 1) // 2
        same = first[len(first) - middle :] == second[len(second) - middle :]
        low, high = (middle, high) if same else (low, middle - 1)
    end = low
    while end > 0 and (
        _continues(first, len(first) - end) or _continues(second, len(second) - end)
    ):
        end -= 1
    return start, end


def _continues(line: str, at: int) -> bool:
    return at < len(line) and _is_continuing(line[at])


def _alike(first: str, one: tuple[int, int], second: str, two: tuple[int, int]) -> bool:
    a, b = first[one[0] : one[1]], second[two[0] : two[1]]
    return a == b or _drawn(a) == _drawn(b)


def _between(clusters: list[tuple[int, int]], head: int, tail: int, end: int) -> tuple[int, int]:
    """Where the part between `head` clusters alike from the start and `tail` alike from
    the end starts and ends (`end`: where the clusters end)."""
    start = clusters[head][0] if head < len(clusters) else end
    return start, clusters[len(clusters) - tail][0] if tail else end


def _compare_rests(lines: Sequence[str], removed: _Side, added: _Side) -> None:
    """The last rule of the module contract, on the sides' spans."""
    changed = {side: _changed_by_nfc(lines, side) for side in (removed, added)}
    forms = {*changed[removed], *changed[added]}
    if not forms:
        return
    plain = {side: _plain_spellings(lines, side, forms) for side in (removed, added)}
    for side, other in ((removed, added), (added, removed)):
        for form, found in (*changed[side].items(), *plain[side].items()):
            others = {lines[at][a:b] for at, a, b in changed[other].get(form, ())}
            others |= {form} if form in plain[other] else set()
            for at, a, b in found:
                if others - {lines[at][a:b]}:
                    side.mark(lines[at], at, a, b)


Found = list[tuple[int, int, int]]  # line, start, end


def _changed_by_nfc(lines: Sequence[str], side: _Side) -> dict[str, Found]:
    """The side's clusters NFC changes, by their NFC form."""
    found: dict[str, Found] = {}
    for at, start, end in side.spans:
        if unicodedata.is_normalized("NFC", lines[at][start:end]):
            continue
        for a, b in _clusters(lines[at], start, end):
            form = unicodedata.normalize("NFC", lines[at][a:b])
            if form != lines[at][a:b]:
                found.setdefault(form, []).append((at, a, b))
    return found


def _plain_spellings(lines: Sequence[str], side: _Side, forms: set[str]) -> dict[str, Found]:
    """Where the side's spans spell one of `forms` as it is (an ASCII form: only whether
    it is there, with no place, since nothing ASCII is written out)."""
    joined = "\0".join(lines[at][start:end] for at, start, end in side.spans)
    found: dict[str, Found] = {form: [] for form in forms if form.isascii() and form in joined}
    wanted = sorted((form for form in forms if not form.isascii()), key=len, reverse=True)
    if not wanted or len(wanted) > MAX_SEARCHED_FORMS:
        return found
    offsets, total = [], 0
    for _, start, end in side.spans:
        offsets.append(total)
        total += end - start + 1
    for match in re.finditer("|".join(map(re.escape, wanted)), joined):
        index = bisect.bisect_right(offsets, match.start()) - 1
        at, start, _ = side.spans[index]
        a = start + match.start() - offsets[index]
        found.setdefault(match.group(), []).append((at, a, a + len(match.group())))
    return found
