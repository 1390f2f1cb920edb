"""The live region of a running tool: its spinner line and the tail of its output."""

from __future__ import annotations

import io

from rich.console import Console

from agent_cli.repl.tool_activity import LIVE_TAIL_LINES, _ActivityView


def shown_lines(output: str) -> list[str]:
    view = _ActivityView("bash", clock=lambda: 0.0)
    view.output = output
    console = Console(file=io.StringIO(), width=80, color_system=None)
    console.print(view)
    return [row[2:] for row in console.file.getvalue().splitlines() if row.startswith("│ ")]


def test_output_ending_in_a_newline_shows_its_last_lines_in_full():
    output = "".join(f"line {n}\n" for n in range(1, 9))
    assert shown_lines(output) == [f"line {n}" for n in range(9 - LIVE_TAIL_LINES, 9)]


def test_output_still_being_written_shows_its_unfinished_last_line():
    assert shown_lines("one\ntwo\nthr") == ["one", "two", "thr"]
