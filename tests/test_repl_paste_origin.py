"""A placeholder expands only where the prompt made it (twenty-eighth outside test: a
942-character log was sent, then a short paste or typed line showing its placeholder,
`my screen showed: [pasted 942 characters] -- ...`, was sent as the log again).

The pure rules first (`paste_origin`), then a real prompt over a pipe.
"""

from __future__ import annotations

from agent_cli.events import Gauge
from agent_cli.repl.paste import PastedText
from agent_cli.repl.paste_origin import MadePlaceholders

LOG = "SECRET-ISH LOG START\n" + "log line\n" * 102 + "END"
SHOWN = "[pasted 942 characters]"
QUESTION = f"my screen showed: {SHOWN} -- what does that bracket mean?"
PASTE = "\x1b[200~" + LOG + "\x1b[201~"
UP, BACKSPACE, CTRL_W, CTRL_Y, UNDO = "\x1b[A", "\x7f", "\x17", "\x19", "\x1f"


def gauge() -> Gauge:
    return Gauge(tokens=1, soft_threshold=2, hard_limit=3, estimator="e")


def made_after_a_paste() -> tuple[PastedText, MadePlaceholders]:
    pastes = PastedText()
    made = MadePlaceholders(pastes)
    made.start()
    made.follow(f"a {pastes.collapse(LOG)}", 0)
    made.made_here(2, 2 + len(SHOWN))
    return pastes, made


def test_a_made_placeholder_moves_with_the_text_around_it_and_a_look_alike_is_not_made():
    pastes, made = made_after_a_paste()
    made.follow(f"and a {SHOWN}", 0)
    made.follow(f"and a {SHOWN} or {SHOWN}", 0)  # the same text pasted short after it
    assert made.spans == {(6, 6 + len(SHOWN))}
    assert pastes.expand(f"and a {SHOWN} or {SHOWN}", made.spans) == f"and a {LOG} or {SHOWN}"


def test_a_look_alike_in_a_new_input_is_not_made_even_typed_one_key_at_a_time():
    pastes, made = made_after_a_paste()
    made.remember()
    made.start()
    for end in range(1, len(QUESTION) + 1):
        made.follow(QUESTION[:end], 0)
    assert made.spans == frozenset()
    assert pastes.expand(QUESTION, made.spans) == QUESTION


def test_a_placeholder_the_input_lost_and_got_back_is_made_again():
    _, made = made_after_a_paste()
    made.follow("a ", 0)  # Backspace took it out
    made.follow(f"a {SHOWN}", 0)  # undo
    assert made.spans == {(2, 2 + len(SHOWN))}
    made.follow(f"a {SHOWN[:-1]}", 0)  # broken
    made.follow(f"a {SHOWN}", 0)  # undo
    assert made.spans == {(2, 2 + len(SHOWN))}


def test_a_history_entry_shows_the_placeholders_it_was_remembered_with():
    _, made = made_after_a_paste()
    made.remember()
    made.start()
    made.follow(f"a {SHOWN}", 1)  # Up to it
    assert made.spans == {(2, 2 + len(SHOWN))}
    made.follow("typed", 0)  # Down to the new line, as it was left
    made.follow(f"a {SHOWN}", 1)
    assert made.spans == {(2, 2 + len(SHOWN))}
    made.start(f"a {SHOWN}")  # an input given back to the prompt
    assert made.spans == {(2, 2 + len(SHOWN))}


# --- a real prompt over a pipe ----------------------------------------------------------


def test_a_paste_or_typing_that_shows_a_placeholder_of_this_run_is_sent_as_it_is(pipe_reader):
    pipe, reader = pipe_reader
    pipe.send_text(PASTE + "\r")
    assert reader.read_line(gauge) == LOG
    pipe.send_text("\x1b[200~" + QUESTION + "\x1b[201~\r")
    assert reader.read_line(gauge) == QUESTION
    pipe.send_text(QUESTION + "\r")
    assert reader.read_line(gauge) == QUESTION
    pipe.send_text(UP + "\r")  # recalled: still the question
    assert reader.read_line(gauge) == QUESTION
    pipe.send_text(UP * 4 + "\r")  # the paste's own line: the paste
    assert reader.read_line(gauge) == LOG


def test_undo_and_ctrl_y_still_bring_the_paste_back_but_not_a_look_alike(pipe_reader):
    pipe, reader = pipe_reader
    pipe.send_text(PASTE + "\r")
    assert reader.read_line(gauge) == LOG
    pipe.send_text(SHOWN + BACKSPACE + UNDO + "\r")  # typed; Backspace takes it as a unit
    assert reader.read_line(gauge) == SHOWN
    pipe.send_text(PASTE + BACKSPACE + UNDO + " and " + SHOWN + "\r")
    assert reader.read_line(gauge) == f"{LOG} and {SHOWN}"
    pipe.send_text("a " + PASTE + CTRL_W + "b " + CTRL_Y + "\r")
    assert reader.read_line(gauge) == "a b " + LOG
