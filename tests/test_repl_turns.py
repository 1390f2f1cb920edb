"""Ctrl-C during a turn: the session cleans up, the REPL keeps rendering, the turn ends."""

from __future__ import annotations

from repl_fakes import make_console

from agent_cli.events import (
    AssistantDone,
    AssistantText,
    Notice,
    ToolFinished,
    ToolStarted,
    TurnEnded,
)
from agent_cli.repl.render import EventRenderer
from agent_cli.repl.turns import drive_events


class InterruptOnce:
    """A renderer that raises KeyboardInterrupt (Ctrl-C) while showing one chosen event."""

    def __init__(self, interrupt_on: type) -> None:
        self.interrupt_on = interrupt_on
        self.shown: list[object] = []
        self.fired = False

    def __call__(self, event: object) -> None:
        if isinstance(event, self.interrupt_on) and not self.fired:
            self.fired = True
            raise KeyboardInterrupt
        self.shown.append(event)


def well_behaved_turn(log: list[str]):
    """Catches KeyboardInterrupt at its yields, as the session contract says."""
    try:
        yield AssistantText("partial")
        yield AssistantText(" more")
        yield AssistantDone("partial more", "end_turn")
        yield TurnEnded("ok")
    except KeyboardInterrupt:
        log.append("cleaned up")
        yield Notice("warning", "cancelled", {"during": "answer"})
        yield TurnEnded("cancelled")


def test_events_render_in_order_and_the_turn_end_is_returned():
    shown: list[object] = []
    ended = drive_events(well_behaved_turn([]), shown.append)
    assert ended == TurnEnded("ok")
    assert [type(e).__name__ for e in shown] == [
        "AssistantText",
        "AssistantText",
        "AssistantDone",
        "TurnEnded",
    ]


def test_ctrl_c_while_rendering_is_thrown_into_the_session_which_cleans_up():
    log: list[str] = []
    render = InterruptOnce(AssistantText)
    ended = drive_events(well_behaved_turn(log), render)
    assert log == ["cleaned up"]
    assert ended == TurnEnded("cancelled")
    assert isinstance(render.shown[0], Notice)  # what the session yielded after cleanup


def test_a_session_that_lets_the_interrupt_escape_still_ends_as_cancelled():
    def careless_turn():
        yield AssistantText("a")
        yield TurnEnded("ok")

    ended = drive_events(careless_turn(), InterruptOnce(AssistantText))
    assert ended.outcome == "cancelled"


def test_an_interrupt_raised_inside_the_session_and_not_caught_ends_as_cancelled():
    def raising_turn():
        yield AssistantText("a")
        raise KeyboardInterrupt

    ended = drive_events(raising_turn(), lambda event: None)
    assert ended.outcome == "cancelled"


def test_a_second_ctrl_c_during_cleanup_gives_up_and_closes_the_session_generator():
    closed: list[bool] = []

    def slow_cleanup_turn():
        try:
            yield AssistantText("a")
        except KeyboardInterrupt:
            try:
                yield Notice("warning", "cancelled", {"during": "turn"})
                yield TurnEnded("cancelled")
            finally:
                closed.append(True)

    class InterruptTwice(InterruptOnce):
        def __call__(self, event: object) -> None:
            raise KeyboardInterrupt

    ended = drive_events(slow_cleanup_turn(), InterruptTwice(object))
    assert ended.outcome == "cancelled"
    assert closed == [True]


def test_a_tool_cut_off_by_the_turn_end_gets_its_panel_closed():
    console = make_console()
    renderer = EventRenderer(console, live=False)
    for event in [
        ToolStarted("t1", "bash", {"command": "sleep 20"}),
        Notice("warning", "cancelled", {"during": "tool"}),
        TurnEnded("cancelled"),
    ]:
        renderer.render(event)
    lines = console.export_text().splitlines()
    assert lines[0].startswith("╭─ bash")
    assert lines[1].startswith("╰─ ✗ interrupted")
    assert "turn cancelled" in lines[-1]


def test_a_command_stopped_by_ctrl_c_keeps_its_last_lines_on_screen_and_for_last():
    console = make_console()
    renderer = EventRenderer(console, live=False)
    ticks = "".join(f"tick {n}\n" for n in range(1, 10))
    output = f"Interrupted by the user (Ctrl-C) while it ran. Output so far follows.\n{ticks}"
    stopped = ToolFinished("t1", "bash", True, "interrupted, 63 B", 63, None, output, True)
    for event in [
        ToolStarted("t1", "bash", {"command": "tick"}),
        stopped,
        Notice("warning", "cancelled", {"during": "tool"}),
        TurnEnded("cancelled"),
    ]:
        renderer.render(event)

    lines = console.export_text().splitlines()
    assert lines[1] == "│ … 3 earlier lines (/last shows all)"
    assert lines[2:8] == [f"│ tick {n}" for n in range(4, 10)]
    assert lines[8] == "╰─ ✗ interrupted by Ctrl-C; the output so far is kept"
    assert "no result was shown" not in console.export_text()
    assert "turn cancelled" in lines[-1]
    assert renderer.last_tool_result == stopped


def test_a_half_streamed_answer_stays_on_screen_after_an_interrupt():
    console = make_console()
    renderer = EventRenderer(console, live=False)
    renderer.render(AssistantText("half an ans"))
    renderer.close()
    renderer.render(TurnEnded("cancelled"))
    lines = console.export_text().splitlines()
    assert lines[0] == "half an ans"
    assert "turn cancelled" in lines[1]


def test_a_finished_tool_shows_outcome_size_and_artifact_pointer():
    console = make_console(width=200)
    renderer = EventRenderer(console, live=False)
    renderer.render(ToolStarted("t1", "read_file", {"path": "src/app.py", "offset": 0}))
    renderer.render(
        ToolFinished("t1", "read_file", False, "read 120 lines", 4_300, "artifact:s:out.txt:ab12")
    )
    lines = console.export_text().splitlines()
    assert lines == [
        "╭─ read_file  path: src/app.py  offset: 0",
        "╰─ ✓ read 120 lines · 4.2 KB of output · full output: artifact:s:out.txt:ab12",
    ]


def test_a_finished_tool_shows_the_first_lines_of_its_output_and_how_many_more():
    console = make_console(width=200)
    renderer = EventRenderer(console, live=False)
    output = "Exit code: 0\n" + "\n".join(f"row {n}" for n in range(1, 10))
    renderer.render(ToolStarted("t1", "bash", {"command": "seq"}))
    renderer.render(ToolFinished("t1", "bash", False, "exit 0, 53 B", 66, None, output))
    lines = console.export_text().splitlines()
    assert lines[1:] == [
        "│ row 1",
        "│ row 2",
        "│ row 3",
        "│ row 4",
        "│ … +5 lines (/last shows all)",
        "╰─ ✓ exit 0, 53 B",  # the size is in the summary: not shown twice
    ]
    assert renderer.last_tool_result.output == output
