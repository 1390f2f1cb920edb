"""Pastes told apart from typing in what the terminal sent between prompts (twenty-seventh
outside test: a paste made during a turn came as plain lines, and each was sent)."""

from __future__ import annotations

from agent_cli.repl.paste_marks import PASTE_END, PASTE_START, PasteMarks


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
    assert marks.close() == "cut short"
    assert marks.close() == ""  # none open
    assert marks.split("typed\n") == [(False, "typed\n")]
