"""`/resume` takes a start of an id or a number of `/sessions`, and Tab completes command
names, session ids after `/resume ` and pointers after `/expand ` (issue 23 item 11)."""

from __future__ import annotations

import dataclasses

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from repl_fakes import FakeBackend, FakeSession, listed_session, make_console

from agent_cli.errors import SessionChoiceAmbiguous
from agent_cli.repl.argument_choices import ArgumentChoice
from agent_cli.repl.commands import command_summaries
from agent_cli.repl.loop import Repl
from agent_cli.repl.prompt import SlashCommandCompleter
from agent_cli.repl.session_choice import choose_session
from agent_cli.repl.session_views import build_sessions_view

OLDER = "20261203-091436-68f9c2"
MIDDLE = "20261203-101500-a1b2c3"
NEWER = "20261204-080000-ffee00"
LISTED = [listed_session(NEWER), listed_session(MIDDLE), listed_session(OLDER)]


# --- which session is meant -------------------------------------------------------------------


def test_a_number_means_that_row_of_the_sessions_list():
    assert choose_session("1", LISTED) == NEWER
    assert choose_session("3", LISTED) == OLDER


def test_a_unique_start_of_an_id_means_that_session_and_a_whole_id_itself():
    assert choose_session("20261204", LISTED) == NEWER
    assert choose_session("20261203-09", LISTED) == OLDER
    assert choose_session(MIDDLE, LISTED) == MIDDLE


def test_a_start_several_ids_share_names_them_all():
    with pytest.raises(SessionChoiceAmbiguous) as caught:
        choose_session("20261203", LISTED)
    assert caught.value.candidates == (MIDDLE, OLDER)


def test_a_start_of_an_id_never_means_the_open_session():
    with pytest.raises(SessionChoiceAmbiguous) as caught:
        choose_session("2026", LISTED, NEWER)
    assert caught.value.candidates == (MIDDLE, OLDER)  # the open one is not a candidate
    assert choose_session("20261204", LISTED, NEWER) == "20261204"  # no other: not found
    assert choose_session("1", LISTED, NEWER) == NEWER  # its number still names it


def test_what_matches_nothing_is_tried_as_it_was_typed():
    assert choose_session("nope", LISTED) == "nope"
    assert choose_session("4", LISTED) == "4"  # past the list: no number, no id


def test_a_number_past_the_list_is_never_taken_for_the_start_of_an_id():
    """Eighteenth attack, second round: with one session, `--resume 2` opened it, since
    its id starts with "2026"; a number under four digits is a number of the list only."""
    assert choose_session("2", LISTED[:1]) == "2"
    assert choose_session("20", LISTED) == "20"
    assert choose_session("2026", LISTED[:1]) == NEWER  # a year's digits start an id


def make_repl() -> tuple[Repl, FakeBackend]:
    current = FakeSession(session_id=NEWER)
    sessions = {sid: FakeSession(session_id=sid) for sid in (MIDDLE, OLDER)}
    backend = FakeBackend(known={NEWER: current, **sessions})
    repl = Repl(
        session=current,
        backend=backend.factory(None, None),
        reader=None,  # type: ignore[arg-type]
        console=make_console(width=200),
        live=False,
        offline_fallback=True,
    )
    return repl, backend


def test_resume_by_number_and_by_prefix_opens_that_session():
    repl, backend = make_repl()
    repl.handle_line("/resume 3")
    repl.handle_line("/resume 20261203-10")
    assert backend.resume_requests == [OLDER, MIDDLE]


def test_an_ambiguous_prefix_is_one_line_that_lists_the_candidates():
    repl, backend = make_repl()
    repl.handle_line("/resume 20261203")
    said = " ".join(repl.console.export_text().split())
    assert (
        f"/resume 20261203: 2 sessions start with that: {MIDDLE}, {OLDER}. Type more of "
        "the id, or its number in /sessions" in said
    ), said
    assert backend.resume_requests == []


def test_a_prefix_that_matches_nothing_says_there_is_no_such_session():
    repl, _ = make_repl()
    repl.handle_line("/resume zzz")
    assert "no session zzz: /sessions" in repl.console.export_text()


def test_sessions_numbers_its_rows_from_the_newest():
    console = make_console(width=200)
    console.print(build_sessions_view(LISTED, NEWER))
    rows = [row.split() for row in console.export_text().splitlines()[1:]]
    assert [row[: 3 if row[0] == "*" else 2] for row in rows] == [
        ["*", NEWER, "1"],
        [MIDDLE, "2"],
        [OLDER, "3"],
    ]


@pytest.mark.parametrize("width", [40, 60, 80])
def test_on_a_narrow_screen_the_numbers_and_ids_of_sessions_stay_whole(width):
    console = make_console(width=width)
    console.print(build_sessions_view(LISTED, NEWER))
    rows = [row.split() for row in console.export_text().splitlines()]
    rows = [row for row in rows if row and row[0] in ("*", NEWER, MIDDLE, OLDER)]
    assert [row[: 3 if row[0] == "*" else 2] for row in rows] == [
        ["*", NEWER, "1"],
        [MIDDLE, "2"],
        [OLDER, "3"],
    ]


