"""The prompt: the gauge in the toolbar, completion, and the keys (driven through a pipe)."""

from __future__ import annotations

import threading

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from agent_cli.events import Gauge
from agent_cli.repl.commands import command_summaries
from agent_cli.repl.prompt import (
    SlashCommandCompleter,
    build_toolbar,
    format_gauge,
    gauge_level,
)


def gauge(tokens: int, soft: int = 80_000, hard: int = 120_000) -> Gauge:
    return Gauge(
        tokens=tokens,
        soft_threshold=soft,
        hard_limit=hard,
        estimator="tiktoken cl100k_base (offline)",
    )


def test_gauge_text_shows_tokens_thresholds_percent_of_soft_and_estimator():
    assert format_gauge(gauge(12_345)) == (
        "ctx 12,345 / 80,000 soft / 120,000 hard (15%) · estimator: tiktoken cl100k_base (offline)"
    )


def test_gauge_text_before_any_measurement_says_so():
    assert format_gauge(None) == "ctx … (measuring)"


def test_gauge_level_follows_the_thresholds():
    assert gauge_level(gauge(79_999)) == "ok"
    assert gauge_level(gauge(80_000)) == "over-soft"
    assert gauge_level(gauge(120_000)) == "over-hard"


def test_toolbar_carries_the_gauge_styled_by_its_level():
    fragments = build_toolbar(gauge(100_000))
    assert fragments[0] == ("class:gauge.over-soft", format_gauge(gauge(100_000)))


def toolbar_text(width: int | None) -> str:
    return "".join(text for _, text in build_toolbar(gauge(2_137, 3_000, 60_000), width))


def test_a_narrow_toolbar_drops_whole_parts_least_important_first():
    assert toolbar_text(None) == toolbar_text(200)
    assert toolbar_text(200).endswith("(offline)  │ Alt+Enter: new line")
    assert toolbar_text(90) == "ctx 2,137 / 3,000 soft / 60,000 hard (71%)  │ Alt+Enter: new line"
    assert toolbar_text(60) == "ctx 2,137 / 3,000 soft / 60,000 hard (71%)"
    assert toolbar_text(40) == "ctx 2,137 / 3,000 soft (71%)"
    assert toolbar_text(10) == "ctx 2,137 / 3,000 soft"  # never cut inside a word
    for width in range(24, 130):
        assert len(toolbar_text(width)) <= width


def test_a_hostile_estimator_name_is_flattened_in_the_toolbar():
    hostile = Gauge(tokens=1, soft_threshold=2, hard_limit=3, estimator="x\x1b[2J\ny")
    assert "\x1b" not in format_gauge(hostile) and "\n" not in format_gauge(hostile)


def completions(text: str, *, tab: bool = False) -> list[str]:
    completer = SlashCommandCompleter(command_summaries)
    event = CompleteEvent(completion_requested=tab)
    return [c.text for c in completer.get_completions(Document(text), event)]


def test_slash_commands_complete_while_typing():
    assert completions("/st") == ["/stats"]
    assert set(completions("/")) >= {"/help", "/compact", "/resume", "/quit"}


def test_bare_stats_completes_only_on_tab():
    assert completions("st") == []
    assert completions("st", tab=True) == ["stats"]


def test_nothing_completes_after_the_first_word():
    assert completions("/compact fo") == []
    assert completions("please /st") == []


def test_enter_sends_the_line(pipe_reader):
    pipe, reader = pipe_reader
    pipe.send_text("hello\r")
    assert reader.read_line(lambda: gauge(1)) == "hello"


def test_escape_enter_inserts_a_newline_instead_of_sending(pipe_reader):
    pipe, reader = pipe_reader
    pipe.send_text("first\x1b\rsecond\r")
    assert reader.read_line(lambda: gauge(1)) == "first\nsecond"


def test_ctrl_c_at_the_prompt_raises_keyboard_interrupt(pipe_reader):
    pipe, reader = pipe_reader
    pipe.send_text("half typed\x03")
    with pytest.raises(KeyboardInterrupt):
        reader.read_line(lambda: gauge(1))


def test_ctrl_d_on_an_empty_line_raises_eof(pipe_reader):
    pipe, reader = pipe_reader
    pipe.send_text("\x04")
    with pytest.raises(EOFError):
        reader.read_line(lambda: gauge(1))


def test_sent_lines_are_kept_in_the_history_file(pipe_reader, tmp_path):
    pipe, reader = pipe_reader
    pipe.send_text("remember me\r")
    reader.read_line(lambda: gauge(1))
    assert "remember me" in (tmp_path / "history").read_text(encoding="utf-8")


def test_ask_returns_one_answer(pipe_reader):
    pipe, reader = pipe_reader
    pipe.send_text("a\r")
    assert reader.ask("allow? ") == "a"


def test_the_toolbar_asks_the_gauge_source_while_the_prompt_is_shown(pipe_reader):
    pipe, reader = pipe_reader
    asked: list[int] = []

    def source():
        asked.append(1)
        return gauge(5)

    pipe.send_text("x\r")
    reader.read_line(source)
    assert asked, "the bottom toolbar never asked for the gauge"


