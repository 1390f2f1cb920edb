"""The spinner while a request waits for the model: on terminals only, counting seconds
from the request's sending, and gone as soon as anything comes back."""

from __future__ import annotations

import io

from rich.console import Console

from agent_cli.events import AssistantText, Notice, StreamRestarted
from agent_cli.repl.model_wait import ModelWaitLine, ModelWaitView
from agent_cli.repl.render import EventRenderer


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def written(console: Console) -> str:
    output = console.file
    assert isinstance(output, io.StringIO)
    return output.getvalue()


def test_the_spinner_counts_the_seconds_since_the_request_was_sent() -> None:
    clock = Clock()
    line = ModelWaitLine(clock)
    clock.now += 3.2
    console = Console(file=io.StringIO(), width=80, color_system=None)
    console.print(line)
    assert "waiting for the model · 3s · Ctrl-C cancels" in written(console)


def test_the_spinner_is_drawn_on_a_terminal_and_erased_when_it_stops() -> None:
    console = Console(file=io.StringIO(), width=80, force_terminal=True, color_system=None)
    view = ModelWaitView(console, live=True)
    view.start()
    assert view.is_waiting
    view.stop()
    assert not view.is_waiting
    drawn = written(console)
    assert "waiting for the model · 0s" in drawn
    assert drawn.endswith("\x1b[1A\x1b[2K")  # its row erased: nothing of it stays


def test_a_pipe_never_sees_the_spinner() -> None:
    console = Console(file=io.StringIO(), width=80, color_system=None)
    renderer = EventRenderer(console, live=False)
    renderer.watch_model_request()
    assert not renderer.is_waiting_for_model
    renderer.render(AssistantText("the answer"))
    renderer.close()
    assert "waiting" not in written(console)


def test_the_first_event_replaces_the_spinner_and_a_retry_brings_it_back() -> None:
    console = Console(file=io.StringIO(), width=80, force_terminal=True, color_system=None)
    renderer = EventRenderer(console, live=True)
    renderer.watch_model_request()
    assert renderer.is_waiting_for_model
    renderer.render(StreamRestarted(1, 2.0, "overloaded"))
    assert renderer.is_waiting_for_model  # the request goes again: still waiting
    renderer.render(AssistantText("Here"))
    assert not renderer.is_waiting_for_model
    renderer.close()

    renderer.watch_model_request()
    renderer.render(Notice("warning", "cancelled", {"during": "answer"}))
    assert not renderer.is_waiting_for_model
    renderer.watch_model_request()
    renderer.close()
    assert not renderer.is_waiting_for_model


def test_a_summary_request_turns_the_spinner_in_words_of_its_own_until_the_next_event() -> None:
    console = Console(file=io.StringIO(), width=100, force_terminal=True, color_system=None)
    renderer = EventRenderer(console, live=True)
    renderer.watch_summary_request()
    assert renderer.is_waiting_for_model
    renderer.render(Notice("warning", "cancelled", {"during": "compaction"}))
    assert not renderer.is_waiting_for_model
    renderer.close()
    drawn = written(console)
    assert "summarizing the older messages to make room · 0s · Ctrl-C cancels" in drawn
    assert "waiting for the model" not in drawn
