"""Which line a long changed line of a diff is read against, and where the two differ.

Why: a shortened diff line shows its start, its end and the places where it differs from
its counterpart. Pairing only within a change block (the first `-` with the first `+`)
missed a long line moved below a short one and changed on the way (`good.example` ->
`evil.example` in its middle): its `-` and `+` lines were in blocks of their own, both
were drawn as the same start, `⟨5,714 characters not shown⟩` and the same end, and the
change read as a pure move (session 26).

Contract: `DiffCounterparts(raw_lines, written_at, drawn_at)` over the lines of a unified
diff (as `tools.approval` builds it; `written_at` and `drawn_at` as the view draws them);
`changes(index, shown)`: for the `-` or `+` line at `index`, drawn as `shown`, the spans
of `shown` where it differs from its counterpart as drawn (`changed_spans`, the removed
line taken as the old one; `[]` when the two are drawn the same), or None when it has none. The counterpart is, of the lines of
the other sign, the one that shares the longest start plus end with it (raw text) among:
the line at the same place in the other sign's block of the same change (that block's
last line when it is shorter), and every line anywhere in the diff that starts and ends
with the same `LOOK_CHARS` characters as it (a line moved, changed or not); the block's
line on a tie. A line with none of these has no counterpart: no line of the other sign
starts and ends as it does, so none can be drawn like it. The index of line starts and
ends, and each line's changes, are found once per object, when first needed (an object
lives for one view, which lays a line out several times while fitting it).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

from agent_cli.changed_spans import Span, changed_spans, shared_head, shared_tail
from agent_cli.repl.approval_lines import NO_POSITIONS, WrittenAt, style_line
from agent_cli.tools.approval import ApprovalKind

LOOK_CHARS = 8  # characters at each end (after the sign) a look-alike line must share


class DiffCounterparts:
    """The counterparts of a diff's changed lines (module contract)."""

    def __init__(self, raw_lines: Sequence[str], written_at: WrittenAt, drawn_at: WrittenAt):
        self._raw = raw_lines
        self._written_at = written_at
        self._drawn_at = drawn_at
        self._changes: dict[int, list[Span] | None] = {}

    def changes(self, index: int, shown: str) -> list[Span] | None:
        """Where `shown` (line `index` as drawn) differs from its counterpart as drawn.
        The two are matched removed line first, so that a `-` line and its `+` line,
        each counterpart of the other, are read by one match and show the same places."""
        if index not in self._changes:
            self._changes[index] = self._find_changes(index, shown)
        return self._changes[index]

    def _find_changes(self, index: int, shown: str) -> list[Span] | None:
        other = self.counterpart(index)
        if other is None:
            return None
        other_shown = style_line(
            self._raw[other],
            ApprovalKind.DIFF,
            self._written_at.get(other, NO_POSITIONS),
            self._drawn_at.get(other, NO_POSITIONS),
        ).plain
        if self._raw[index][0] == "-":
            pairs = changed_spans(shown[1:], other_shown[1:])
            return [(start + 1, end + 1) for (start, end), _ in pairs]
        pairs = changed_spans(other_shown[1:], shown[1:])
        return [(start + 1, end + 1) for _, (start, end) in pairs]

    def counterpart(self, index: int) -> int | None:
        """The index of line `index`'s counterpart; None for a line that is not a changed
        one or has none."""
        raw = self._raw
        if not _is_changed(raw, index) or raw[index][0] == "\\":
            return None
        candidates = [*_in_block(raw, index), *self._look_alikes(index)]
        if not candidates:
            return None
        return max(candidates, key=lambda other: _shared_ends(raw[index], raw[other]))

    def _look_alikes(self, index: int) -> list[int]:
        line = self._raw[index]
        other_sign = "+" if line[0] == "-" else "-"
        return self._by_look.get((other_sign, *_look(line)), [])

    @cached_property
    def _by_look(self) -> dict[tuple[str, str, str], list[int]]:
        """The changed lines of the diff by their sign, start and end."""
        found: dict[tuple[str, str, str], list[int]] = {}
        for index, line in enumerate(self._raw):
            if _is_changed(self._raw, index) and line[0] != "\\":
                found.setdefault((line[0], *_look(line)), []).append(index)
        return found


def _look(line: str) -> tuple[str, str]:
    """What a line starts and ends with, after its sign."""
    body = line[1:]
    return body[:LOOK_CHARS], body[-LOOK_CHARS:]


def _shared_ends(line: str, other: str) -> int:
    """How many characters `line` and `other` share at their start and end, after the
    sign (the two counted apart, so a line's characters may count twice)."""
    one, two = line[1:], other[1:]
    return shared_head(one, two) + shared_tail(one, two)


def _is_changed(raw: Sequence[str], at: int) -> bool:
    """A `-` or `+` line past the two label lines, or a `\\ No newline` line among them."""
    return at >= 2 and raw[at][:1] in ("-", "+", "\\")


def _in_block(raw: Sequence[str], index: int) -> list[int]:
    """The line at the same place as `index` among the other sign's lines of the change
    (the run of changed lines) that holds it, or that block's last line; none when the
    change has no lines of the other sign."""
    start, end = index, index
    while _is_changed(raw, start - 1):
        start -= 1
    while end + 1 < len(raw) and _is_changed(raw, end + 1):
        end += 1
    block = range(start, end + 1)
    removed = [at for at in block if raw[at][0] == "-"]
    added = [at for at in block if raw[at][0] == "+"]
    mine, theirs = (removed, added) if raw[index][0] == "-" else (added, removed)
    return [theirs[min(mine.index(index), len(theirs) - 1)]] if theirs else []
