"""What was typed during a turn that Ctrl-C cancelled is not sent by itself: it waits in
the next prompt, every line of it (sixteenth outside attack: two lines typed during a
`sleep 30` were each sent as a turn right after Ctrl-C; a queued `y` went to the model).
A turn that ended by itself still sends a line typed ahead with Enter, as a shell does."""

from __future__ import annotations

import pytest
from prompt_support import prompt_returns
from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.keys import Keys
from repl_fakes import FakeBackend, FakeSession, answer, make_console

from agent_cli.events import TurnEnded
from agent_cli.repl.loop import Repl
from agent_cli.repl.type_ahead import TypeAhead, TypedText

TYPED = b"first queued line\nsecond queued line\n"  # cooked mode: each Enter is a \n


def typed(keys) -> str:
    return "".join(key.data for key in keys)


def test_without_a_cancel_the_keys_are_given_one_line_at_a_time():
    kept = TypeAhead()
    kept.add(TYPED)
    assert typed(kept.take_line()) == "first queued line\n"
    assert typed(kept.take_line()) == "second queued line\n"
    assert not kept


def test_sends_counts_the_lines_the_keys_would_send_not_those_of_alt_enter():
    kept = TypeAhead()
    kept.add(b"one line\x1b\rstill the first\nsecond")
    assert kept.sends() == 1
    kept.add(b"\n")
    assert kept.sends() == 2
    kept.hold()
    assert kept.sends() == 0


def test_held_text_is_one_typed_text_with_every_enter_a_new_line_and_none_at_the_end():
    # one step for the prompt, however long: fed key by key a 165 KB paste took gigabytes
    kept = TypeAhead()
    kept.add(TYPED + b"\tindented\x1b\ralt-entered\n\n")
    kept.hold()
    keys = kept.take_line()
    assert not kept  # all of it went to one prompt
    assert [type(key) for key in keys] == [TypedText]
    assert keys[0].data == "first queued line\nsecond queued line\n\tindented\nalt-entered"


def test_held_keys_other_than_text_stay_keys_between_the_typed_text_each_enter_a_line_break():
    kept = TypeAhead()
    kept.add(b"first\x1b[Dx\x1b[C\nsecond\n")  # arrows typed ahead: keys, not text
    kept.hold()
    keys = kept.take_line()
    assert [(type(key), key.key, key.data) for key in keys] == [
        (TypedText, Keys.BracketedPaste, "first"),
        (KeyPress, Keys.Left, "\x1b[D"),
        (TypedText, Keys.BracketedPaste, "x"),
        (KeyPress, Keys.Right, "\x1b[C"),
        (TypedText, Keys.BracketedPaste, "\nsecond"),
    ]
    assert prompt_returns(keys, "\r") == "firsxt\nsecond"


def test_held_lines_wait_in_the_prompt_until_the_user_sends_them():
    kept = TypeAhead()
    kept.add(TYPED)
    kept.hold()
    assert prompt_returns(kept.take_line(), " and more\r") == (
        "first queued line\nsecond queued line and more"
    )


def test_without_hold_the_first_typed_line_is_sent_as_it_was_ended():
    kept = TypeAhead()
    kept.add(TYPED)
    assert prompt_returns(kept.take_line(), "never read\r") == "first queued line"


class HoldingReader:
    """Scripted lines; counts the calls to `hold_typed_ahead`."""

    shows_gauge = False
    can_ask = False

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.holds = 0

    def read_line(self, gauge_source=None) -> str:
        if not self.lines:
            raise EOFError
        return self.lines.pop(0)

    def refresh(self) -> None:
        pass

    def ask(self, question: str) -> str:
        return "n"

    def hold_typed_ahead(self) -> None:
        self.holds += 1


def run_lines(session: FakeSession, lines: list[str]) -> HoldingReader:
    reader = HoldingReader(lines)
    Repl(
        session=session,
        backend=FakeBackend().factory(None, None),
        reader=reader,
        console=make_console(),
        live=False,
        offline_fallback=True,
    ).run()
    return reader


def test_a_cancelled_turn_holds_what_was_typed_during_it():
    session = FakeSession(script=lambda text: [TurnEnded(outcome="cancelled")])
    assert run_lines(session, ["start the job"]).holds == 1


def test_a_cancelled_compaction_holds_it_too():
    session = FakeSession(compact_script=[TurnEnded(outcome="cancelled")])
    assert run_lines(session, ["/compact"]).holds == 1


def test_a_turn_that_ended_by_itself_holds_nothing():
    assert run_lines(FakeSession(script=lambda text: answer("done")), ["hi", "/stats"]).holds == 0


def test_ctrl_c_that_escapes_the_turn_holds_what_was_typed():
    def interrupted(text: str):
        raise KeyboardInterrupt

    session = FakeSession(script=interrupted)
    assert run_lines(session, ["start the job"]).holds == 1


class InterruptedStats(FakeSession):
    def stats(self):
        raise KeyboardInterrupt


def test_ctrl_c_inside_a_command_holds_what_was_typed():
    assert run_lines(InterruptedStats(), ["/stats"]).holds == 1


def test_a_kept_reply_waits_after_the_keys_typed_before_it_and_sends_nothing():
    kept = TypeAhead()
    kept.add(b"typed before the question\n")
    kept.keep("ywrite notes.txt: the colour is blue")
    assert kept.sends() == 0
    keys = kept.take_line()
    assert [key.key for key in keys] == [Keys.BracketedPaste]
    assert keys[0].data == "typed before the question\nywrite notes.txt: the colour is blue"


