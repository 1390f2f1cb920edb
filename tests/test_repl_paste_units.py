"""A long paste's placeholder is one unit in the prompt, and a line that broke one is not
sent (session 26, T2: one Backspace after a 1,200-character paste left `[pasted 1,200
characters`, which was sent as it was, the log gone; typing inside the placeholder sent
`[pasted 1,200 characx ...ters]`).

The pure rules first (`paste_units`), then the keys on a real prompt over a pipe.
"""

from __future__ import annotations

from prompt_toolkit.document import Document
from prompt_toolkit.validation import ValidationError

from agent_cli.events import Gauge
from agent_cli.repl.paste import PastedText
from agent_cli.repl.paste_keys import PasteKeys, describe_broken
from agent_cli.repl.paste_units import Span, find_broken, kept_span, nearest_edge, without_span

LOG = "".join(f"2026-12-06 ERROR worker-{i}: connection reset by peer\n" for i in range(24))[:1200]
SHOWN = "[pasted 1,200 characters]"
PASTE = "\x1b[200~" + LOG + "\x1b[201~"
LEFT, RIGHT, UP, DELETE, END = "\x1b[D", "\x1b[C", "\x1b[A", "\x1b[3~", "\x1b[F"
BACKSPACE, CTRL_W, CTRL_Y, UNDO = "\x7f", "\x17", "\x19", "\x1f"
ALT_U, ALT_ENTER = "\x1bu", "\x1b\r"


def gauge() -> Gauge:
    return Gauge(tokens=1, soft_threshold=2, hard_limit=3, estimator="e")


def kept() -> PastedText:
    pastes = PastedText()
    assert pastes.collapse(LOG) == SHOWN
    return pastes


def test_a_kept_placeholder_is_found_on_either_side_of_the_cursor_or_around_it():
    pastes = kept()
    text = f"see {SHOWN} now"
    start, end = 4, 4 + len(SHOWN)
    assert kept_span(text, end, pastes, "before") == Span(start, end)
    assert kept_span(text, start, pastes, "after") == Span(start, end)
    assert kept_span(text, start + 5, pastes, "around") == Span(start, end)
    assert kept_span(text, start, pastes, "before") is None
    assert kept_span(text, end, pastes, "around") is None
    assert without_span(text, Span(start, end)) == ("see  now", start)


def test_text_that_only_looks_like_a_placeholder_is_no_unit():
    pastes = kept()
    typed = "why [pasted 9 characters]"
    assert kept_span(typed, len(typed), pastes, "before") is None


def test_a_cursor_inside_goes_to_the_nearer_edge():
    assert nearest_edge(Span(10, 35), 12) == 10
    assert nearest_edge(Span(10, 35), 30) == 35
    assert nearest_edge(Span(10, 36), 23) == 36  # a tie: the end


def test_a_held_placeholder_with_a_piece_of_it_left_is_broken():
    pastes = kept()
    for line in (
        "[pasted 1,200 characters what does this log mean?",  # Backspace on its `]`
        "[pasted 1,200 characx what does this log mean?ters]",  # typed inside it
        "pasted 1,200 characters] what",  # Delete on its `[`
        "[pasted 1,200  what",  # Ctrl-W on `characters]`
        "[pasted ",
        " 1,200 characters]",
        "[PASTED 1,200 characters]",  # the case of a word changed
    ):
        broken = find_broken(line, {SHOWN}, pastes)
        assert broken is not None and broken.placeholder == SHOWN, line
    piece = find_broken("why [pasted 1,2", {SHOWN}, pastes)
    assert piece is not None and piece.piece_at == 4  # the cursor goes there


def test_a_placeholder_taken_out_whole_or_kept_whole_is_not_broken():
    pastes = kept()
    assert find_broken("what does this log mean?", {SHOWN}, pastes) is None
    assert find_broken(f"{SHOWN} what does it mean?", {SHOWN}, pastes) is None
    # typed text about placeholders, with nothing held, is the user's to send
    assert find_broken("why does it say [pasted 1,2", set(), pastes) is None
    # a whole placeholder the reader does not know is typed text, no piece
    assert find_broken("it said [pasted 9 characters]", {SHOWN}, pastes) is None


