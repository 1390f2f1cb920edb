"""What passes for ASCII in an approval is marked, and what draws the same is written out.

Found by the twenty-first outside tester: a model sent `echo ʺremoving nothing; touch
RAN_1; echo doneʺ` (U+02BA, drawn like `"`); the approval showed it unmarked, the user
read one quoted string and bash ran three commands. Latin letters that pass for others
(`ɡithub.com`, U+0261) were never marked, an edit from `café` (U+00E9) to `cafe` +
U+0301 showed two identical lines, and `r̶m` drew its strike-through. The rule now
takes Unicode's confusables (UTS #39, as the `confusable-homoglyphs` package ships
them; read here straight from its data, not through agent_cli) and NFC; ordinary
accented, CJK and other text stays unmarked.
"""

from __future__ import annotations

import json
import unicodedata
from importlib import resources

import pytest
from hostile_support import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st

from agent_cli.repl.approval_lines import holds_lookalike_letters, style_line
from agent_cli.tools.approval import ApprovalKind


def reversed_characters(text) -> str:
    return "".join(
        text.plain[span.start : span.end] for span in text.spans if "reverse" in str(span.style)
    )


def _is_accented_ascii(character: str) -> bool:
    decomposed = unicodedata.normalize("NFD", character)
    return len(decomposed) > 1 and decomposed[0].isascii()


def _confusables_of_ascii() -> list[str]:
    """Every character that Unicode's confusables make confusable with one ASCII
    character (linked to it, or to the same prototype: `ʺ` and `"` both to `''`), but
    combining marks (written out, see below)."""
    folder = resources.files("confusable_homoglyphs")
    data = json.loads(folder.joinpath("confusables.json").read_text("utf-8"))
    ascii_data = {c: [e["c"] for e in entries] for c, entries in data.items() if c.isascii()}
    forms = {c for c in ascii_data if len(c) == 1 and c.isprintable() and not c.isspace()}
    forms |= {text for c in forms for text in ascii_data[c] if text.isascii()}
    found = {text for c in forms if c in ascii_data for text in ascii_data[c] if len(text) == 1}
    found |= {c for c, entries in data.items() if any(e["c"] in forms for e in entries)}
    return sorted(
        character
        for character in found
        if len(character) == 1
        and not character.isascii()
        and not unicodedata.category(character).startswith("M")
    )


CONFUSABLES_OF_ASCII = _confusables_of_ascii()
QUOTE_CASES = [
    "echo \u02baremoving nothing; touch RAN_1; echo done\u02ba",
    "echo \u2033safe text; touch RAN_2; echo ok\u2033",
    "echo \u201csafe; touch RAN_3; echo x\u201d",
    "echo \u02b9safe; touch RAN_4; echo x\u02b9",
    "echo hello \uff03 touch RAN_5",
    "echo hi\u037e touch RAN_6",
    "echo \u201c\u4f60\u597d ; touch RAN_7 ; \u201d",  # a quote beside CJK text, no ASCII
]


@pytest.mark.parametrize("command", QUOTE_CASES)
def test_a_quote_or_sign_that_passes_for_an_ascii_one_is_marked_in_a_command(command):
    text = style_line(command, ApprovalKind.COMMAND)
    assert text.plain == command
    assert reversed_characters(text) == "".join(c for c in command if not c.isascii()).replace(
        "\u4f60\u597d", ""
    )
    assert holds_lookalike_letters(command, ApprovalKind.COMMAND)


@pytest.mark.parametrize(
    ("word", "lookalike"),
    [
        ("https://\u0261ithub.com/org/tool/install.sh", "\u0261"),  # LATIN SMALL LETTER SCRIPT G
        ("https://g\u0131thub.com/x", "\u0131"),  # dotless i
        ("https://g\u2170thub.com/x", "\u2170"),  # SMALL ROMAN NUMERAL ONE
        ("https://p\u0251ypal.com/x", "\u0251"),  # LATIN SMALL LETTER ALPHA
        ("\u212aey.pem", "\u212a"),  # KELVIN SIGN
        ("examp\u2113e.com", "\u2113"),  # SCRIPT SMALL L
        ("\uff47ithub.txt", "\uff47"),  # FULLWIDTH g
    ],
)
def test_a_latin_or_common_letter_that_passes_for_an_ascii_one_is_marked(word, lookalike):
    """The old rule took a letter's script from the first word of its name (`LATIN`,
    `SMALL`, `KELVIN`, `SCRIPT`) and marked only non-Latin scripts in a Latin word."""
    command = f"curl -fsSL {word}"
    assert reversed_characters(style_line(command, ApprovalKind.COMMAND)) == lookalike
    line = f"+url = {word}"
    expected = "" if lookalike == "\uff47" else lookalike  # a file's wide forms: see below
    assert reversed_characters(style_line(line, ApprovalKind.DIFF)) == expected