@pytest.mark.parametrize("width", [60, 80, 120])
def test_sessions_keep_what_identifies_them_readable_at_any_width(width):
    """At 60 columns the tokens and the first request were dropped and the time cut; at
    80 (piped) the first request was one character wide, printed down the screen."""
    listed = [
        dataclasses.replace(
            listed_session(session_id, "2026-12-05T06:38:00+00:00"),
            first_request="read README.md and tell me its first heading",
            turns=4,
            answered_turns=3,
            tokens=123_456,
        )
        for session_id in (NEWER, MIDDLE, OLDER)
    ]
    console = make_console(width=width)
    console.print(build_sessions_view(listed, NEWER))
    text = console.export_text()
    assert text.count("2026-12-05 06:38") == 3, text
    assert text.count("123,456") == 3, text
    assert text.count("read README.md and") == 3, text
    assert all(len(row.rstrip()) <= width for row in text.splitlines())


# --- Tab ------------------------------------------------------------------------------------


def completions(
    completer: SlashCommandCompleter, text: str, *, tab: bool = True
) -> list[tuple[str, str]]:
    event = CompleteEvent(completion_requested=tab)
    return [(c.text, c.display_meta_text) for c in completer.get_completions(Document(text), event)]


def test_tab_completes_command_names_from_their_start():
    completer = SlashCommandCompleter(command_summaries)
    names = [text for text, _ in completions(completer, "/re")]
    assert names == ["/remember", "/reload", "/resume"]  # in the order /help lists them
    assert [text for text, _ in completions(completer, "/res")] == ["/resume"]


def test_tab_after_resume_offers_the_other_sessions_with_their_numbers():
    repl, _ = make_repl()
    completer = SlashCommandCompleter(command_summaries, repl.argument_choices)
    offered = completions(completer, "/resume ")
    assert [text for text, _ in offered] == [MIDDLE, OLDER]  # not the open one
    assert offered[0][1].startswith("2 · ") and offered[1][1].startswith("3 · ")
    assert [text for text, _ in completions(completer, "/resume 20261203-09")] == [OLDER]
    assert [text for text, _ in completions(completer, "/resume 3")] == [OLDER]


def test_typing_after_tab_narrows_what_tab_listed_without_listing_again():
    asked: list[str] = []

    def choices(command: str) -> list[ArgumentChoice]:
        asked.append(command)
        return [ArgumentChoice(MIDDLE, 2, "2"), ArgumentChoice(OLDER, 3, "3")]

    completer = SlashCommandCompleter(command_summaries, choices)
    assert completions(completer, "/resume 2", tab=False) == []  # nothing asked yet
    assert len(completions(completer, "/resume ")) == 2
    assert [t for t, _ in completions(completer, "/resume 20261203-0", tab=False)] == [OLDER]
    assert asked == ["/resume"]
    completer.forget_arguments()
    assert completions(completer, "/resume 2", tab=False) == []


def test_tab_after_expand_offers_the_numbered_pointers():
    from agent_cli.events import ToolFinished, ToolStarted

    repl, _ = make_repl()
    first = "artifact:s-1:" + "ab" * 16 + ".txt:" + "ab" * 6
    second = "transcript:s-1:7"
    for pointer in (first, second):
        repl.pointer_handles.number_for(pointer)
    repl.render_events(
        iter(
            [
                ToolStarted("t1", "bash", {"command": "seq"}),
                ToolFinished("t1", "bash", False, "exit 0", 20_000, first, "x"),
            ]
        )
    )
    completer = SlashCommandCompleter(command_summaries, repl.argument_choices)
    assert completions(completer, "/expand ") == [(second, "/expand 2"), (first, "/expand 1")]
    assert completions(completer, "/expand art") == [(first, "/expand 1")]
    assert completions(completer, "/expand 2") == [(second, "/expand 2")]


def test_other_arguments_and_messages_are_still_not_completed():
    repl, _ = make_repl()
    completer = SlashCommandCompleter(command_summaries, repl.argument_choices)
    assert completions(completer, "/compact fo") == []
    assert completions(completer, "please /resume ") == []
    assert completions(completer, "/resume a b") == []


def test_a_number_int_cannot_read_is_typed_text_not_a_crash_when_tab_is_pressed():
    """Found by an outside attack: Tab after `/resume ²` printed a traceback, since `²`
    passes `isdigit()` and `int()` refuses it."""
    choice = ArgumentChoice("20261205-031254-3b2101", 2, "2")
    assert not choice.is_meant_by("²") and not choice.is_meant_by("٢")
    assert choice.is_meant_by("2") and choice.is_meant_by("2026")
