"""Text fits the screen: the REPL's own lines wrap at word boundaries, tool panels stay
inside their frame at 60 columns, and a pipe still gets one line per message (issue 23
item 16)."""

from __future__ import annotations

import io

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from agent_cli.events import ToolFinished, ToolStarted
from agent_cli.repl.banner import CLAUDE_HOW_TO
from agent_cli.repl.render import EventRenderer
from agent_cli.repl.safe_text import FAKE_COMPACT_MARK
from agent_cli.repl.word_wrap import print_at_words, wrap_at_words

POINTER = "artifact:20261204-001401-4c8fc5:" + "4e6b28ac" * 4 + ".txt:" + "4e6b28ac" * 8


def terminal(width: int) -> Console:
    return Console(
        file=io.StringIO(), width=width, record=True, force_terminal=True, color_system=None
    )


@pytest.mark.parametrize("width", [120, 60])
def test_the_banner_and_errors_wrap_between_words(width: int) -> None:
    console = terminal(width)
    message = "to use Claude " * 12 + "start agent-cli again"
    print_at_words(console, Text(CLAUDE_HOW_TO))
    EventRenderer(console, live=False).print_error(message)
    rows = console.export_text().splitlines()
    assert all(len(row) <= width for row in rows)
    said = " ".join(rows).split()
    assert said == (CLAUDE_HOW_TO + " " + message).split()  # no word was cut in two


def test_a_word_wider_than_the_screen_stays_whole_on_its_own_row() -> None:
    rows = [row.plain for row in wrap_at_words(Text(f"transcript {POINTER} kept"), 40)]
    assert rows == ["transcript", POINTER, "kept"]


def test_a_break_cannot_make_outside_text_look_like_a_compact_line() -> None:
    rows = [row.plain for row in wrap_at_words(Text("no such path: x [compact] total"), 16)]
    assert rows[1] == FAKE_COMPACT_MARK + "[compact] total"


def test_a_pipe_gets_each_message_on_one_line() -> None:
    console = Console(file=io.StringIO(), width=60, record=True, color_system=None)
    print_at_words(console, Text("word " * 40))
    assert len(console.export_text().splitlines()) == 1


def test_tool_panels_stay_inside_their_frame_at_60_columns() -> None:
    console = terminal(60)
    renderer = EventRenderer(console, live=False)
    command = "python3 -m http.server --bind 127.0.0.1 8000 --directory " + "x/" * 40
    renderer.render(ToolStarted("t1", "bash", {"command": command + "\necho " + "y" * 90}))
    output = "Exit code: 0\n" + "\n".join("col  " * 30 for _ in range(3))
    summary = "exit 0, read 400 lines and saved them to an artifact for later"
    renderer.render(ToolFinished("t1", "bash", False, summary, 30_000, POINTER, output))
    rows = console.export_text().splitlines()
    # the top folds the whole command over rows (`│ ┆ `), its second line on a row `│   `
    # of its own (3 + 2 rows), then the preview (3) and the bottom
    assert len(rows) == 5 + 3 + 1, rows
    assert all(len(row) <= 60 for row in rows), rows
    assert rows[0].split("command: ", 1)[1] + "".join(row[4:] for row in rows[1:3]) == command
    assert rows[3].startswith("│   echo y") and rows[4].startswith("│ ┆ y")
    assert rows[-1].startswith("╰─ ✓ ") and rows[-1].endswith("full output: /last")


def test_a_wide_terminal_keeps_the_whole_pointer_on_the_closing_line() -> None:
    console = terminal(200)
    renderer = EventRenderer(console, live=False)
    renderer.render(ToolStarted("t1", "bash", {"command": "cat big.txt"}))
    renderer.render(ToolFinished("t1", "bash", False, "exit 0", 30_000, POINTER, "x"))
    assert console.export_text().splitlines()[-1].endswith(POINTER[: -64 + 12])


def test_compact_lines_wrap_between_words_and_keep_their_tag() -> None:
    from agent_cli.events import CompactionFired, LayerLine

    console = terminal(40)
    layer = LayerLine("L1", 4_321, 2_565, results_truncated=1)
    EventRenderer(console, live=False).render(
        CompactionFired((layer,), 4_321, 2_565, 3_000, 60_000)
    )
    rows = console.export_text().splitlines()
    assert rows[0].startswith("[compact] L1") and all(len(row) <= 40 for row in rows)
    assert "(-1,756;" in " ".join(rows).split()  # the number is not cut in two


def test_a_pointer_argument_stays_whole_and_wide_characters_stay_inside_the_frame() -> None:
    """The top's rows are folded to the screen by cells (wide characters count two),
    the value whole over them, except that a pointer is never cut: it goes whole to a
    row of its own."""
    console = terminal(60)
    renderer = EventRenderer(console, live=False)
    renderer.render(ToolStarted("t1", "grep", {"pattern": "漢字" * 40}))
    renderer.render(ToolStarted("t2", "read_artifact", {"pointer": POINTER}))
    rows = console.export_text().splitlines()
    grep_rows = rows[: next(at for at, row in enumerate(rows) if "read_artifact" in row)]
    assert rows[0].startswith("╭─ grep"), rows
    assert all(cell_len(row) <= 60 for row in grep_rows), rows
    pattern = rows[0].split("pattern: ", 1)[1] + "".join(row[4:] for row in grep_rows[1:])
    assert pattern == "漢字" * 40, rows
    assert POINTER in rows, rows  # whole, on a row of its own


def test_the_demo_banner_says_its_thresholds_leave_mcp_schemas_aside() -> None:
    from agent_cli.compaction import CompactionPolicy
    from agent_cli.repl.banner import describe_thresholds

    policy = CompactionPolicy(soft_threshold=3_200, hard_limit=60_000)
    plain = describe_thresholds(policy, demo=True)
    assert "MCP" not in plain and plain.startswith("Compaction starts at 3,200 tokens")
    lifted = describe_thresholds(policy, demo=True, lifted=True)
    assert "measured above what this workspace adds to every request (MCP tool schemas" in lifted
    assert "MCP" not in describe_thresholds(policy, demo=False, lifted=True)


def test_the_banner_says_mcp_schemas_are_left_aside_only_when_the_thresholds_are_lifted() -> None:
    """A soft threshold the user set is never raised for MCP schemas: with servers
    configured the banner then says nothing of them (it did, wrongly, before)."""
    from repl_fakes import FakeSession

    from agent_cli.repl.banner import build_banner

    session = FakeSession()
    session.mcp_views = ("a server",)  # what /mcp would list: servers are configured

    def banner(demo: bool) -> str:  # the demo's soft threshold is measured above them
        lines = build_banner(
            session,  # type: ignore[arg-type]
            offline_fallback=True,
            resumed=False,
            demo_thresholds=demo,
        )
        return " ".join(line.plain for line in lines)

    assert "adds to every request (MCP tool schemas" in banner(True)
    assert "MCP" not in banner(False)
    session.mcp_views = ()  # no server, no instructions, no facts: nothing to say
    assert "MCP" not in banner(True)
