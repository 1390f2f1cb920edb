"""Tool output is shown as it is: indentation and inner spaces kept, tabs expanded to 8.

A preview that flattened whitespace showed `return "Helo, " + name` without its
indentation and squashed the columns of `ls -la` (issue 23 item 6). The preview lines,
the live tail of a running command and `/last` all keep the text's own layout.
"""

from __future__ import annotations

import io

from rich.console import Console

from agent_cli.events import ToolFinished, ToolStarted
from agent_cli.repl.render import EventRenderer
from agent_cli.repl.safe_text import ELLIPSIS, TAB_SIZE, clip_output_line
from agent_cli.repl.tool_activity import _ActivityView
from agent_cli.repl.views import build_last_result_view

CODE = 'def greet(name):\n    return "Helo, " + name\n\tpass\n'
LISTING = (
    "total 16\n"
    "drwxr-xr-x  2 ann  staff   64 Jan  1 10:00 .\n"
    "-rw-r--r--  1 ann  staff  120 Jan  1 10:00 app.py\n"
)


def make_console(width: int = 120) -> Console:
    return Console(file=io.StringIO(), width=width, record=True, color_system=None)


def preview_of(output: str) -> list[str]:
    """The preview rows printed between a tool's two panel lines, gutter removed."""
    console = make_console()
    renderer = EventRenderer(console, live=False)
    renderer.render(ToolStarted("t1", "read_file", {"path": "app.py"}))
    renderer.render(ToolFinished("t1", "read_file", False, "read 3 lines", 60, None, output))
    rows = console.export_text().splitlines()[1:-1]
    return [row.removeprefix("│ ") for row in rows]


def test_a_preview_keeps_indentation_and_expands_tabs():
    rows = preview_of("app.py (3 lines)\n" + CODE)
    assert rows == ["def greet(name):", '    return "Helo, " + name', " " * TAB_SIZE + "pass"]


def test_a_preview_keeps_the_columns_of_a_listing():
    rows = preview_of("Exit code: 0\n" + LISTING)
    assert rows == LISTING.rstrip("\n").split("\n")


def test_the_live_tail_of_a_running_command_keeps_indentation():
    view = _ActivityView("bash", clock=lambda: 0.0)
    view.output = CODE
    console = make_console(width=80)
    console.print(view)
    rows = [row[2:] for row in console.export_text().splitlines() if row.startswith("│ ")]
    assert rows == ["def greet(name):", '    return "Helo, " + name', " " * TAB_SIZE + "pass"]


def test_last_shows_the_output_with_its_layout():
    console = make_console()
    result = ToolFinished("t1", "bash", False, "exit 0", 90, None, "Exit code: 0\n" + LISTING)
    console.print(build_last_result_view(result))
    shown = console.export_text()
    for line in LISTING.rstrip("\n").split("\n"):
        assert line in shown.split("\n")


def test_a_long_output_line_is_cut_with_an_ellipsis_and_keeps_its_indent():
    clipped = clip_output_line("        " + "x" * 200, limit=40)
    assert clipped == "        " + "x" * 31 + ELLIPSIS
    assert len(clipped) == 40


def test_an_output_line_is_still_made_safe():
    assert clip_output_line("  ok\x1b[2Jgone\x07") == "  okgone"
