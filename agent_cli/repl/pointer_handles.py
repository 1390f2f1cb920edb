"""Short numbers for the pointers on screen, so that nobody has to type a pointer.

Contract: `PointerHandles` is the one owner of the numbering. `number_for(pointer)` gives
the pointer the next number the first time it is shown and the same number every time
after, for the whole run of the REPL (a pointer of an earlier session still expands, so
`/new` and `/resume` keep the numbers). An artifact pointer is numbered by the short form
the screen shows (`shorten_artifact_pointer`), so its long and short forms share one
number. `pointer_for(number)` is what `/expand <number>` expands; `recent()` lists the
newest numbers first, for the completer and for saying which numbers exist. A view shows
a number as `handle_label(number)`, right after its pointer.
"""

from __future__ import annotations

from agent_cli.repl.pointer_forms import shorten_artifact_pointer


def handle_label(number: int) -> str:
    """What stands after a numbered pointer: the command that expands it."""
    return f"(/expand {number})"


def parse_handle(text: str) -> int | None:
    """The number in `/expand 3` or `/expand #3`; None for anything else (a pointer)."""
    digits = text[1:] if text.startswith("#") else text
    if digits.isascii() and digits.isdigit() and len(digits) <= 9:
        return int(digits)
    return None


class PointerHandles:
    """The numbers given to pointers shown during one run; see the module contract."""

    def __init__(self) -> None:
        self._numbers: dict[str, int] = {}
        self._pointers: list[str] = []

    def number_for(self, pointer: str) -> int:
        shown = shorten_artifact_pointer(pointer)
        number = self._numbers.get(shown)
        if number is None:
            self._pointers.append(shown)
            number = self._numbers[shown] = len(self._pointers)
        return number

    def pointer_for(self, number: int) -> str | None:
        if 1 <= number <= len(self._pointers):
            return self._pointers[number - 1]
        return None

    def recent(self, limit: int | None = None) -> list[tuple[int, str]]:
        """(number, pointer) pairs, newest number first, at most `limit` of them."""
        newest_first = list(enumerate(self._pointers, start=1))[::-1]
        return newest_first if limit is None else newest_first[:limit]
