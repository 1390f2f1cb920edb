"""A long paste's placeholder edited as one unit, and a broken one found before sending.

Why: a paste shows in the prompt as `[pasted 1,200 characters]` (`paste`), and only that
exact text is swapped for the paste when the line is sent. One Backspace left `[pasted
1,200 characters`, which was sent as it was: the model got the broken name and the
1,200 pasted characters were gone, unsaid.

Contract (pure: text, a cursor position and the reader's `PastedText`, nothing else):
`kept_span(text, position, pastes, side)` is the span of the kept placeholder that ends
at `position` (`side="before"`), starts there (`"after"`) or holds it strictly inside
(`"around"`), or None; placeholders never overlap (no `[` or `]` inside one), so only
the characters near `position` are looked at. `without_span(text, span)` is the text
with that placeholder taken out and where the cursor then stands. `nearest_edge(span,
position)` is where a cursor that landed inside it goes (the nearer edge; the end on a
tie). `find_broken(line, held, pastes)` is the first placeholder in `held` (those the
input has shown) that is no longer whole in `line` while a piece of one is still there
(`[pasted`, `pasted 1,200`, `1,200 characters`, `characters]`, `#2]`, in any case):
the paste would be lost unsaid, so the line must not be sent as it is. A placeholder
taken out whole (nothing of it left) is not broken: that is the user removing the paste.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from agent_cli.repl.paste import PLACEHOLDER, PastedText

# longer than any placeholder (`[pasted 10,000,000 characters #999]` is 35 characters)
REACH = 64
PIECE = re.compile(
    r"\[\s*pasted|pasted\s+[0-9]|[0-9]\s+characters|characters?\s*(?:#\s*[0-9]+\s*)?\]"
    r"|#\s*[0-9]+\s*\]",
    re.IGNORECASE,
)

Side = Literal["before", "after", "around"]


@dataclass(frozen=True)
class Span:
    """Where one kept placeholder stands in a text: `text[start:end]`."""

    start: int
    end: int


@dataclass(frozen=True)
class BrokenPlaceholder:
    """A placeholder the input showed, now broken; `piece_at` is where what is left of
    one begins (for the cursor)."""

    placeholder: str
    piece_at: int


def kept_span(text: str, position: int, pastes: PastedText, side: Side) -> Span | None:
    """The kept placeholder at `position` on `side`; see the module contract."""
    low = max(0, position - REACH)
    for found in PLACEHOLDER.finditer(text, low, min(len(text), position + REACH)):
        start, end = found.span()
        is_there = {
            "before": end == position,
            "after": start == position,
            "around": start < position < end,
        }[side]
        if is_there and pastes.is_kept(found[0]):
            return Span(start, end)
    return None


def without_span(text: str, span: Span) -> tuple[str, int]:
    """`text` with `span` taken out, and the cursor where it was."""
    return text[: span.start] + text[span.end :], span.start


def nearest_edge(span: Span, position: int) -> int:
    """The edge of `span` nearer to `position` (the end on a tie)."""
    return span.start if position - span.start < span.end - position else span.end


def held_in(text: str, pastes: PastedText) -> set[str]:
    """The kept placeholders `text` shows."""
    return {found[0] for found in PLACEHOLDER.finditer(text) if pastes.is_kept(found[0])}


def find_broken(line: str, held: Iterable[str], pastes: PastedText) -> BrokenPlaceholder | None:
    """The first of `held` that `line` lost while a piece of a placeholder is left in it;
    see the module contract."""
    whole = held_in(line, pastes)
    lost = [placeholder for placeholder in held if placeholder not in whole]
    if not lost:
        return None
    # whole placeholders (kept or typed) are no pieces: blank them, keeping positions
    blanked = PLACEHOLDER.sub(lambda found: " " * len(found[0]), line)
    piece = PIECE.search(blanked)
    if piece is None:
        return None
    return BrokenPlaceholder(sorted(lost)[0], piece.start())