def test_the_validator_refuses_a_broken_placeholder_saying_how_to_get_the_paste_back():
    keys = PasteKeys(kept())
    keys.continue_input(f"{SHOWN} and a question")
    keys.validator.validate(Document(f"{SHOWN} and a question"))  # whole: nothing raised
    try:
        keys.validator.validate(Document("x [pasted 1,200 characters and a question"))
    except ValidationError as refused:
        assert refused.cursor_position == 2
        assert refused.message == describe_broken(SHOWN)
        assert "not sent" in refused.message and "Ctrl-_ (undo)" in refused.message
        assert len(refused.message) <= 80  # one row: the toolbar cuts what is longer
    else:
        raise AssertionError("a broken placeholder passed")
    keys.start_input()  # a new input has shown nothing yet
    keys.validator.validate(Document("x [pasted 1,200 characters and a question"))


# --- the keys, on a real prompt over a pipe ---------------------------------------------


def test_one_backspace_after_a_paste_takes_out_the_whole_paste(pipe_reader):
    pipe, reader = pipe_reader
    pipe.send_text(PASTE + BACKSPACE + "what does this log mean?\r")
    assert reader.read_line(gauge) == "what does this log mean?"


def test_after_that_backspace_text_about_placeholders_is_sent_as_typed(pipe_reader):
    """The paste was taken out on purpose: nothing of it is left to break."""
    pipe, reader = pipe_reader
    pipe.send_text(PASTE + BACKSPACE + "why did it say [pasted 1,2?\r")
    assert reader.read_line(gauge) == "why did it say [pasted 1,2?"


def test_undo_after_that_backspace_brings_the_whole_paste_back(pipe_reader):
    pipe, reader = pipe_reader
    pipe.send_text(PASTE + BACKSPACE + UNDO + " what does this log mean?\r")
    assert reader.read_line(gauge) == LOG + " what does this log mean?"


def test_delete_and_the_word_kills_take_out_the_whole_paste_and_ctrl_y_puts_it_back(
    pipe_reader,
):
    pipe, reader = pipe_reader
    pipe.send_text("a " + PASTE + " b" + LEFT * 3 + DELETE + "\r")  # Left: over the space
    assert reader.read_line(gauge) == "a  b"
    pipe.send_text("a " + PASTE + CTRL_W + "b " + CTRL_Y + "\r")
    assert reader.read_line(gauge) == "a b " + LOG


def test_the_cursor_jumps_over_a_placeholder_so_typing_never_lands_inside_it(pipe_reader):
    pipe, reader = pipe_reader
    pipe.send_text("a" + PASTE + LEFT * 5 + "x" + RIGHT + "y\r")
    # Left: over the placeholder, then past `a`; x at the start; Right over `a`; then y
    # goes before the placeholder, never in it
    assert reader.read_line(gauge) == "xay" + LOG


def test_up_into_a_placeholder_puts_the_cursor_at_its_nearer_edge(pipe_reader):
    pipe, reader = pipe_reader
    pipe.send_text(PASTE + ALT_ENTER + "0123456789" + UP + "x\r")
    # column 10 of the line above is inside the 25 characters: the start is nearer
    assert reader.read_line(gauge) == "x" + LOG + "\n0123456789"


def test_enter_does_not_send_a_broken_placeholder_and_undo_brings_the_paste_back(pipe_reader):
    pipe, reader = pipe_reader
    # Alt-U upper-cases the word after the cursor: `[PASTED 1,200 characters]` is no
    # placeholder; Enter is refused (had it sent, read_line would return that text),
    # then Ctrl-_ undoes the change, End, Enter sends the whole paste
    pipe.send_text(PASTE + LEFT + ALT_U + "\r" + UNDO + END + " ok?\r")
    assert reader.read_line(gauge) == LOG + " ok?"


def test_a_recalled_line_of_this_run_is_guarded_too(pipe_reader):
    pipe, reader = pipe_reader
    pipe.send_text(PASTE + "\r")
    assert reader.read_line(gauge) == LOG
    pipe.send_text(UP + LEFT + ALT_U + "\r" + UNDO + "\r")
    assert reader.read_line(gauge) == LOG
