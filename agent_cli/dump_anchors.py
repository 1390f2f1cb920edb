"""A few bytes as each dump layout prints them, in one row or across narrow rows, as
regex chains. Pure: no I/O.

Why: `secret_dumps` reads only the lines around a place where four bytes of a value (eight
of its UTF-16) stand as some layout prints them, so that ordinary text and the dump of
other bytes cost one regex scan. A row narrower than those bytes (`xxd -c 1`, `xxd -c 3`,
`xxd -b -c 2`, `od -tx1z -w3`) never holds them on one line, and a formatter may put any
punctuation between two numbers (`bytes.hex('-')`, `hexdump -e '/1 "%02x_"'`, `%02x.`) or
group bytes in any number (`bytes.hex('-', 3)`, `xxd -g 3`): so between two numbers a
chain allows any of these, and a row's end.

Contract: `anchor_chains(window, narrowest)` gives `window` (4 or 8 bytes) as each layout
prints it, in one row or in rows of `narrowest` bytes or more that begin with the window,
each a list of regex fragments, the first of them one literal character (`re` tries only
where one may begin). The layouts: hex in file order, a byte at a time (so in groups of
any size, cut anywhere by a row's end), and byte-swapped in groups of 2, 4 or 8 (a
little-endian word), digits in either case; octal bytes (`od -b`) and 16-bit
little-endian words (`od`); decimal bytes, signed and not (`od -td1`, `-tu1`) and words,
padded or not (`od -tu2`, `hexdump -d`); binary bytes (`xxd -b`); `od -c`'s cells
(`shown`, with `ESCAPES`), the first as wide as `od` prints it. Between two numbers,
`SEPARATOR`: up to eight characters that are no letter, digit or line break (blanks, `,`
`:` `;` `-` `_` `.`, quotes), then maybe `0x`; where such a row may end (after a multiple
of its width in bytes), `GAP`: maybe a row's end first (the rest of the row, its text
column, at most `ROW_TAIL_CHARS`; a line break; the next row's head: up to two words, an
offset, `cat -n`'s or `grep -n`'s number, each before blanks or a `:`, after blanks or a
`diff`'s `>`). A word ends a row only where a whole number of words does. Some anchor of
a value begins where a row does (`secret_dumps._anchor_offsets`), so rows that begin
elsewhere need no chain.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

# How `od -c` (and `repr` of a character) writes the bytes it does not show as themselves.
ESCAPES = {
    "\\0": 0,
    "\\a": 7,
    "\\b": 8,
    "\\t": 9,
    "\\n": 10,
    "\\v": 11,
    "\\f": 12,
    "\\r": 13,
    "\\\\": 92,
}
_ESCAPED = {byte: escape for escape, byte in ESCAPES.items()}
# A row narrower than an anchor holds at most 7 bytes, so its text column (`  >p_R<`, a
# UTF-16 row's `G.I.T.`) is short. The parts of a row's end give back nothing they took
# (possessive), so `re` tries few ways to match one.
ROW_TAIL_CHARS = 24
SEPARATOR = r"[^0-9A-Za-z\n]{0,8}(?:0[xX])?"
GAP = rf"(?:.{{0,{ROW_TAIL_CHARS}}}+\n[\t >+|#-]*+(?:\w++[\t :]++){{0,2}})?{SEPARATOR}"
_OD_CELL = 4  # how wide `od -c` prints a cell


def shown(byte: int) -> str:
    """A byte as `od -c` shows it: itself, an escape, or three octal digits."""
    if byte in _ESCAPED:
        return _ESCAPED[byte]
    return chr(byte) if 32 < byte < 127 else f"{byte:03o}"


def _word(unit: bytes) -> int:
    return int.from_bytes(unit, "little")


@dataclass(frozen=True)
class _Layout:
    """How a layout prints a number of `size` bytes (`number`); `hex`: its letters in
    either case; `cell`: `od -c`'s, the first as wide as `od` prints it."""

    size: int
    number: Callable[[bytes], str]
    hex: bool = False
    cell: bool = False


_LAYOUTS = (
    _Layout(1, lambda unit: unit.hex(), hex=True),  # `xxd` (any `-g`, `-c`), `hex('-')`
    *(_Layout(size, lambda unit: unit[::-1].hex(), hex=True) for size in (2, 4, 8)),
    _Layout(1, lambda unit: f"{unit[0]:03o}"),  # `od -b`
    _Layout(2, lambda unit: f"{_word(unit):06o}"),  # `od`, `hexdump -o`
    _Layout(1, lambda unit: str(unit[0] - 256 if unit[0] > 127 else unit[0])),  # `-td1`
    _Layout(1, lambda unit: str(unit[0])),  # `od -tu1`
    _Layout(2, lambda unit: str(_word(unit))),  # `od -tu2`
    _Layout(2, lambda unit: f"{_word(unit):05d}"),  # `hexdump -d`
    _Layout(1, lambda unit: f"{unit[0]:08b}"),  # `xxd -b`
    _Layout(1, lambda unit: shown(unit[0]), cell=True),  # `od -c`
)


def _chain(layout: _Layout, window: bytes, narrowest: int) -> list[str]:
    """`window` as `layout` prints it, in one row or in rows of `narrowest` bytes or more
    (module contract). A word wider than the window (`od -tx8`'s, for four bytes) holds
    it whole: at the word's start or its end."""
    size = min(layout.size, len(window))
    breaks = {
        at for width in range(narrowest, len(window)) for at in range(width, len(window), width)
    }
    chain: list[str] = []
    for at in range(0, len(window), size):
        unit = layout.number(window[at : at + size])
        if layout.cell and not chain:
            unit = f"{unit:>{_OD_CELL}}"
        if chain:
            chain.append(GAP if at in breaks else SEPARATOR)
        chain += [_fragment(character, layout) for character in unit]
    return chain


def _fragment(character: str, layout: _Layout) -> str:
    """A printed character as a regex: a hex letter in either case."""
    if layout.hex and character in "abcdef":
        return f"[{character}{character.upper()}]"
    return re.escape(character)


def anchor_chains(window: bytes, narrowest: int = 1) -> list[list[str]]:
    """`window` as each layout prints it, in one row or in rows of `narrowest` bytes or
    more (module contract)."""
    found = {tuple(_chain(layout, window, narrowest)) for layout in _LAYOUTS}
    split: list[list[str]] = []
    for first, *rest in sorted(found):
        if first.startswith("["):  # a hex letter: one chain for each of its cases
            split += [[first[1], *rest], [first[2], *rest]]
        else:
            split.append([first, *rest])
    return split
