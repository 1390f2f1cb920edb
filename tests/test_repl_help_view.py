"""`/help` reads at any width: at 40 and 60 columns a description goes under its usage
instead of being squeezed beside the widest usage (it was three cells wide at 60)."""

from __future__ import annotations

import io

import pytest
from rich.cells import cell_len
from rich.console import Console

from agent_cli.repl.commands import COMMANDS
from agent_cli.repl.help_view import MIN_SUMMARY_WIDTH, build_help_view


def shown_at(width: int) -> list[str]:
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(build_help_view((c.usage, c.summary) for c in COMMANDS.values()))
    return [row.rstrip() for row in console.export_text().splitlines()]


@pytest.mark.parametrize("width", [40, 60, 80, 120])
def test_every_command_and_the_start_of_its_help_are_readable(width: int) -> None:
    rows = shown_at(width)
    assert all(cell_len(row) <= width for row in rows), rows
    text = "\n".join(rows)
    for command in COMMANDS.values():
        first_words = " ".join(command.summary.split()[:2])
        assert first_words in text, (command.usage, text)  # not cut into 3-cell slices
    assert "list the commands and keys" in text


@pytest.mark.parametrize("width", [40, 60])
def test_on_a_narrow_screen_descriptions_sit_under_their_usage(width: int) -> None:
    rows = shown_at(width)
    usage = COMMANDS["/sessions"].usage
    at = next(i for i, row in enumerate(rows) if row.startswith("/sessions"))
    assert "".join(rows[at : at + 2]).replace(" ", "").startswith(usage.replace(" ", ""))
    help_rows = [row for row in rows if row.startswith("    ")]
    assert any(len(row.strip()) >= MIN_SUMMARY_WIDTH for row in help_rows)


def test_a_wide_screen_keeps_usage_and_help_side_by_side() -> None:
    rows = shown_at(120)
    assert any(row.startswith("/help") and "list the commands and keys" in row for row in rows)
