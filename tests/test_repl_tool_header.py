"""The top of a tool panel: a multi-line command reads as lines, not as one run-together
line (`python3 app.py echo second line`, issue 23 item 17)."""

from __future__ import annotations

import io

from rich.console import Console

from agent_cli.events import ToolStarted
from agent_cli.repl.tool_lines import FURTHER_LINES, build_tool_started_line


def shown(arguments: dict[str, object], name: str = "bash") -> list[str]:
    console = Console(file=io.StringIO(), width=120, record=True, color_system=None)
    console.print(build_tool_started_line(ToolStarted("t1", name, arguments)), soft_wrap=True)
    return console.export_text().splitlines()


def test_a_multi_line_command_shows_one_row_per_line():
    rows = shown({"command": "python3 app.py\necho second line\n  echo indented\n"})
    assert rows == [
        "╭─ bash  command: python3 app.py",
        "│   echo second line",
        "│     echo indented",
    ]


def test_a_long_command_shows_its_first_lines_and_how_many_more():
    rows = shown({"command": "\n".join(f"echo {n}" for n in range(20))})
    assert len(rows) == 1 + FURTHER_LINES
    assert rows[-1] == f"│   … +{20 - FURTHER_LINES:,} more lines"


def test_a_one_line_call_keeps_its_single_header_line():
    assert shown({"path": "src/app.py", "offset": 3}, "read_file") == [
        "╭─ read_file  path: src/app.py  offset: 3"
    ]


def test_a_carriage_return_in_a_command_cannot_hide_its_first_line():
    rows = shown({"command": "rm -rf /\rls"})
    assert rows == ["╭─ bash  command: rm -rf /", "│   ls"]


def test_a_line_break_in_a_path_stays_on_the_top_line_written_out():
    """Written out as its approval and the tool's answer name it (the fifteenth attack:
    a space here read as another file)."""
    assert shown({"path": "a\nb.txt"}, "read_file") == ["╭─ read_file  path: a^Jb.txt"]


def test_a_long_path_keeps_its_file_name_on_the_top_line():
    path = "docs/the-quick-brown-fox-jumps-over-the-lazy-dog/and-then-some-more-words/hook.sh"
    for width in (60, 120):
        console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
        line = build_tool_started_line(ToolStarted("t1", "write_file", {"path": path}), width)
        console.print(line, soft_wrap=True)
        (row,) = console.export_text().splitlines()
        assert row.endswith("/hook.sh") and row.startswith("╭─ write_file  path: docs/the-")
        assert "…" in row and len(row) <= width


def test_a_tool_name_holding_controls_is_written_out_not_stripped():
    """A model's call of `bash\\n` read as `bash` followed by "There is no tool by that name"
    (an outside attack): the name is written out as the file tools write paths."""
    assert shown({"command": "echo hi"}, "bash\n") == ["╭─ bash^J  command: echo hi"]
    assert shown({}, "\x00") == ["╭─ ^@"]
    assert shown({}, "\x1b]52;c;ZXZpbA==\x07x") == ["╭─ ^[]52;c;ZXZpbA==^Gx"]
