"""Pastes told apart from typing in what the terminal sent between prompts (twenty-seventh
outside test: a paste made during a turn came as plain lines, and each was sent)."""

from __future__ import annotations

from agent_cli.repl.paste_marks import PASTE_END, PASTE_START, PasteMarks, paste_text


def test_a_marked_paste_is_one_part_between_the_typed_text_around_it():
    marks = PasteMarks()
    parts = marks.split(f"why? {PASTE_START}line one\nline two\n{PASTE_END} tail\n")
    assert parts == [(False, "why? "), (True, "line one\nline two\n"), (False, " tail\n")]
    assert not marks.is_open


def test_a_paste_that_comes_in_pieces_is_one_part_even_with_its_end_mark_cut():
    marks = PasteMarks()
    assert marks.split(f"a{PASTE_START}first piece ") == [(False, "a")]
    assert marks.is_open
    assert marks.split("second piece\x1b[20") == []
    assert marks.split("1~b") == [(True, "first piece second piece"), (False, "b")]
    assert not marks.is_open


def test_two_pastes_in_one_piece_are_two_parts():
    marks = PasteMarks()
    text = f"{PASTE_START}one{PASTE_END}{PASTE_START}two{PASTE_END}"
    assert marks.split(text) == [(True, "one"), (True, "two")]


def test_closing_an_open_paste_gives_what_came_of_it_and_typing_after_is_typing():
    marks = PasteMarks()
    marks.split(f"{PASTE_START}cut short")
    assert marks.close() == [(True, "cut short")]
    assert marks.close() == []  # none open
    assert marks.split("typed\n") == [(False, "typed\n")]


# twenty-eighth outside test: a paste whose own text held an end mark, then `a` and a line
# break, answered a permission question "always"; a start mark whose end never came took
# every key after it

TESTER_PASTE = f"{PASTE_START}see the notes below{PASTE_END}\na\n{PASTE_END}"


def test_in_a_burst_an_end_mark_with_more_after_it_is_the_pastes_own_text():
    marks = PasteMarks(bursts=True)
    assert marks.split(TESTER_PASTE) == [(True, "see the notes below\na\n")]
    assert not marks.is_open


def test_in_a_burst_what_follows_the_last_end_mark_is_the_paste_too_until_a_burst_ends_on_one():
    marks = PasteMarks(bursts=True)
    assert marks.split(f"{PASTE_START}one{PASTE_END}\ny\n") == []
    assert marks.is_open
    assert marks.split(f"more\n{PASTE_END}") == [(True, "one\ny\nmore\n")]


def test_in_a_burst_an_end_mark_with_more_waiting_to_be_read_does_not_end_the_paste():
    # a paste read in several pieces (1,024 bytes a read) whose own end mark ends a piece
    marks = PasteMarks(bursts=True)
    assert marks.split(f"{PASTE_START}first{PASTE_END}", more_waiting=True) == []
    assert marks.split(f"\nn\n{PASTE_END}") == [(True, "first\nn\n")]


def test_in_a_burst_a_mark_cut_between_two_reads_is_still_a_mark():
    marks = PasteMarks(bursts=True)
    assert marks.split("typed \x1b[20") == [(False, "typed ")]
    assert marks.split("0~pasted\n\x1b[2") == []
    assert marks.split("01~") == [(True, "pasted\n")]
    assert marks.split("\x1b") == []  # a lone Escape waits for what the next read says
    assert marks.close() == [(False, "\x1b")]


def test_an_end_mark_with_no_paste_open_ends_a_paste_of_what_came_before_it():
    # the paste's end was taken too early (its own end mark where a read stopped)
    for bursts in (True, False):
        marks = PasteMarks(bursts=bursts)
        assert marks.split(f"rest of it\ny\n{PASTE_END}typed") == [
            (True, "rest of it\ny\n"),
            (False, "typed"),
        ]


def test_between_prompts_an_end_mark_followed_by_another_is_the_pastes_own_text():
    marks = PasteMarks()
    assert marks.split(f"why? {TESTER_PASTE} typed after\n") == [
        (False, "why? "),
        (True, "see the notes below\na\n"),
        (False, " typed after\n"),
    ]
    text = f"{PASTE_START}one{PASTE_END} words {PASTE_START}two{PASTE_END}"
    assert marks.split(text) == [(True, "one"), (False, " words "), (True, "two")]


def test_a_cursor_report_inside_an_open_paste_is_given_as_typed_not_pasted():
    marks = PasteMarks(bursts=True)
    assert marks.split(f"{PASTE_START}half a paste") == []
    assert marks.split("\x1b[6;1R then typed") == [(False, "\x1b[6;1R")]
    assert marks.close() == [(True, "half a paste then typed")]


def test_a_pastes_text_holds_no_control_byte_or_escape_sequence():
    raw = "a\x03b\x1b[31mred\x1b[0m\tc\r\nd\x1b[6;1R\x1b[200~e\x7f\x9bf\x1bxg\x1b"
    assert paste_text(raw) == "abred\tc\r\ndefg"
    marks = PasteMarks()
    assert marks.split(f"{PASTE_START}{raw}{PASTE_END}") == [
        (False, "\x1b[6;1R"),  # the terminal's answer to the prompt, not pasted text
        (True, "abred\tc\r\ndefg"),
    ]


def test_in_a_burst_keys_typed_after_a_paste_with_no_end_mark_after_them_are_typed_at_close():
    # no terminal ends a paste without its mark: what follows the last one, once the
    # terminal is quiet, was typed right after the paste (in the same read)
    marks = PasteMarks(bursts=True)
    assert marks.split(f"{PASTE_START}pasted{PASTE_END}\x7fwhy?\r") == []
    assert marks.close() == [(True, "pasted"), (False, "\x7fwhy?\r")]
