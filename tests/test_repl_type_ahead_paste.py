"""A paste made while no prompt was shown (the terminal marks it: bracketed paste) waits in
the next prompt whole, and only it becomes a placeholder (twenty-seventh outside test: two
pasted lines were sent as two requests, `delete the build folder\\n` at once, and the words
typed around a long paste folded into its placeholder)."""

from __future__ import annotations

from prompt_support import prompt_returns
from prompt_toolkit.keys import Keys

from agent_cli.repl.paste import PastedText, describe_paste
from agent_cli.repl.type_ahead import TypeAhead, TypedText

LOG = "".join(f"LOG-A line {i:03d} alpha\n" for i in range(60))
SHOWN = describe_paste(LOG)


def pasted(text: str) -> bytes:
    return f"\x1b[200~{text}\x1b[201~".encode()


def prompt_shows(keys, then: str = "\r") -> str:
    """What the agent's prompt, placeholders and all, returns (`prompt_support`)."""
    return prompt_returns(keys, then, PastedText())


def test_a_pasted_line_break_sends_nothing_whatever_the_lines():
    for text in ("delete the build folder\n", "line one\nline two", "a\nb\nc\n"):
        kept = TypeAhead()
        kept.add(pasted(text))
        assert kept.sends() == 0
        keys = kept.take_line()
        assert [(key.key, key.data) for key in keys] == [(Keys.BracketedPaste, text)]
        assert not kept


def test_a_line_typed_with_enter_before_a_paste_is_sent_and_the_paste_waits_for_the_next():
    kept = TypeAhead()
    kept.add(b"/new\n" + pasted(LOG))
    assert kept.sends() == 1
    assert "".join(key.data for key in kept.take_line()) == "/new\n"
    assert [(key.key, key.data) for key in kept.take_line()] == [(Keys.BracketedPaste, LOG)]


def test_words_typed_around_a_paste_stay_outside_its_placeholder():
    kept = TypeAhead()
    kept.add(b"why does this fail? " + pasted(LOG) + b" it started after the upgrade!")
    assert kept.preview() == f"why does this fail? {SHOWN} it started after the upgrade!"
    shown = prompt_shows(kept.take_line(), "\x7f\r")  # one Backspace: the `!` only
    assert shown == f"why does this fail? {SHOWN} it started after the upgrade"


def test_held_words_stay_typed_text_apart_from_the_paste_between_them():
    kept = TypeAhead()
    kept.add(b"look\n" + pasted(LOG) + b"\nand this\n")
    kept.hold()  # Ctrl-C, or a question asked
    keys = kept.take_line()
    assert [(type(key), key.data) for key in keys] == [
        (TypedText, "look\n"),
        (type(keys[1]), LOG),
        (TypedText, "\nand this"),
    ]
    assert not isinstance(keys[1], TypedText)
    assert prompt_shows(keys) == f"look\n{SHOWN}\nand this"


def test_held_typed_text_is_never_a_placeholder_however_long():
    kept = TypeAhead()
    kept.keep(LOG.rstrip("\n"))  # a long reply typed at a question that was no answer
    assert prompt_shows(kept.take_line()) == LOG.rstrip("\n")


def test_a_paste_whose_end_never_came_is_handed_over_as_far_as_it_came():
    kept = TypeAhead()
    kept.add(b"x\x1b[200~cut short\nof its end")
    assert kept.is_mid_paste and kept.sends() == 0
    keys = kept.take_line()
    assert [(key.key, key.data) for key in keys][-1] == (
        Keys.BracketedPaste,
        "cut short\nof its end",
    )
    assert not kept.is_mid_paste


def test_a_paste_holding_an_end_mark_during_a_turn_waits_whole_and_leaves_no_mark():
    # twenty-eighth outside test: `first pasted line ESC[201~ LF second line …` pasted
    # during a turn waited, but with `[201~` left in the prompt after its lines
    kept = TypeAhead()
    kept.add(pasted("first pasted line\x1b[201~\nsecond line that should wait\n") + b" typed")
    assert kept.sends() == 0
    assert kept.preview() == "first pasted line\nsecond line that should wait\n typed"
    keys = kept.take_line()
    assert (keys[0].key, keys[0].data) == (
        Keys.BracketedPaste,
        "first pasted line\nsecond line that should wait\n",
    )
    assert "".join(key.data for key in keys[1:]) == " typed"


def test_a_cursor_report_or_control_byte_in_a_paste_never_reaches_the_prompt():
    kept = TypeAhead()
    kept.add(b"\x1b[200~half a paste\x1b[6;1R then\x03 more")
    keys = kept.take_line()
    assert [(key.key, key.data) for key in keys] == [
        (Keys.BracketedPaste, "half a paste then more")
    ]
