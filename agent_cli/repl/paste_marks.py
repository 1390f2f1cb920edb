"""Pastes told apart from typing in what the terminal sent while no prompt was shown.

Why: between prompts the terminal's input is read in raw pieces (`terminal_modes`), and a
paste came as plain lines: each of its Enters sent a line as a request of its own when the
turn ended, one the user never reviewed. With bracketed paste on (`PromptReader
.between_prompts` turns it on), the terminal wraps a paste in `ESC[200~` … `ESC[201~`.

Contract (pure: text in, parts out): `PasteMarks.split(text)` takes the next piece read
and returns its parts in order, each `(is_paste, text)`: typed text as it came (keys,
escape sequences and all) and each paste's text without its marks. A paste whose end
mark has not come yet is kept and continued by the next piece (a long paste arrives in
several); `is_open` says one is. `close()` ends such a paste where it stands and returns
its text so far (nothing is lost when its end never comes), "" when none is open.
"""

from __future__ import annotations

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"


class PasteMarks:
    """Splits terminal input into typed text and pastes; see the module contract."""

    def __init__(self) -> None:
        self._open: str | None = None  # the text of a paste whose end mark has not come

    @property
    def is_open(self) -> bool:
        return self._open is not None

    def split(self, text: str) -> list[tuple[bool, str]]:
        parts: list[tuple[bool, str]] = []
        while text:
            if self._open is None:
                typed, start, text = text.partition(PASTE_START)
                if typed:
                    parts.append((False, typed))
                if start:
                    self._open = ""
                continue
            # the end mark may have been cut between two pieces: look for it in both
            joined = self._open + text
            pasted, end, text = joined.partition(PASTE_END)
            if not end:
                self._open = joined
                break
            self._open = None
            parts.append((True, pasted))
        return parts

    def close(self) -> str:
        """End an open paste here; its text so far ("" when none is open)."""
        pasted, self._open = self._open or "", None
        return pasted
