"""End to end in tmux, at 60 and 120 columns: rough edges a new user met (fifth outside
attack): approvals turned off in config.toml are said on screen, `/help` and `/sessions`
stay readable on a narrow terminal, a failed command does not look like a success."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from e2e_support import ReplDriver, TerminalPool, count_prompts, session_id_on, start_repl

pytestmark = pytest.mark.e2e

WIDTHS = (60, 120)


@pytest.fixture(params=WIDTHS, ids=lambda width: f"{width} columns")
def repl(request: pytest.FixtureRequest, terminals: TerminalPool, home: Path, workspace: Path):
    """agent-cli at its first prompt in a terminal 60, then 120, columns wide."""
    return start_repl(terminals, home, workspace, width=request.param)


def words(screen: str) -> str:
    """The screen's text with every run of blanks and line ends as one space."""
    return " ".join(screen.split())


@pytest.mark.parametrize("width", WIDTHS)
def test_yes_in_config_toml_is_said_in_the_banner_and_in_stats(
    terminals: TerminalPool, home: Path, workspace: Path, width: int
) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("yes = true\n", encoding="utf-8")
    repl = start_repl(terminals, home, workspace, width=width)
    banner = words(repl.terminal.screen())
    assert "Approvals are OFF (yes = true in" in banner, banner
    assert "config.toml): writes, commands and MCP calls run without asking" in banner
    assert "Approvals are OFF" in words(repl.submit("stats"))


def test_help_is_readable_on_a_narrow_and_a_wide_terminal(repl: ReplDriver) -> None:
    shown = repl.submit("/help")
    assert "list the commands and keys" in shown, shown
    assert "list saved sessions (first request, turns, tokens)" in words(shown), shown


def test_a_command_that_exits_non_zero_shows_no_green_tick(repl: ReplDriver) -> None:
    repl.send("run ls /no_such_dir_here")
    repl.terminal.wait_for(lambda screen: "allow?" in screen, "the permission question")
    before = count_prompts(repl.terminal.screen())
    repl.send("y")
    shown = repl.terminal.wait_for(
        lambda screen: count_prompts(screen) > before, "the prompt after the command"
    )
    assert "╰─ ✗ exit 2" in shown and "✓ exit" not in shown, shown
    row = next(r for r in repl.terminal.visible_with_colours().splitlines() if "exit 2" in r)
    assert "\x1b[32m" not in row, row  # not green


def test_sessions_show_the_first_request_and_tokens_on_a_narrow_and_a_wide_terminal(
    repl: ReplDriver,
) -> None:
    repl.submit("hello there agent")
    shown = repl.submit("/sessions")
    session_id = session_id_on(repl.terminal.screen())
    assert session_id in shown and "hello there agent" in shown, shown
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", shown), shown
    assert re.search(r"1/1( turns)?\s.*[\d,]+", shown), shown


def test_a_chosen_offline_model_with_a_key_set_does_not_ask_for_the_key(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    extra = {"ANTHROPIC_API_KEY": "sk-ant-e2e-ux-0123456789"}
    repl = start_repl(terminals, home, workspace, "--provider", "offline", extra_env=extra)
    banner = words(repl.terminal.screen())
    assert "ANTHROPIC_API_KEY is set: to use Claude, start agent-cli with --provider" in banner
    assert "set ANTHROPIC_API_KEY" not in banner
