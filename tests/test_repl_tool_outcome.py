"""A tool panel's closing and preview lines tell the truth: a command that exited
non-zero is not marked as a success, and "+N lines" counts the output's lines, not the
preview's (a 459-line read stored as an artifact said "+111 lines")."""

from __future__ import annotations

from agent_cli.events import ToolFinished
from agent_cli.repl.tool_lines import build_tool_finished_line, classify_outcome
from agent_cli.repl.tool_preview import build_tool_preview_lines
from agent_cli.tools.output import render_preview


def finished(name: str, summary: str, output: str = "", is_error: bool = False) -> ToolFinished:
    return ToolFinished("toolu_1", name, is_error, summary, len(output), output=output)


def styles_of_mark(event: ToolFinished) -> tuple[str, str]:
    line = build_tool_finished_line(event)
    mark = line.plain[3:5]
    span = next(span for span in line.spans if span.start == 3)
    return mark, str(span.style)


def test_a_command_that_exits_non_zero_is_not_marked_as_a_success() -> None:
    event = finished("bash", "exit 2, 64 B", "Exit code: 2\nls: cannot access")
    assert classify_outcome(event) == "nonzero"
    mark, style = styles_of_mark(event)
    assert mark == "✗ " and style != "green"
    assert "exit 2" in build_tool_finished_line(event).plain


def test_a_command_killed_by_a_signal_is_not_marked_as_a_success() -> None:
    assert classify_outcome(finished("bash", "signal 9, 0 B")) == "nonzero"


def test_exit_zero_and_other_tools_stay_marked_by_their_error_flag() -> None:
    assert classify_outcome(finished("bash", "exit 0, 10 B")) == "ok"
    assert styles_of_mark(finished("bash", "exit 0, 10 B")) == ("✓ ", "green")
    assert classify_outcome(finished("read_file", "exit 2, read 3 lines")) == "ok"
    assert classify_outcome(finished("bash", "timed out", is_error=True)) == "failed"


def stored_read(lines: int) -> str:
    """What the model gets for a read of `lines` lines stored as an artifact."""
    body = "\n".join(f"{n:>6}\tline number {n} of the file" for n in range(1, lines + 1))
    preview = render_preview(body, 2_000)
    return (
        f"File: big.txt (lines 1-{lines} of {lines})\n"
        "[Output was 20,000 bytes; this is a head/tail preview. The full output is saved "
        "as artifact:s:x.txt:0123456789ab - read any part of it with read_artifact.]\n"
        f"{preview}\n[Full output: artifact:s:x.txt:0123456789ab]"
    )


def test_plus_n_lines_counts_the_lines_of_the_output_not_of_its_preview() -> None:
    event = finished("read_file", "read 459 lines, saved to artifact", stored_read(459))
    rows = [row.plain for row in build_tool_preview_lines(event)]
    assert rows[-1] == "│ … +455 lines (/last shows all)", rows


def test_plus_n_lines_of_a_short_output_is_its_own_count() -> None:
    output = "Exit code: 0\n" + "\n".join(f"row {n}" for n in range(10))
    rows = [row.plain for row in build_tool_preview_lines(finished("bash", "exit 0", output))]
    assert rows[-1] == "│ … +6 lines (/last shows all)"


def test_where_there_is_no_last_the_hint_is_left_out() -> None:
    output = "Exit code: 0\n" + "\n".join(f"row {n}" for n in range(10))
    event = finished("bash", "exit 0", output)
    assert build_tool_preview_lines(event, hint="")[-1].plain == "│ … +6 lines"


def test_print_mode_names_no_last_command_under_a_tool_call() -> None:
    """`-p` has no /last to run afterwards: its stderr said "(/last shows all)"."""
    import io

    from rich.console import Console

    from agent_cli.events import ToolStarted
    from agent_cli.repl.render import EventRenderer

    output = "Exit code: 0\n" + "\n".join(f"row {n}" for n in range(10))
    for one_shot, expected in ((True, False), (False, True)):
        stream = io.StringIO()
        renderer = EventRenderer(Console(file=stream, width=100), live=False, one_shot=one_shot)
        renderer.render(ToolStarted("toolu_1", "bash", {"command": "seq 10"}))
        renderer.render(finished("bash", "exit 0, 80 B", output))
        assert ("/last" in stream.getvalue()) is expected, stream.getvalue()
        assert "+6 lines" in stream.getvalue()


def test_last_says_a_command_that_exited_non_zero_failed() -> None:
    from agent_cli.repl.views import build_last_result_view

    event = finished("bash", "exit 2, 64 B", "Exit code: 2\nls: cannot access")
    shown = build_last_result_view(event).renderables[0].plain  # type: ignore[union-attr]
    assert shown == "bash failed: exit 2, 64 B"


def test_a_failure_too_long_for_one_row_is_wrapped_whole_not_clipped() -> None:
    """The advice at the end of a failure is what the user needs ("Include more
    surrounding lines..."): at 120 and 60 columns every word is shown, each row fits."""
    message = (
        "old_string matches 16 places in README.md; it must match exactly one. Include "
        "more surrounding lines to make it unique, or set replace_all to change every one."
    )
    event = finished("edit_file", "failed", message, is_error=True)
    for width in (120, 60):
        rows = build_tool_finished_line(event, width).plain.split("\n")
        assert " ".join(row.strip() for row in rows).endswith(message[-60:])
        assert "…" not in "".join(rows)
        assert all(len(row) <= width for row in rows)
        assert rows[0].startswith("╰─ ✗ old_string matches 16 places")


def test_a_line_too_narrow_for_the_pointer_names_its_number_not_last():
    """Seventh attack: at 60 columns every saved output closed with "full output: /last",
    which is wrong as soon as the next tool runs; its number stays right."""
    event = ToolFinished(
        "t1",
        "read_file",
        False,
        "read 400 lines, saved to artifact",
        30_000,
        "artifact:20261205-084206-c8e7cf:4c23" + "0" * 60,
        "x",
    )
    for width in (60, 66):
        narrow = build_tool_finished_line(event, width, handle_label="(/expand 7)").plain
        assert narrow.endswith(" /expand 7") and len(narrow) <= width, narrow
        assert "saved to artifact" in narrow, narrow  # the words first, then the label
    assert "full output: /expand 7" in narrow  # where it fits
    assert build_tool_finished_line(event, 66).plain.endswith(" · full output: /last")
