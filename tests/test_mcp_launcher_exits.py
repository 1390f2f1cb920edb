"""A stdio MCP server started through a launcher that forks it and exits (as daemonizing
wrappers do): the child keeps the launcher's stdin and stdout and answers every request.

Found by an outside tester: session 27's rule that the launched process's exit ends the
server (`process_exit`, made for `bash -c "sleep 300 & exec server"`) marked such a
server failed: at start-up "it stopped before it was ready (MCPError: Connection
closed)", no tool offered; when the launcher exited mid-session its tools vanished, in
`-p` without a word. Now the server is asked (`exit_probe`: a ping) and stays while it
answers. Real processes through the hub, bounds far above what they take.
"""

from __future__ import annotations

import io
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from rich.console import Console
from tools_support import make_toolbox

from agent_cli.events import Notice
from agent_cli.mcp_servers.hub import McpHub
from agent_cli.mcp_servers.settings import McpServerSettings
from agent_cli.mcp_servers.states import READY, ServerState
from agent_cli.repl.error_text import notice_text
from agent_cli.repl.mcp_view import LAUNCHER_EXITED, build_mcp_view
from agent_cli.session.mcp_part import McpPart

FIXTURES = Path(__file__).parent / "mcp_fixtures"
FORKER = FIXTURES / "forking_launcher.py"
DEMO = FIXTURES / "demo_server.py"
LONG = 90.0  # every timeout of these servers: the ping's answer must not need them
BOUND = 60.0  # what a test waits for a state to change (it takes well under a second)
API_KEY = "sk-ant-launcher-exits-FAKE-3"


def forked(name: str, when: str) -> McpServerSettings:
    """The demo server, started through the forking launcher (`when`: see its doc)."""
    return McpServerSettings(
        name,
        command=sys.executable,
        args=(str(FORKER), when, sys.executable, str(DEMO), "normal"),
        timeout=LONG,
        startup_timeout=LONG,
    )


def _state(hub: McpHub, name: str) -> ServerState:
    return next(state for state in hub.states() if state.name == name)


def _wait_until(hub: McpHub, name: str, done: Callable[[ServerState], bool]) -> ServerState:
    """The server's state once `done` holds for it, or once it failed, or after BOUND."""
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        state = _state(hub, name)
        if done(state) or state.status == "failed":
            return state
        time.sleep(0.05)
    return _state(hub, name)


def _assert_answers(hub: McpHub, name: str, toolbox) -> None:
    """Its tools are offered and a call through the toolbox is answered."""
    offered = {tool.name for tool in hub.offered_tools()}
    assert f"mcp__{name}__echo" in offered, offered
    outcome = toolbox.run(f"mcp__{name}__echo", {"text": "still here"})
    assert not outcome.is_error, outcome.content
    assert "echo: still here" in outcome.content


def test_a_server_whose_launcher_forks_and_exits_at_once_is_ready_and_answers(tmp_path):
    """It was "failed: it stopped before it was ready (MCPError: Connection closed)"."""
    toolbox = make_toolbox(tmp_path)
    hub = McpHub([forked("f", "now")], tmp_path)
    toolbox.attach_mcp(hub)
    hub.start()
    try:
        assert hub.wait_for_start(LONG) == []
        state = _wait_until(hub, "f", lambda s: s.launcher_exited)
        assert state.status == READY, state.reason
        assert state.launcher_exited
        _assert_answers(hub, "f", toolbox)
        assert _state(hub, "f").status == READY
    finally:
        hub.close()


def test_a_server_whose_launcher_exits_mid_session_keeps_its_tools_and_answers(tmp_path):
    """It turned failed when the launcher exited, its tools gone from the next request."""
    parent = tmp_path / "launcher.pid"
    toolbox = make_toolbox(tmp_path)
    hub = McpHub([forked("f", str(parent))], tmp_path)
    toolbox.attach_mcp(hub)
    hub.start()
    try:
        assert hub.wait_for_start(LONG) == []
        assert _state(hub, "f").status == READY and not _state(hub, "f").launcher_exited
        _assert_answers(hub, "f", toolbox)
        version = hub.version
        os.kill(int(parent.read_text()), signal.SIGUSR1)  # the launcher exits now
        state = _wait_until(hub, "f", lambda s: s.launcher_exited)
        assert state.status == READY, state.reason
        assert state.launcher_exited
        assert hub.version == version  # the offered tools never changed
        _assert_answers(hub, "f", toolbox)
    finally:
        hub.close()


def test_a_restarted_server_starts_with_its_launchers_exit_forgotten(tmp_path):
    """`launcher_exited` is of one start: a restart begins without it."""
    parent = tmp_path / "launcher.pid"
    hub = McpHub([forked("f", str(parent))], tmp_path)
    hub.start()
    try:
        assert hub.wait_for_start(LONG) == []
        os.kill(int(parent.read_text()), signal.SIGUSR1)
        assert _wait_until(hub, "f", lambda s: s.launcher_exited).launcher_exited
        parent.unlink()
        hub.restart("f")
        state = _wait_until(hub, "f", lambda s: s.status == READY)
        assert state.status == READY and not state.launcher_exited
    finally:
        hub.close()


class _Counter:
    def count_json(self, value: object) -> int:
        return 1


def _shown(part: McpPart) -> str:
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(build_mcp_view(part.servers()))
    return console.export_text()


