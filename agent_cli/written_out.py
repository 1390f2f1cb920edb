"""Controls written out as plain letters: the one rule for naming what the user approves.

Why: a name or a command holding an escape, a carriage return or a bidi override reads
as something else once a terminal obeys it, and removing the control changes what it
seems to say (a fifteenth outside attack: a folder `d<ESC>]52;...<BEL>x` was shown as
`dx/` in a listing, while its approval asked about `d^[]52;c;QUFB^Gx/`). So every place
that names a file or command to the user or the model writes each such character out
the same way: the approval views, the tool panels' paths, and the names the file tools
give the model (`Workspace.display`, list_dir's entries, grep's paths).

Contract: `is_revealed_character(c)` says whether `c` is written out (tab and line feed
are the caller's); `reveal_controls(text)` cuts `text` into (piece, is_control) parts;
`reveal_all(text)` is `text` on one line with every one written out, line feeds (`^J`)
and tabs (`^I`) too; `revealed_pieces(text)` is that, one piece per character. Pure.
"""

from __future__ import annotations

import functools
import re
import unicodedata

# Characters a terminal obeys, hides or draws as a blank, decided by Unicode category:
# controls (Cc, except tab and line feed), format characters (Cf: bidi controls, zero
# widths, the BOM, soft hyphen, language tags...), line and paragraph separators (Zl,
# Zp), spaces other than U+0020 (Zs: a no-break or em space reads as a word break that
# is none), surrogates, private-use and unassigned code points (Cs, Co, Cn: nothing
# says how they are drawn).
_REVEALED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})
# Unicode's Default_Ignorable_Code_Point characters outside those categories (combining
# grapheme joiner, Hangul fillers, Khmer inherent vowels, variation selectors, which can
# carry a whole hidden text one byte each), and the braille blank, drawn as a space.
_DRAWN_INVISIBLE = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xE0100, 0xE01EF),
)


@functools.lru_cache(maxsize=4096)
def is_revealed_character(character: str) -> bool:
    """True for a character an approval view writes out as a code (see `reveal_controls`);
    tab and line feed are the caller's."""
    if character in "\t\n ":
        return False
    code = ord(character)
    if unicodedata.category(character) in _REVEALED_CATEGORIES:
        return True
    return any(low <= code <= high for low, high in _DRAWN_INVISIBLE)


def reveal_controls(text: str) -> list[tuple[str, bool]]:
    """`text` cut into (piece, is_control) parts, every control shown as plain letters.

    For places where the user must see exactly what is there (a command or file they
    approve): instead of removing an escape or a carriage return, which could change
    what the text seems to say, each becomes visible: `^[` for ESC, `^M` for a carriage
    return, `^@` for NUL, `^?` for DEL, `<byte E9>` for a byte that does not decode (as
    `surrogateescape` keeps one that is not UTF-8, U+DC80..U+DCFF, and
    `tools.text_source` any byte of a UTF-16 file's that do not, U+DC00..U+DCFF),
    `<U+202E>` for the others: every character
    `is_revealed_character` names (controls, format characters, separators, spaces other
    than U+0020, variation selectors, fillers drawn blank...). Line feeds and tabs are
    the caller's.
    """
    revealed = sorted(character for character in set(text) if is_revealed_character(character))
    if not revealed:
        return [(text, False)] if text else []
    pattern = re.compile("[" + "".join(f"\\U{ord(c):08x}" for c in revealed) + "]")
    parts: list[tuple[str, bool]] = []
    position = 0
    for match in pattern.finditer(text):
        if match.start() > position:
            parts.append((text[position : match.start()], False))
        parts.append((_control_name(match.group()), True))
        position = match.end()
    if position < len(text):
        parts.append((text[position:], False))
    return parts


def _control_name(character: str) -> str:
    code = ord(character)
    if code < 0x20:
        return "^" + chr(code + 64)
    if code == 0x7F:
        return "^?"
    if 0xDC00 <= code <= 0xDCFF:  # a byte that does not decode, as `reveal_controls` says
        return f"<byte {code - 0xDC00:02X}>"
    return f"<U+{code:04X}>"


def reveal_all(text: str) -> str:
    """`text` on one line with every control written out (`reveal_controls`), line
    feeds (`^J`) and tabs (`^I`) too."""
    return "".join(revealed_pieces(text))


def revealed_pieces(text: str) -> list[str]:
    """One piece per character of `text`: the character, or its written-out code."""
    return [
        _control_name(character)
        if character in "\t\n" or is_revealed_character(character)
        else character
        for character in text
    ]
