"""End to end in tmux: what a person reads is in plain words, whole, and agrees in number."""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_support import ReplDriver, TerminalPool, agent_cli_argv, build_env

pytestmark = pytest.mark.e2e


def start(terminals: TerminalPool, home: Path, workspace: Path, width: int = 120) -> ReplDriver:
    terminal = terminals.open(build_env(home))
    terminal.start([*agent_cli_argv(), "--yes"], cwd=workspace, width=width)
    driver = ReplDriver(terminal)
    driver.wait_for_prompt()
    return driver


def flat(text: str) -> str:
    return " ".join(text.split())


def test_command_errors_say_what_happened_and_what_to_do(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    repl = start(terminals, home, workspace)
    repl.submit("/todo write the release notes")
    assert "T1 is done" in repl.submit("/done 1")
    missing = flat(repl.submit("/done 999"))
    assert "there is no pending item T999; /facts lists them" in missing
    assert "unknown_item" not in missing
    garbage = flat(repl.submit("/expand garbage"))
    assert "that is not a pointer: a pointer looks like transcript:<session>:<sequence>" in garbage
    assert "missing_scheme" not in garbage
