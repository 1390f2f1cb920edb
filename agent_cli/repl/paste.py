"""Long pastes shown as one short placeholder, sent whole.

Contract: `PastedText.collapse(data)` returns `data` itself when it is short, else a
placeholder such as `[pasted 20,000 characters]` to put in the prompt instead, and keeps
the text; `expand(line, made, recalled=)` puts each kept text back in place of its
placeholder where the prompt made one (`made`: the `(start, end)` spans of those, found by
`paste_origin`), in one pass (what is sent and recorded is always the whole paste,
exactly: a paste whose own text looks like a placeholder stays as it was pasted).
Anywhere else a placeholder's text is what the user typed or pasted (a question about the
screen, an excerpt pasted short, even one that shows a placeholder of this run) and is
sent as it is. Placeholders stay valid for the life of the reader, so a line recalled
from this run's history still expands. A second paste of the same size gets a number
(`#2`), so no placeholder stands for two texts. In a line recalled from the history
(`recalled`) a placeholder this reader does not know raises `PasteNotKept`: an earlier
run's history keeps placeholders, not pastes, and sent as it is the model would get the
placeholder instead of the text. `first_made(line, made)` is the first placeholder
`expand` would replace (text the user cannot see); `is_kept(placeholder)` says whether
that exact text stands for a paste. How the prompt edits a placeholder as one unit is
`paste_units`.
"""

from __future__ import annotations

import re
from collections.abc import Container

from agent_cli.errors import PasteNotKept

COLLAPSE_CHARACTERS = 800
COLLAPSE_LINES = 10
PLACEHOLDER = re.compile(r"\[pasted [0-9,]+ characters(?: #[0-9]+)?\]")


def fold_line_breaks(data: str) -> str:
    """`data` with each CRLF and each lone CR made one LF: a terminal sends a pasted line
    break as CR (or CRLF, or LF: pasted bytes as they are), and one break is one break."""
    return data.replace("\r\n", "\n").replace("\r", "\n")


def is_long_paste(data: str) -> bool:
    return len(data) >= COLLAPSE_CHARACTERS or data.count("\n") >= COLLAPSE_LINES


def describe_paste(data: str) -> str:
    """`[pasted 20,000 characters]`: what a long paste is shown as."""
    return f"[pasted {len(data):,} characters]"


class PastedText:
    """The long pastes of one prompt reader; see the module contract."""

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}

    def collapse(self, data: str) -> str:
        if not is_long_paste(data):
            return data
        placeholder = describe_paste(data)
        number = 1
        while self._texts.get(placeholder, data) != data:
            number += 1
            placeholder = f"[pasted {len(data):,} characters #{number}]"
        self._texts[placeholder] = data
        return placeholder

    def expand(self, line: str, made: Container[tuple[int, int]], *, recalled: bool = False) -> str:
        """`line` with each kept paste in place of its placeholder where `made` says the
        prompt put it; see the module contract for `recalled` and `PasteNotKept`."""
        if recalled:
            for found in PLACEHOLDER.finditer(line):
                if found[0] not in self._texts:
                    raise PasteNotKept(found[0])

        def put_back(found: re.Match[str]) -> str:
            return self._texts.get(found[0], found[0]) if found.span() in made else found[0]

        return PLACEHOLDER.sub(put_back, line)

    def first_made(self, line: str, made: Container[tuple[int, int]]) -> str | None:
        """The first placeholder in `line` that `expand` would replace, or None."""
        for found in PLACEHOLDER.finditer(line):
            if found.span() in made and self.is_kept(found[0]):
                return found[0]
        return None

    def is_kept(self, placeholder: str) -> bool:
        """Whether `expand` puts a paste in place of exactly `placeholder`."""
        return placeholder in self._texts
