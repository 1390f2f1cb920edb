"""End to end in tmux: MCP servers from config.toml in a real terminal, and nothing they
started outlives agent-cli, whether it is ended by SIGTERM or by its terminal (SIGHUP)."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest
from e2e_support import TerminalPool, start_repl

pytestmark = pytest.mark.e2e

DEMO = Path(__file__).parent / "mcp_fixtures" / "demo_server.py"


def _configure(home: Path, child_pid_file: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        "[mcp_servers.demo]\n"
        f'command = "{sys.executable}"\n'
        f'args = ["{DEMO}", "child"]\n'
        f'env = {{ DEMO_CHILD_PID_FILE = "{child_pid_file}" }}\n'
        "[mcp_servers.missing]\n"
        'command = "no-such-mcp-server-here"\n',
        encoding="utf-8",
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


def _wait_gone(pid: int, what: str) -> None:
    deadline = time.monotonic() + 20
    while _alive(pid):
        assert time.monotonic() < deadline, f"{what} outlived agent-cli"
        time.sleep(0.05)


@pytest.mark.parametrize("ending", ["SIGTERM", "SIGHUP"])
def test_mcp_servers_show_in_mcp_and_end_with_agent_cli(
    terminals: TerminalPool, home: Path, workspace: Path, tmp_path: Path, ending: str
) -> None:
    child_pid_file = tmp_path / "child.pid"
    _configure(home, child_pid_file)
    repl = start_repl(terminals, home, workspace)
    deadline = time.monotonic() + 60
    shown = repl.submit("/mcp")
    while "demo ready" not in shown:
        assert time.monotonic() < deadline, shown
        time.sleep(0.5)
        shown = repl.submit("/mcp")
    assert "mcp__" not in shown and "echo" in shown and "missing failed" in shown
    assert "was not found" in shown
    child = int(child_pid_file.read_text())
    assert _alive(child)
    agent_cli = repl.terminal.program_pid()
    if ending == "SIGTERM":
        os.kill(agent_cli, signal.SIGTERM)
    else:
        repl.terminal.kill()  # the terminal goes away: SIGHUP
    _wait_gone(agent_cli, "nothing")
    _wait_gone(child, "a process the MCP server started")