def test_refresh_is_harmless_when_no_prompt_is_shown(pipe_reader):
    # The gauge can arrive after the line was sent, from the worker thread: a refresh then
    # must neither raise (in that thread or this one) nor disturb the next prompt.
    pipe, reader = pipe_reader
    errors: list[BaseException] = []

    def refresh_from_a_worker() -> None:
        try:
            reader.refresh()
        except BaseException as error:  # noqa: BLE001 - any escape is the failure under test
            errors.append(error)

    worker = threading.Thread(target=refresh_from_a_worker)
    worker.start()
    worker.join(timeout=30)
    reader.refresh()
    assert errors == [] and not worker.is_alive()
    pipe.send_text("after the refresh\r")
    assert reader.read_line(lambda: gauge(1)) == "after the refresh"


def test_a_long_bracketed_paste_shows_as_a_placeholder_and_is_sent_whole(pipe_reader, tmp_path):
    pipe, reader = pipe_reader
    pasted = "\n".join(f"line {n} of the log" for n in range(1_000))
    pipe.send_text("look at this: \x1b[200~" + pasted + "\x1b[201~\r")
    assert reader.read_line(lambda: gauge(1)) == "look at this: " + pasted
    history = (tmp_path / "history").read_text(encoding="utf-8")
    assert f"look at this: [pasted {len(pasted):,} characters]" in history
    assert "line 999 of the log" not in history


def test_a_paste_recalled_from_an_earlier_runs_history_is_refused_not_sent_as_its_placeholder(
    pipe_reader, tmp_path
):
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from agent_cli.errors import PasteNotKept
    from agent_cli.repl.commands import command_summaries
    from agent_cli.repl.error_text import describe_error
    from agent_cli.repl.prompt import PromptReader

    pipe, reader = pipe_reader
    pasted = "\n".join(f"line {n} of the log" for n in range(1_000))
    pipe.send_text("look: \x1b[200~" + pasted + "\x1b[201~\r")
    assert reader.read_line(lambda: gauge(1)) == "look: " + pasted
    pipe.send_text("\x1b[A\r")  # Up, Enter: this run still has the paste
    assert reader.read_line(lambda: gauge(1)) == "look: " + pasted
    with create_pipe_input() as later_pipe:  # the next run, over the same history file
        later = PromptReader(
            tmp_path / "history",
            command_summaries,
            terminal_input=later_pipe,
            terminal_output=DummyOutput(),
        )
        later_pipe.send_text("\x1b[A\r")
        with pytest.raises(PasteNotKept) as caught:
            later.read_line(lambda: gauge(1))
    assert caught.value.placeholder == f"[pasted {len(pasted):,} characters]"
    assert "nothing was sent" in describe_error(caught.value)


def test_a_short_paste_goes_in_as_it_is(pipe_reader):
    pipe, reader = pipe_reader
    pipe.send_text("\x1b[200~short text\x1b[201~\r")
    assert reader.read_line(lambda: gauge(1)) == "short text"


def test_typed_text_that_looks_like_an_unknown_placeholder_is_sent_as_typed(pipe_reader):
    """LOSS-7: only a line recalled from the history can hold a lost paste."""
    pipe, reader = pipe_reader
    typed = "why does it show [pasted 1,200 characters] and [pasted 9 characters #2]?"
    pipe.send_text(typed + "\r")
    assert reader.read_line(lambda: gauge(1)) == typed


def test_a_recalled_line_edited_before_sending_still_refuses_a_lost_paste(pipe_reader, tmp_path):
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from agent_cli.errors import PasteNotKept
    from agent_cli.repl.commands import command_summaries
    from agent_cli.repl.prompt import PromptReader

    pipe, reader = pipe_reader
    pasted = "\n".join(f"line {n} of the log" for n in range(1_000))
    pipe.send_text("look: \x1b[200~" + pasted + "\x1b[201~\r")
    reader.read_line(lambda: gauge(1))
    with create_pipe_input() as later_pipe:  # the next run, over the same history file
        later = PromptReader(
            tmp_path / "history",
            command_summaries,
            terminal_input=later_pipe,
            terminal_output=DummyOutput(),
        )
        later_pipe.send_text("\x1b[A and more\r")  # Up, then typing at its end
        with pytest.raises(PasteNotKept):
            later.read_line(lambda: gauge(1))


def test_a_paste_whose_text_holds_a_placeholder_is_sent_exactly_as_pasted(pipe_reader):
    """Placeholders are put back in one pass: a pasted excerpt of the screen that shows
    another paste's placeholder is not expanded a second time."""
    pipe, reader = pipe_reader
    excerpt = "the screen said [pasted 900 characters]\n" + "y" * 900
    pipe.send_text("\x1b[200~" + excerpt + "\x1b[201~\r")
    assert reader.read_line(lambda: gauge(1)) == excerpt
    other = "x" * 900  # its placeholder is the one the excerpt shows
    pipe.send_text("\x1b[200~" + other + "\x1b[201~\r")
    assert reader.read_line(lambda: gauge(1)) == other
    pipe.send_text("\x1b[A\x1b[A\r")  # Up, Up: the excerpt's line again
    assert reader.read_line(lambda: gauge(1)) == excerpt
