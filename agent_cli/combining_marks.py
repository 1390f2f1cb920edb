"""Combining marks an approval writes out (`<U+0336>`) instead of drawing them.

Why: a combining mark is drawn on the character before it, so it can change how that
character reads without being seen as a character of its own: `r̶m -rf x̸y` showed `rm`
struck through and a path that is not `xy`, and a mark at the start of a line is drawn
on whatever the screen has there (a line number's bar). Where a mark only builds a
letter Unicode knows whole (`e` + U+0301 is `é`), it is drawn: accented words stay
readable, and a letter built so is found where a diff changes it
(`same_looking_lines`).

Contract: `written_out_marks(line, in_command=...)` gives the positions in `line` of the
marks (categories Mn and Me that `written_out` does not already write out) that are
written out: every one with no character to sit on (at the start of the line or after a
blank), and every one sitting on an ASCII, Latin or Common character that NFC does not
compose with it; in a shell command (or a name: `in_command`) also one that NFC composes
or reorders, on a letter of any script (`cafe` + U+0301, `и` + U+0306 drawn as `й`): a
file name in a command is those code points, not the composed letter it draws as.
Other marks on letters of other scripts (Devanagari vowel signs, Thai, Hebrew or Arabic
points) are drawn as those scripts need. Pure.
"""

from __future__ import annotations

import unicodedata

from agent_cli.lookalikes import script_of
from agent_cli.written_out import is_revealed_character

_MARK_CATEGORIES = frozenset({"Mn", "Me"})
_BASE_SCRIPTS = frozenset({"LATIN", "COMMON", "INHERITED", "UNKNOWN"})


def is_combining_mark(character: str) -> bool:
    """True for a combining mark drawn on the character before it (and not already
    written out as an invisible character, as variation selectors are)."""
    return unicodedata.category(character) in _MARK_CATEGORIES and not is_revealed_character(
        character
    )


def written_out_marks(line: str, *, in_command: bool) -> frozenset[int]:
    """The positions of the marks of `line` to write out (see the module contract)."""
    if line.isascii():
        return frozenset()
    written: set[int] = set()
    base = -1  # the position of the character the marks since it sit on; -1: none
    position = 0
    while position < len(line):
        if not is_combining_mark(line[position]):
            base = position
            position += 1
            continue
        end = position
        while end < len(line) and is_combining_mark(line[end]):
            end += 1
        if _are_written_out(line, base, position, end, in_command):
            written.update(range(position, end))
        position = end
    return frozenset(written)


def _are_written_out(line: str, base: int, start: int, end: int, in_command: bool) -> bool:
    """Whether the marks `line[start:end]`, after the character at `base` (-1: none),
    are written out."""
    if base < 0 or line[base] in " \t" or is_revealed_character(line[base]):
        return True
    cluster = line[base:end]
    composed = unicodedata.normalize("NFC", cluster)
    if in_command and composed != cluster:
        return True  # (whatever the script: a name is its code points, `и` + U+0306)
    if not line[base].isascii() and script_of(line[base]) not in _BASE_SCRIPTS:
        return False
    return any(is_combining_mark(character) for character in composed)
