"""End to end in tmux: MCP servers from config.toml in a real terminal, and nothing they
started outlives agent-cli, whether it is ended by SIGTERM, by its terminal (SIGHUP) or
by SIGKILL (when it runs no code at all: the servers' supervisors end them)."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest
from e2e_support import TerminalPool, start_repl
from tools_support import is_process_running

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


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _wait_gone(pid: int, what: str) -> None:
    deadline = time.monotonic() + 20
    while is_process_running(pid):
        assert time.monotonic() < deadline, f"{what} outlived agent-cli"
        time.sleep(0.05)


@pytest.mark.parametrize("ending", ["SIGTERM", "SIGHUP", "SIGKILL"])
def test_mcp_servers_show_in_mcp_and_end_with_agent_cli(
    terminals: TerminalPool, home: Path, workspace: Path, tmp_path: Path, ending: str
) -> None:
    child_pid_file = tmp_path / "child.pid"
    _configure(home, child_pid_file)
    temp = tmp_path / "temp"  # where the servers' lifeline lives
    temp.mkdir()
    repl = start_repl(terminals, home, workspace, extra_env={"TMPDIR": str(temp)})
    deadline = time.monotonic() + 60
    shown = repl.submit("/mcp")
    while "demo ready" not in shown:
        assert time.monotonic() < deadline, shown
        time.sleep(0.5)
        shown = repl.submit("/mcp")
    assert "mcp__" not in shown and "echo" in shown and "missing failed" in shown
    assert "was not found" in shown
    child = int(child_pid_file.read_text())
    server = _parent(child)
    assert is_process_running(child) and is_process_running(server)
    agent_cli = repl.terminal.program_pid()
    if ending == "SIGHUP":
        repl.terminal.kill()  # the terminal goes away
    else:
        os.kill(agent_cli, getattr(signal, ending))
    _wait_gone(agent_cli, "nothing")
    _wait_gone(server, "the MCP server")
    _wait_gone(child, "a process the MCP server started")
    if ending != "SIGKILL":  # a killed agent-cli cannot remove its lifeline's folder
        assert not list(temp.iterdir())
