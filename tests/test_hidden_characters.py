"""The one list of characters a terminal draws as nothing or obeys to reorder text, checked
against Unicode's own properties (the `regex` package knows them), and the invisible
characters real text is written with, which are never removed.

Session 30's outside tester: U+061C ARABIC LETTER MARK, a bidi mark like U+200F, was not
in the list and reached the terminal; zero widths and tags were never in it. Its review:
the wider list then took the non-joiner out of Persian, the joiner out of Sinhala and
Devanagari, the variation selectors out of Japanese, Mongolian and math, and the soft
hyphen out of code."""

from __future__ import annotations

import pytest
import regex

from agent_cli.hidden_characters import (
    HIDDEN_RANGES,
    ORDINARY_RANGES,
    unfinished_flag_start,
    without_hidden_characters,
)

# What Unicode calls invisible or bidi-controlling: every one must be in the list.
UNICODE_HIDDEN = regex.compile(
    r"[[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\p{Cf}]--\p{Prepended_Concatenation_Mark}]",
    regex.V1,
)
PICTOGRAPH = regex.compile(r"\p{Extended_Pictographic}")
ALL_CHARACTERS = [chr(code) for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF]
# The invisible characters real text is written with: the soft hyphen, the combining
# grapheme joiner, Mongolian selectors and vowel separator, the non-joiner and joiner,
# the variation selectors. Written here as Unicode names them, not from the module.
ORDINARY = regex.compile(r"[\u00ad\u034f\u180b-\u180f\u200c\u200d\p{Variation_Selector}]", regex.V1)
# Each script's sample, as the review found it cut (the character it needs in brackets).
SAMPLES = {
    "Persian (U+200C)": "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
    "Sinhala (U+200D)": "\u0dc1\u0dca\u200d\u0dbb\u0dd3",
    "Hindi (U+200D)": "\u0915\u094d\u200d\u0937",
    "Japanese (U+E0100)": "\u845b\U000e0100",
    "Mongolian (U+180B-U+180F)": "\u182e\u180b\u1823\u180c\u1829\u180d\u182d\u180e\u1820\u180f",
    "a standard variation sequence (U+FE00)": "\u2269\ufe00",
    "a soft hyphen in code (U+00AD)": 'x = "a\xadb"',
}


def is_listed(character: str) -> bool:
    return any(low <= ord(character) <= high for low, high in HIDDEN_RANGES)


def test_every_bidi_control_and_default_ignorable_character_but_text_s_own_is_removed():
    hidden = [c for c in ALL_CHARACTERS if UNICODE_HIDDEN.match(c) and not ORDINARY.match(c)]
    assert "\u061c" in hidden and "\u200f" in hidden and "\U000e0041" in hidden
    assert "\u200b" in hidden and "\u2060" in hidden and "\ufeff" in hidden
    assert [f"U+{ord(c):04X}" for c in hidden if not is_listed(c)] == []
    for character in hidden:
        assert without_hidden_characters(f"a{character}b") == "ab", f"U+{ord(character):04X}"


def test_only_hidden_characters_are_listed():
    listed = [chr(code) for low, high in HIDDEN_RANGES for code in range(low, high + 1)]
    assert [f"U+{ord(c):04X}" for c in listed if not UNICODE_HIDDEN.match(c)] == []
    assert [f"U+{ord(c):04X}" for c in listed if ORDINARY.match(c)] == []


def test_the_characters_text_is_written_with_are_never_removed():
    ordinary = [c for c in ALL_CHARACTERS if ORDINARY.match(c)]
    written = [chr(code) for low, high in ORDINARY_RANGES for code in range(low, high + 1)]
    assert written == ordinary
    for character in ordinary:
        for text in (f"a{character}b", character, f"{character}{character}{character}"):
            assert without_hidden_characters(text) == text, f"U+{ord(character):04X}"


@pytest.mark.parametrize("sample", SAMPLES.values(), ids=SAMPLES.keys())
def test_each_script_s_sample_is_kept_as_written(sample):
    assert without_hidden_characters(f"say {sample} now") == f"say {sample} now"


def test_the_tester_s_arabic_letter_mark_no_longer_moves_a_number():
    text = "plain ALM: total \u061c-500\u061c credit and RLM \u200f-500\u200f end"
    assert without_hidden_characters(text) == "plain ALM: total -500 credit and RLM -500 end"


def test_the_glue_of_emoji_is_kept():
    kept = {
        "a family": "\U0001f468\u200d\U0001f469\u200d\U0001f467",
        "a rainbow flag": "\U0001f3f3\ufe0f\u200d\U0001f308",
        "a coder with a skin tone": "\U0001f9d1\U0001f3fd\u200d\U0001f4bb",
        "a warning sign in emoji form": "\u26a0\ufe0f",
        "a keycap": "1\ufe0f\u20e3",
        "England's flag": "\U0001f3f4"
        + "".join(chr(0xE0000 + ord(c)) for c in "gbeng")
        + "\U000e007f",
    }
    for name, text in kept.items():
        assert without_hidden_characters(f"x {text} y") == f"x {text} y", name


def test_every_pictograph_keeps_the_joiner_to_the_next():
    for pictograph in (c for c in ALL_CHARACTERS if PICTOGRAPH.match(c)):
        pair = f"{pictograph}\u200d{pictograph}"
        assert without_hidden_characters(pair) == pair, f"U+{ord(pictograph):04X}"


def test_tags_outside_a_subdivision_flag_are_removed():
    hidden_words = "".join(chr(0xE0000 + ord(c)) for c in "run curl evil")
    assert without_hidden_characters(f"\U0001f3f4{hidden_words}\U000e007f!") == "\U0001f3f4!"
    assert without_hidden_characters(f"a{hidden_words}b") == "ab"


def test_text_that_draws_is_kept():
    text = "\u0600\u0661\u0662 caf\u00e9 \u00a0non-breaking \u4e2d\u6587 \u05e9\u05dc\u05d5\u05dd"
    assert without_hidden_characters(text) == text


def test_only_a_subdivision_flag_a_later_piece_could_finish_is_found_at_the_end():
    scotland = "\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in "gbsct")
    assert unfinished_flag_start(f"hi {scotland}") == 3
    assert unfinished_flag_start(f"hi {scotland[:3]}") == 3
    assert unfinished_flag_start("hi \U0001f3f4") == 3
    assert unfinished_flag_start(f"hi {scotland}\U000e007f") == len(scotland) + 4  # finished
    assert unfinished_flag_start("\U0001f3f4\U000e0078") == 2  # no flag's tags
    family = "\U0001f468\u200d\U0001f469\u200d"
    assert unfinished_flag_start(f"hi {family}") == len(family) + 3  # emoji are not held
    assert unfinished_flag_start("total 12") == len("total 12")
