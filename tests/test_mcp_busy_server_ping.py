"""A healthy stdio MCP server that handles one message at a time, whose launcher exits
while the server is busy with a long call.

Found by an outside tester (round 29, `t_mcp_busy_ping.py 4 30`): the launcher's exit
made agent-cli ping the server (`exit_probe`, fix28h); the ping waited behind the 30 s
call, went unanswered for `ANSWER_SECONDS` (10 s), and agent-cli ended the server: the
call failed ("the MCP server slow stopped: its connection broke during a call of slow
(MCPError: Connection closed)") and the next call found no tool by that name. Now a call
in flight holds the ping's verdict: its answer, or its timeout, decides. Real processes
(the forking launcher, the server of `mcp_fixtures/busy_server.py`), the hub and the
real CLI against the strict fake API; timeouts far above what the tests take.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from tools_support import make_toolbox

from agent_cli.mcp_servers.hub import McpHub
from agent_cli.mcp_servers.settings import McpServerSettings
from agent_cli.mcp_servers.states import READY, ServerState

FIXTURES = Path(__file__).parent / "mcp_fixtures"
FORKER = FIXTURES / "forking_launcher.py"
BUSY = FIXTURES / "busy_server.py"
LONG = 90.0  # the call's timeout and startup_timeout: never reached
BOUND = 60.0  # what a test waits for a state to change
API_KEY = "sk-ant-busy-ping-FAKE-29"


def busy(name: str, parent: Path, hold: float) -> McpServerSettings:
    """The busy server, forked by the launcher, which writes its pid to `parent` and
    exits when the server's `slow` tool tells it to; `slow` answers `hold` seconds after
    the ping reached it."""
    return McpServerSettings(
        name,
        command=sys.executable,
        args=(str(FORKER), str(parent), sys.executable, str(BUSY), str(hold)),
        timeout=LONG,
        startup_timeout=LONG,
    )


def _state(hub: McpHub, name: str) -> ServerState:
    return next(state for state in hub.states() if state.name == name)


def _wait_until(hub: McpHub, name: str, done: Callable[[ServerState], bool]) -> ServerState:
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline and not done(_state(hub, name)):
        time.sleep(0.05)
    return _state(hub, name)


def test_a_busy_servers_long_call_is_answered_though_its_launcher_exits_during_it(
    tmp_path, monkeypatch
):
    """The ping's answer time is made short (0.5 s); the call goes on 3 s after the ping
    reached the server (more than that time and the read of what an ended server wrote,
    0.5 s). It failed "its connection broke during a call of slow"; now it is answered,
    the ping then too, and the server stays ready, its other tool answering."""
    monkeypatch.setattr("agent_cli.mcp_servers.hub.ANSWER_SECONDS", 0.5)
    toolbox = make_toolbox(tmp_path)
    hub = McpHub([busy("b", tmp_path / "launcher.pid", 3.0)], tmp_path)
    toolbox.attach_mcp(hub)
    hub.start()
    try:
        assert hub.wait_for_start(LONG) == []
        assert _state(hub, "b").status == READY, _state(hub, "b").reason
        outcome = toolbox.run("mcp__b__slow", {})
        assert not outcome.is_error, outcome.content
        assert "slow finished" in outcome.content
        state = _wait_until(hub, "b", lambda s: s.launcher_exited or s.status != READY)
        assert state.status == READY and state.launcher_exited, state
        quick = toolbox.run("mcp__b__quick", {})
        assert not quick.is_error and "quick finished" in quick.content, quick.content
        assert _state(hub, "b").status == READY
    finally:
        hub.close()


def test_print_mode_the_testers_run_answers_both_calls_and_keeps_the_tools(tmp_path):
    """The tester's scenario, through the real CLI (`-p --yes`): `slow` (its launcher
    exiting mid-call; the answer 13 s after the ping, past the real `ANSWER_SECONDS` of
    10 s), then `quick`. It failed `slow`, and `quick` found no tool by that name."""
    home = Path(os.environ["AGENT_CLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    args = ", ".join(f'"{arg}"' for arg in busy("slow", tmp_path / "launcher.pid", 13.0).args)
    (home / "config.toml").write_text(
        f'[mcp_servers.slow]\ncommand = "{sys.executable}"\nargs = [{args}]\n'
        "startup_timeout = 60\ntimeout = 90\n",
        encoding="utf-8",
    )
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(
            Reply([tool_use_block("t1", "mcp__slow__slow", {})], "tool_use"),
            Reply([tool_use_block("t2", "mcp__slow__quick", {})], "tool_use"),
            Reply([text_block("done.")]),
        )
        env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url})
        done = run_piped(["--yes", "-p", "call slow then quick"], cwd=tmp_path, env=env)
        offered = [[t["name"] for t in body.get("tools", [])] for body in server.accepted]
        results = [body["messages"][-1]["content"][0] for body in server.accepted[1:]]
    assert done.returncode == 0, done.stderr
    assert len(offered) == 3, done.stderr
    assert all({"mcp__slow__slow", "mcp__slow__quick"} <= set(names) for names in offered)
    assert [result["tool_use_id"] for result in results] == ["t1", "t2"]
    for result, said in zip(results, ("slow finished", "quick finished"), strict=True):
        assert not result.get("is_error") and said in str(result["content"]), result
    assert "stopped" not in done.stderr, done.stderr
