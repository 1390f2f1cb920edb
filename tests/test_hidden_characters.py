"""The one list of characters a terminal draws as nothing or obeys to reorder text, checked
against Unicode's own properties (the `regex` package, which tiktoken brings, knows them).

Session 30's outside tester: U+061C ARABIC LETTER MARK, a bidi mark like U+200F, was not
in the list and reached the terminal; zero widths and tags were never in it."""

from __future__ import annotations

import regex

from agent_cli.hidden_characters import (
    HIDDEN_RANGES,
    unfinished_emoji_start,
    without_hidden_characters,
)

# What Unicode calls invisible or bidi-controlling: every one must be in the list.
UNICODE_HIDDEN = regex.compile(
    r"[[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\p{Cf}]--\p{Prepended_Concatenation_Mark}]",
    regex.V1,
)
PICTOGRAPH = regex.compile(r"\p{Extended_Pictographic}")
ALL_CHARACTERS = [chr(code) for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF]


def is_listed(character: str) -> bool:
    return any(low <= ord(character) <= high for low, high in HIDDEN_RANGES)


def test_every_bidi_control_and_default_ignorable_character_is_listed_and_removed():
    hidden = [character for character in ALL_CHARACTERS if UNICODE_HIDDEN.match(character)]
    assert "\u061c" in hidden and "\u200f" in hidden and "\U000e0041" in hidden
    assert [f"U+{ord(c):04X}" for c in hidden if not is_listed(c)] == []
    for character in hidden:
        assert without_hidden_characters(f"a{character}b") == "ab", f"U+{ord(character):04X}"


def test_only_hidden_characters_are_listed():
    listed = [chr(code) for low, high in HIDDEN_RANGES for code in range(low, high + 1)]
    assert [f"U+{ord(c):04X}" for c in listed if not UNICODE_HIDDEN.match(c)] == []


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


def test_glue_that_holds_no_emoji_together_is_removed():
    assert without_hidden_characters("pay\u200dpal") == "paypal"
    assert without_hidden_characters("a\ufe0f b\U000e0100") == "a b"
    assert without_hidden_characters("\u26a0\ufe0f\ufe0f\ufe0f") == "\u26a0\ufe0f"
    hidden_words = "".join(chr(0xE0000 + ord(c)) for c in "run curl evil")
    assert without_hidden_characters(f"\U0001f3f4{hidden_words}\U000e007f!") == "\U0001f3f4!"


def test_text_that_draws_is_kept():
    text = "\u0600\u0661\u0662 caf\u00e9 \u00a0non-breaking \u4e2d\u6587 \u05e9\u05dc\u05d5\u05dd"
    assert without_hidden_characters(text) == text


def test_an_emoji_a_later_piece_could_continue_is_found_at_the_end():
    family = "\U0001f468\u200d\U0001f469"
    assert unfinished_emoji_start(f"hi {family}\u200d") == 3
    assert unfinished_emoji_start("hi \u26a0") == 3
    assert unfinished_emoji_start("total 12") == 7  # a keycap base
    assert unfinished_emoji_start("\U0001f3f4\U000e0067") == 0
    assert unfinished_emoji_start("plain words") == len("plain words")
