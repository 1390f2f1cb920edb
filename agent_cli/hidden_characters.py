"""Characters a terminal draws as nothing or obeys to reorder text: the one list of them.

Why: a right-to-left override makes `abc<U+202E>txt.exe` read `abcexe.txt`, an Arabic
letter mark moves `-500` to the other side of a number, and zero widths, tags (U+E0041 is
an invisible `A`) and variation selectors can carry a whole text the reader never sees.
Text shown on the user's terminal must say what the record says, so the REPL removes all
of them (`repl.safe_text.sanitize_text`), wherever the text came from: the model's own
characters, a Markdown character reference (`&#x202E;`), a percent-escape an autolink
decodes.

Contract:
- `HIDDEN_RANGES` are Unicode's Bidi_Control and Default_Ignorable_Code_Point characters
  and every other format character (Cf) except the prepended concatenation marks, which
  are drawn (U+0600 ARABIC NUMBER SIGN): bidi controls and marks, zero widths, the soft
  hyphen, the BOM, Hangul fillers, variation selectors, tags, invisible operators.
- `without_hidden_characters(text)` is `text` with each of them removed except the glue
  of emoji, which hides nothing and holds the picture together: a ZWJ between two
  pictographs (the family in one picture), U+FE0E/U+FE0F right after a pictograph or a
  keycap base, and the tags of the three subdivision flags (England, Scotland, Wales).
- `unfinished_emoji_start(text)` is where an emoji sequence at the end of `text` begins
  that a following piece could still continue (`len(text)` when none), so a stream can
  wait for it rather than strip its glue.
Pure.
"""

from __future__ import annotations

import re

HIDDEN_RANGES = (
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x061C, 0x061C),  # Arabic letter mark
    (0x115F, 0x1160),  # Hangul fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian variation selectors and vowel separator
    (0x200B, 0x200F),  # zero widths (space, non-joiner, joiner), LRM, RLM
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, isolates, deprecated formats
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFEFF, 0xFEFF),  # byte-order mark, zero-width no-break space
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF0, 0xFFFB),  # unassigned ignorables, interlinear annotation marks
    (0x13430, 0x1343F),  # Egyptian hieroglyph format controls
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol formats
    (0xE0000, 0xE0FFF),  # tags, variation selectors supplement, unassigned ignorables
)

ZWJ = "\u200d"
# The blocks emoji come from: a superset of Unicode's Extended_Pictographic, so glue
# between two of them is kept (between two symbols it can hide nothing).
_PICTOGRAPHS = (
    "\u00a9\u00ae\u203c\u2049\u2122\u2139\u2190-\u21ff\u2300-\u23ff\u24c2\u25a0-\u27bf"
    "\u2934\u2935\u2b00-\u2bff\u3030\u303d\u3297\u3299\U0001f000-\U0001fffd"
)
_KEYCAP_BASES = "0-9#*"
_PRESENTATION = "[\ufe0e\ufe0f]"  # text or emoji presentation
_EMOJI = f"[{_PICTOGRAPHS}](?:{_PRESENTATION}|[\U0001f3fb-\U0001f3ff])?"  # or a skin tone
_BLACK_FLAG, _CANCEL_TAG = "\U0001f3f4", "\U000e007f"
_FLAG_TAGS = "|".join(
    "".join(chr(0xE0000 + ord(letter)) for letter in name) for name in ("gbeng", "gbsct", "gbwls")
)
_KEPT = (
    f"{_EMOJI}(?:{ZWJ}{_EMOJI})+"  # a ZWJ sequence
    f"|{_BLACK_FLAG}(?:{_FLAG_TAGS}){_CANCEL_TAG}"  # a subdivision flag
    f"|[{_PICTOGRAPHS}{_KEYCAP_BASES}]{_PRESENTATION}"
)
_HIDDEN = "[" + "".join(f"\\U{low:08x}-\\U{high:08x}" for low, high in HIDDEN_RANGES) + "]"
_HIDDEN_CHARACTER = re.compile(_HIDDEN)
_HIDDEN_OR_KEPT = re.compile(f"({_KEPT})|{_HIDDEN}")
# What a later piece could still make a kept sequence of: an emoji and its glue so far, a
# keycap base, a black flag and its tags so far.
_UNFINISHED = re.compile(
    f"(?:{_EMOJI}(?:{ZWJ}{_EMOJI})*{ZWJ}?|[{_KEYCAP_BASES}]|{_BLACK_FLAG}[\U000e0061-\U000e007a]*)\\Z"
)


def without_hidden_characters(text: str) -> str:
    """`text` with every hidden character removed, the glue of emoji kept (module doc)."""
    if _HIDDEN_CHARACTER.search(text) is None:
        return text  # the common case, at the cost of one scan
    return _HIDDEN_OR_KEPT.sub(_kept_part, text)


def unfinished_emoji_start(text: str) -> int:
    """Where a trailing emoji sequence a later piece could continue begins (module doc)."""
    match = _UNFINISHED.search(text)
    return len(text) if match is None else match.start()


def _kept_part(match: re.Match[str]) -> str:
    return match.group(1) or ""