def test_the_launchers_exit_is_said_once_and_shown_by_mcp(tmp_path):
    """What happened is said: one notice before the next request (none again), and the
    `/mcp` line under the ready server; nothing said while the launcher runs."""
    parent = tmp_path / "launcher.pid"
    part = McpPart([forked("f", str(parent))], tmp_path, _Counter())  # type: ignore[arg-type]
    part.start()
    try:
        codes = [n.code for n in part.before_request()]  # waits for it to start
        assert "mcp_launcher_exited" not in codes and "mcp_failed" not in codes
        assert LAUNCHER_EXITED not in _shown(part)
        os.kill(int(parent.read_text()), signal.SIGUSR1)
        deadline = time.monotonic() + BOUND
        while not part.servers()[0].launcher_exited and time.monotonic() < deadline:
            time.sleep(0.05)
        notices = list(part.before_request())
        assert [(n.code, n.fields) for n in notices] == [("mcp_launcher_exited", {"server": "f"})]
        said = notice_text(notices[0])
        assert "the process agent-cli started for it exited" in said
        assert "its tools stay offered" in said
        assert list(part.before_request()) == []  # said once
        shown = _shown(part)
        assert "f ready" in shown and LAUNCHER_EXITED in shown
    finally:
        part.close()


def test_print_mode_offers_a_forked_servers_tools_and_its_call_is_answered(tmp_path):
    """The tester's run: `-p --yes`, the launcher forking and exiting at once. It said
    "MCP server demo is not available: it stopped before it was ready", offered no MCP
    tool, and the model's call found no such tool."""
    home = Path(os.environ["AGENT_CLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    args = ", ".join(f'"{arg}"' for arg in forked("demo", "now").args)
    (home / "config.toml").write_text(
        f'[mcp_servers.demo]\ncommand = "{sys.executable}"\nargs = [{args}]\n'
        "startup_timeout = 60\n",
        encoding="utf-8",
    )
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(
            Reply([tool_use_block("t1", "mcp__demo__echo", {"text": "forked"})], "tool_use"),
            Reply([text_block("done.")]),
        )
        env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url})
        done = run_piped(["--yes", "-p", "echo through the demo"], cwd=tmp_path, env=env)
        offered = [[t["name"] for t in body.get("tools", [])] for body in server.accepted]
        result = server.accepted[-1]["messages"][-1]["content"][0]
    assert done.returncode == 0, done.stderr
    assert "not available" not in done.stderr, done.stderr
    said = "MCP server demo: the process agent-cli started for it exited, but the server"
    assert done.stderr.count(said) == 1, done.stderr  # before the request or after the call
    assert len(offered) == 2 and all("mcp__demo__echo" in names for names in offered)
    assert result["tool_use_id"] == "t1" and not result.get("is_error"), result
    assert "echo: forked" in str(result["content"])


def test_the_launchers_exit_in_the_middle_of_a_turn_is_said_after_the_next_call(tmp_path):
    """A turn of many requests asks `before_request` once: `-p` said nothing of it. Now
    the next call of the server says it (once), as a tool change is said."""
    parent = tmp_path / "launcher.pid"
    part = McpPart([forked("f", str(parent))], tmp_path, _Counter())  # type: ignore[arg-type]
    said: list[Notice] = []
    part.say_tool_changes_with(said.append)
    part.start()
    try:
        list(part.before_request())
        os.kill(int(parent.read_text()), signal.SIGUSR1)
        deadline = time.monotonic() + BOUND
        while not part.servers()[0].launcher_exited and time.monotonic() < deadline:
            time.sleep(0.05)
        outcome = part.call("f", "echo", {"text": "after"})
        assert outcome.failure is None, outcome.failure
        assert [(n.code, n.fields) for n in said] == [("mcp_launcher_exited", {"server": "f"})]
        assert list(part.before_request()) == []
        part.call("f", "echo", {"text": "again"})
        assert len(said) == 1
    finally:
        part.close()


SLOW_START = (
    "import os, sys, time; time.sleep(float(sys.argv[1])); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[2:]])"
)


def test_a_forked_server_slower_to_start_than_the_ping_answer_time_is_given_its_startup_timeout(
    tmp_path, monkeypatch
):
    """Review of round 28: the ping's answer was waited for `ANSWER_SECONDS` from the
    launcher's exit, so a forked server that takes longer to come up (a JVM, one that
    installs its dependencies first) was failed although well within its startup_timeout.
    The answer time is made short here (1 s) and the server sleeps 3 s before it starts."""
    monkeypatch.setattr("agent_cli.mcp_servers.hub.ANSWER_SECONDS", 1.0)
    settings = McpServerSettings(
        "slow",
        command=sys.executable,
        args=(str(FORKER), "now", sys.executable, "-c", SLOW_START, "3", str(DEMO), "normal"),
        timeout=LONG,
        startup_timeout=LONG,
    )
    toolbox = make_toolbox(tmp_path)
    hub = McpHub([settings], tmp_path)
    toolbox.attach_mcp(hub)
    hub.start()
    try:
        assert hub.wait_for_start(LONG) == []
        state = _wait_until(hub, "slow", lambda s: s.launcher_exited)
        assert state.status == READY, state.reason
        _assert_answers(hub, "slow", toolbox)
    finally:
        hub.close()
