"""Long pastes shown as one short placeholder, sent whole.

Contract: `PastedText.collapse(data)` returns `data` itself when it is short, else a
placeholder such as `[pasted 20,000 characters]` to put in the prompt instead, and keeps
the text; `expand(line, recalled=)` puts every kept text back in place of its
placeholder, in one pass (what is sent and recorded is always the whole paste, exactly:
a paste whose own text looks like a placeholder stays as it was pasted). Placeholders
stay valid for the life of the reader, so a line recalled from this run's history still
expands. A second paste of the same size gets a number (`#2`), so no placeholder stands
for two texts. Text that only looks like a placeholder this reader does not know is what
the user typed (a question about the screen, an excerpt pasted short) and is sent as it
is, unless the line was recalled from the history (`recalled`): an earlier run's history
keeps placeholders, not pastes, so such a line raises `PasteNotKept`, since sent as it
is the model would get the placeholder instead of the text. `first_kept(line)` is the
first placeholder in `line` that stands for a kept paste (text the user cannot see);
`is_kept(placeholder)` says whether that exact text stands for one. How the prompt edits a
placeholder as one unit is `paste_units`.
"""

from __future__ import annotations

import re

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

    def expand(self, line: str, *, recalled: bool = False) -> str:
        """`line` with each kept paste in place of its placeholder; see the module
        contract for `recalled` and `PasteNotKept`."""
        if recalled:
            for found in PLACEHOLDER.finditer(line):
                if found[0] not in self._texts:
                    raise PasteNotKept(found[0])
        return PLACEHOLDER.sub(lambda found: self._texts.get(found[0], found[0]), line)

    def first_kept(self, line: str) -> str | None:
        """The first placeholder in `line` that `expand` would replace, or None."""
        for found in PLACEHOLDER.finditer(line):
            if self.is_kept(found[0]):
                return found[0]
        return None

    def is_kept(self, placeholder: str) -> bool:
        """Whether `expand` puts a paste in place of exactly `placeholder`."""
        return placeholder in self._texts
