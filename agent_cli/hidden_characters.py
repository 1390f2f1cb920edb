"""Characters a terminal draws as nothing or obeys to reorder text: the one list of them.

Why: a right-to-left override makes `abc<U+202E>txt.exe` read `abcexe.txt`, an Arabic
letter mark moves `-500` to the other side of a number, and zero widths and tags (U+E0041
is an invisible `A`) can carry a whole text the reader never sees. Text shown on the
user's terminal must say what the record says, so the REPL removes all of them
(`repl.safe_text.sanitize_text`), wherever the text came from: the model's own
characters, a Markdown character reference (`&#x202E;`), a percent-escape an autolink
decodes.

Contract:
- `HIDDEN_RANGES` are Unicode's Bidi_Control and Default_Ignorable_Code_Point characters
  and every other format character (Cf), except the prepended concatenation marks, which
  are drawn (U+0600 ARABIC NUMBER SIGN), and except `ORDINARY_RANGES`: bidi controls and
  marks, the zero-width space, the word joiner and invisible operators, the BOM, Hangul
  fillers, tags, format controls of hieroglyphs, shorthand and music.
- `ORDINARY_RANGES` are the invisible characters real text is written with, which can
  neither reorder text nor draw a line of their own, so they are never removed: the soft
  hyphen (a break hint, in code and in long words), the combining grapheme joiner
  (Hebrew points), the zero-width non-joiner (Persian) and joiner (Sinhala, Devanagari
  conjuncts, emoji families), Mongolian free variation selectors and vowel separator,
  and the variation selectors (a math sign's variant, emoji presentation, an
  ideographic variant such as U+845B U+E0100).
- `without_hidden_characters(text)` is `text` with every hidden character removed except
  the tags of the three subdivision flags (England, Scotland, Wales), which only draw a
  flag.
- `unfinished_flag_start(text)` is where a subdivision flag at the end of `text` begins
  that a following piece could still finish (`len(text)` when none): at most its black
  flag and five tags, so a stream can wait for it rather than strip its tags.
Pure.
"""

from __future__ import annotations

import re

HIDDEN_RANGES = (
    (0x061C, 0x061C),  # Arabic letter mark
    (0x115F, 0x1160),  # Hangul fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels (Unicode: not to be used)
    (0x200B, 0x200B),  # zero-width space
    (0x200E, 0x200F),  # left-to-right and right-to-left marks
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, isolates, deprecated formats
    (0x3164, 0x3164),  # Hangul filler
    (0xFEFF, 0xFEFF),  # byte-order mark, zero-width no-break space
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF0, 0xFFFB),  # unassigned ignorables, interlinear annotation marks
    (0x13430, 0x1343F),  # Egyptian hieroglyph format controls
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol formats
    (0xE0000, 0xE00FF),  # tags (outside a subdivision flag), unassigned ignorables
    (0xE01F0, 0xE0FFF),  # unassigned ignorables
)

ORDINARY_RANGES = (
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x180B, 0x180F),  # Mongolian free variation selectors and vowel separator
    (0x200C, 0x200D),  # zero-width non-joiner and joiner
    (0xFE00, 0xFE0F),  # variation selectors
    (0xE0100, 0xE01EF),  # variation selectors supplement (ideographic variants)
)

_BLACK_FLAG, _CANCEL_TAG = "\U0001f3f4", "\U000e007f"
_FLAG_TAGS = tuple(
    "".join(chr(0xE0000 + ord(letter)) for letter in name) for name in ("gbeng", "gbsct", "gbwls")
)
_LONGEST_UNFINISHED_FLAG = 1 + max(map(len, _FLAG_TAGS))
_KEPT = f"{_BLACK_FLAG}(?:{'|'.join(_FLAG_TAGS)}){_CANCEL_TAG}"
_HIDDEN = "[" + "".join(f"\\U{low:08x}-\\U{high:08x}" for low, high in HIDDEN_RANGES) + "]"
_HIDDEN_CHARACTER = re.compile(_HIDDEN)
_HIDDEN_OR_KEPT = re.compile(f"({_KEPT})|{_HIDDEN}")


def is_hidden_character(character: str) -> bool:
    """True when `character` is in `HIDDEN_RANGES`."""
    return _HIDDEN_CHARACTER.fullmatch(character) is not None


def without_hidden_characters(text: str) -> str:
    """`text` with every hidden character removed, a subdivision flag's tags kept."""
    if _HIDDEN_CHARACTER.search(text) is None:
        return text  # the common case, at the cost of one scan
    return _HIDDEN_OR_KEPT.sub(_kept_part, text)


def unfinished_flag_start(text: str) -> int:
    """Where a trailing subdivision flag a later piece could finish begins (module doc);
    only the last few characters are looked at."""
    start = text.rfind(_BLACK_FLAG, max(len(text) - _LONGEST_UNFINISHED_FLAG, 0))
    if start < 0:
        return len(text)
    tags = text[start + 1 :]
    return start if any(full.startswith(tags) for full in _FLAG_TAGS) else len(text)


def _kept_part(match: re.Match[str]) -> str:
    return match.group(1) or ""
