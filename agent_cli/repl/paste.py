"""Long pastes shown as one short placeholder, sent whole.

Contract: `PastedText.collapse(data)` returns `data` itself when it is short, else a
placeholder such as `[pasted 20,000 characters]` to put in the prompt instead, and keeps
the text; `expand(line)` puts every kept text back in place of its placeholder (what is
sent and recorded is always the whole paste). Placeholders stay valid for the life of
the reader, so a line recalled from this run's history still expands. A second paste
of the same size gets a number (`#2`), so no placeholder stands for two texts. A line
holding a placeholder this reader does not know (recalled from an earlier run's history,
which keeps placeholders, not pastes) raises `PasteNotKept`: sent as it is, the model
would get the placeholder instead of the text.
"""

from __future__ import annotations

import re

from agent_cli.errors import PasteNotKept

COLLAPSE_CHARACTERS = 800
COLLAPSE_LINES = 10
PLACEHOLDER = re.compile(r"\[pasted [0-9,]+ characters(?: #[0-9]+)?\]")


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

    def expand(self, line: str) -> str:
        for found in PLACEHOLDER.finditer(line):
            if found[0] not in self._texts:
                raise PasteNotKept(found[0])
        for placeholder, data in self._texts.items():
            if placeholder in line:
                line = line.replace(placeholder, data)
        return line