def test_a_word_made_only_of_lookalikes_is_marked_among_ascii_text():
    command = "curl \u0430\u0440\u0440\u04cf\u0435"  # Cyrillic, reads `apple`
    assert reversed_characters(style_line(command, ApprovalKind.COMMAND)) == command[5:]
    line = "+echo \u02ba ; rm -rf ~/backups ; \u02ba"  # the quotes stand alone
    assert reversed_characters(style_line(line, ApprovalKind.DIFF)) == "\u02ba\u02ba"


def test_every_confusable_of_ascii_in_the_data_is_marked():
    """All of them, each in a word (`gʺthub.com`), after a word's sign (`rm ʺrf`) and
    standing alone: in a command always, in a file's diff unless drawn two cells wide."""
    missed = []
    for character in CONFUSABLES_OF_ASCII:
        for pattern in ("g{}thub.com", "rm {}rf x", "{}"):
            word = pattern.format(character)
            command = f"curl {word}"
            text = style_line(command, ApprovalKind.COMMAND)
            if text.plain != command or reversed_characters(text) != character:
                missed.append((command, "command"))
            if unicodedata.east_asian_width(character) in "WF":  # see the next test
                continue
            if reversed_characters(style_line(f"+curl {word}", ApprovalKind.DIFF)) != character:
                missed.append((command, "diff"))
    assert not missed, missed[:20]


def test_the_data_holds_many_confusables_of_ascii():
    assert len(CONFUSABLES_OF_ASCII) > 1000
    for character in "\u02ba\u2033\u201c\u201d\u02b9\u037e\u0261\u0131\u0251\u2170\u212a\u2113":
        assert character in CONFUSABLES_OF_ASCII


ACCENTED = sorted(
    chr(code)
    for code in range(0x80, 0x2000)
    if unicodedata.category(chr(code)) in ("Ll", "Lu") and _is_accented_ascii(chr(code))
)
CJK = [chr(code) for code in range(0x4E00, 0x4E00 + 400)] + list("ひらがなカタカナ한국어")
WIDE_PUNCTUATION = list("，。：；（）！？、「」【】")
ascii_words = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789._-/"), min_size=1)
accented_words = st.text(
    st.sampled_from(ACCENTED + list("abcdefghijklmnopqrstuvwxyz")), min_size=1, max_size=12
)
cjk_words = st.text(st.sampled_from(CJK + WIDE_PUNCTUATION), min_size=1, max_size=12)


@pytest.mark.fuzz
@fuzz_settings(0.5)
@given(
    words=st.lists(st.one_of(ascii_words, accented_words, cjk_words), min_size=1, max_size=12),
    kind=st.sampled_from([ApprovalKind.DIFF, ApprovalKind.CONTENT]),
)
def test_ordinary_accented_and_cjk_text_in_a_file_is_never_marked(words, kind):
    line = ("+" if kind is ApprovalKind.DIFF else "") + " ".join(words)
    text = style_line(line, kind)
    assert text.plain == line  # nothing written out
    assert reversed_characters(text) == ""
    assert not holds_lookalike_letters(line, kind)


@pytest.mark.parametrize(
    "line",
    [
        "name = café # naïve Straße Ærøskøbing façade cœur œuvre",
        "說明：請運行程式（第二版），然後重新啟動！",
        "东京Tower 報告書v2.md 한국어 テスト",
        "привет мир, καλημέρα κόσμε",
        "Vietnamese: Tiếng Việt có dấu ơ ư",
    ],
)
@pytest.mark.parametrize("kind", [ApprovalKind.DIFF, ApprovalKind.CONTENT])
def test_ordinary_words_of_many_languages_in_a_file_are_not_marked(line, kind):
    line = ("+" if kind is ApprovalKind.DIFF else "") + line
    text = style_line(line, kind)
    assert text.plain == line and reversed_characters(text) == ""


@pytest.mark.parametrize("kind", list(ApprovalKind))
def test_a_stray_combining_mark_is_written_out(kind):
    """`r̶m` drew struck through and `x̸y` as a crossed `x`: a mark that builds no letter
    Unicode knows whole is written out, in a command and in a file alike."""
    line = "echo hi; r\u0336m -rf x\u0338y \u0301"
    shown = style_line(line, kind).plain
    assert shown == "echo hi; r<U+0336>m -rf x<U+0338>y <U+0301>"


def test_a_decomposed_letter_is_drawn_in_a_file_and_written_out_in_a_command():
    """A file name in a command is its code points: `cafe` + U+0301 is not `café`."""
    assert style_line("cat cafe\u0301.txt", ApprovalKind.COMMAND).plain == "cat cafe<U+0301>.txt"
    assert style_line("+cafe\u0301", ApprovalKind.DIFF).plain == "+cafe\u0301"


@pytest.mark.parametrize("kind", list(ApprovalKind))
@pytest.mark.parametrize("words", ["नमस्ते दुनिया", "สวัสดีครับ", "مَرْحَبًا", "שָׁלוֹם", "за\u0301мок"])
def test_marks_of_other_scripts_are_drawn_as_their_script_needs(kind, words):
    line = ("+" if kind is ApprovalKind.DIFF else "") + words
    assert style_line(line, kind).plain == line