def test_keys_added_after_a_hold_are_held_too_until_a_prompt_took_them():
    kept = TypeAhead()
    kept.keep("no wait")
    kept.add(b"typed during the rest of the turn\n")  # would have been sent with it
    assert kept.sends() == 0
    assert kept.take_line()[0].data == "no wait\ntyped during the rest of the turn"
    kept.add(b"next line\n")  # a new start: a line ended with Enter sends again
    assert kept.sends() == 1


def test_text_left_unfinished_at_a_question_carries_on_with_the_keys_typed_after_it():
    kept = TypeAhead()
    kept.add(b"typed before the question\n")
    kept.keep("no - first explain", ended=False)  # Ctrl-C, not Enter, ended the question
    kept.add(b" why\n")  # typed on after it, before the next prompt: the same line
    assert kept.sends() == 0
    assert kept.take_line()[0].data == "typed before the question\nno - first explain why"


def test_text_typed_at_a_question_that_ctrl_c_ended_waits_unsent_in_the_next_prompt(
    pipe_reader,
):
    # twenty-third outside test: the text was gone from the next prompt and the history
    pipe, reader = pipe_reader
    pipe.send_text("no - first explain why the file is needed\x03")
    with pytest.raises(KeyboardInterrupt):
        reader.ask("allow? [y] once · [n] no: ")
    reader.hold_typed_ahead()  # the turn was cancelled (`Repl.handle_line`)
    pipe.send_text(" and what else changes\r")
    assert reader.read_line() == ("no - first explain why the file is needed and what else changes")


def test_an_answer_word_left_at_a_question_by_ctrl_c_is_not_kept(pipe_reader):
    pipe, reader = pipe_reader
    pipe.send_text(" y\x03")  # meant for the question that Ctrl-C took away
    with pytest.raises(KeyboardInterrupt):
        reader.ask("allow? [y] once · [n] no: ")
    reader.hold_typed_ahead()
    pipe.send_text("next request\r")
    assert reader.read_line() == "next request"


def test_the_preview_applies_backspace_and_word_erase_and_a_ctrl_d_is_dropped():
    kept = TypeAhead()
    kept.add(b"hell\x7f\x7fllo wrd\x17world\x04\nsecond")
    assert kept.preview() == "hello world\nsecond"
    assert all(key.key != Keys.ControlD for key in kept.take_line())


def test_the_preview_shows_what_stands_after_the_cursor_too():
    """Eighteenth attack, second round: Left Left, more typing and Ctrl-U left `ün` after
    the cursor, which the row did not show and the next prompt then sent."""
    kept = TypeAhead()
    kept.add("abc def\x17中文 ünï\x7f\x1b[D\x1b[DXYZ\x15kept".encode())
    assert kept.preview() == "keptün"
    kept.add(b"\x1b[H>\x1b[F<\x01^\x05$")  # Home, End, Ctrl-A, Ctrl-E
    assert kept.preview() == "^>keptün<$"
    kept.add(b"\x1b[D\x1b[3~")  # Left, then Delete: the character after the cursor
    assert kept.preview() == "^>keptün<"


def test_the_typed_row_is_one_row_keeping_the_end_of_what_was_typed():
    from rich.cells import cell_len

    from agent_cli.repl.model_wait import build_typed_row

    row = build_typed_row("first line\n" + "x" * 100 + " the end", 40)
    assert row.plain.startswith("› …") and row.plain.endswith("the end")
    assert cell_len(row.plain) == 39 and "\n" not in row.plain
    assert build_typed_row("a\nb\x1b[2J", 40).plain == "› a ⏎ b"


def test_a_line_typed_before_a_question_is_held_for_the_prompt_not_sent_and_marked_so():
    # twenty-fifth outside test: a `y` queued for a permission question was sent, once the
    # turn ended, as the reply to the model's next question ("delete the backups? (y/n)")
    kept = TypeAhead()
    kept.add(b"y\n")
    kept.hold(before_question=True)  # `PromptReader.ask`
    assert kept.sends() == 0 and kept.is_before_question
    assert prompt_returns(kept.take_line(), " to the first step only\r") == (
        "y to the first step only"
    )
    assert not kept.is_before_question  # the prompt that got it said why, once


def test_keys_typed_after_the_question_join_the_held_line_on_a_line_of_their_own():
    kept = TypeAhead()
    kept.add(b"y\n")
    kept.hold(before_question=True)
    kept.add(b"")  # the spinner drains the terminal all the time, mostly finding nothing
    kept.add(b"and then this\n")
    assert kept.sends() == 0 and kept.is_before_question
    assert kept.take_line()[0].data == "y\nand then this"


def test_a_kept_reply_is_not_glued_to_the_keys_typed_after_it_by_an_empty_drain():
    kept = TypeAhead()
    kept.keep("no wait")
    kept.add(b"")
    kept.add(b"typed during the rest of the turn\n")
    assert kept.take_line()[0].data == "no wait\ntyped during the rest of the turn"


@pytest.mark.parametrize("typed_before", [b"", b"\n"])
def test_a_hold_that_keeps_nothing_leaves_the_next_line_typed_ahead_to_be_sent(typed_before):
    # a question asked with nothing (or a bare Enter) typed before it, a turn cancelled
    # with nothing typed: the next turn's line typed ahead was held all the same
    kept = TypeAhead()
    kept.add(typed_before)
    kept.hold(before_question=True)
    assert not kept and not kept.is_before_question
    kept.add(b"next request\n")
    assert kept.sends() == 1
    assert typed(kept.take_line()) == "next request\n"
