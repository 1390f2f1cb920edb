"""The prompts' input takes a paste by bursts (twenty-eighth outside test: at a permission
question one paste of `see the notes below ESC[201~ LF a LF` was refused as no answer, then
its `a` line answered "always" and the command ran; at an idle prompt it sent two requests
nobody reviewed and left `[201~` in the prompt; a start mark `ESC[200~` whose end never came
took Enter, Ctrl-C and a cursor report into a paste sent much later)."""

from __future__ import annotations

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.keys import Keys

from agent_cli.repl.paste_input import BurstPasteParser, guard_pastes
from agent_cli.repl.paste_marks import PASTE_END, PASTE_START

TESTER_PASTE = f"{PASTE_START}see the notes below{PASTE_END}\na\n{PASTE_END}"


def parser(waiting: list[bool] | None = None) -> tuple[BurstPasteParser, list[KeyPress]]:
    keys: list[KeyPress] = []
    more = waiting if waiting is not None else [False]
    return BurstPasteParser(keys.append, lambda: more[0]), keys


def shown(keys: list[KeyPress]) -> list[tuple[object, str]]:
    return [(key.key, key.data) for key in keys]


def test_a_paste_holding_an_end_mark_then_a_line_is_one_paste_key_and_no_enter():
    feed, keys = parser()
    feed.feed(TESTER_PASTE)
    assert shown(keys) == [(Keys.BracketedPaste, "see the notes below\na\n")]
    feed.feed("\r")  # the user's own Enter, a read of its own
    assert shown(keys)[-1] == (Keys.ControlM, "\r")


def test_a_paste_read_in_pieces_ends_only_where_nothing_more_waits():
    waiting = [True]
    feed, keys = parser(waiting)
    feed.feed(f"{PASTE_START}see{PASTE_END}")  # its own end mark, where a read stopped
    assert keys == []
    waiting[0] = False
    feed.feed(f"\ny\n{PASTE_END}")
    assert shown(keys) == [(Keys.BracketedPaste, "see\ny\n")]


def test_an_unended_paste_is_handed_over_at_the_quiet_flush_and_keys_work_again():
    feed, keys = parser()
    feed.feed(f"x{PASTE_START}half a paste")
    feed.feed("\x1b[6;1R")  # the terminal answers the prompt's cursor question meanwhile
    assert shown(keys) == [("x", "x"), (Keys.CPRResponse, "\x1b[6;1R")]
    feed.flush()  # prompt_toolkit's flush after `ttimeoutlen` of quiet
    assert shown(keys)[-1] == (Keys.BracketedPaste, "half a paste")
    feed.feed("!\r")
    assert shown(keys)[-2:] == [("!", "!"), (Keys.ControlM, "\r")]


def test_typed_keys_and_escape_sequences_are_keys_as_before():
    feed, keys = parser()
    feed.feed("ab\x1b[D\x03")
    feed.flush()
    assert shown(keys) == [("a", "a"), ("b", "b"), (Keys.Left, "\x1b[D"), (Keys.ControlC, "\x03")]


def test_guarding_a_terminal_input_twice_keeps_one_burst_parser():
    with create_pipe_input() as pipe:
        guard_pastes(pipe)
        installed = pipe.vt100_parser
        assert isinstance(installed, BurstPasteParser)
        guard_pastes(pipe)
        assert pipe.vt100_parser is installed
        pipe.send_text(TESTER_PASTE)
        assert shown(pipe.read_keys()) == [(Keys.BracketedPaste, "see the notes below\na\n")]
