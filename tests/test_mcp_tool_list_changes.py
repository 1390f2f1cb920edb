"""A server that says its tools changed (`notifications/tools/list_changed`) has them
listed again: `agent-cli -p` with the hand-written `changing_server` (real process, real
SDK) against the strict fake API. The request after the call that changed them offers the
new list, a call of the new tool runs, the user reads one line saying what changed, and a
notification that changes nothing leaves the tool list (the cached prefix) as it was."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

from agent_cli.mcp_servers.offered_tools import OfferedTool
from agent_cli.mcp_servers.states import READY, ServerState, describe_not_offered

API_KEY = "sk-ant-list-changed-FAKE-3"
SERVER = Path(__file__).parent / "mcp_fixtures" / "changing_server.py"


def _run_agent(workspace: Path, base_url: str) -> subprocess.CompletedProcess[str]:
    home = Path(os.environ["AGENT_CLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[mcp_servers.chg]\ncommand = "{sys.executable}"\nargs = ["{SERVER}"]\n'
        "startup_timeout = 60\n",  # the first request waits as long: the box may be busy
        encoding="utf-8",
    )
    env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": base_url})
    return run_piped(["-p", "use the server", "--yes"], cwd=workspace, env=env)


def _call(ident: str, tool: str) -> Reply:
    return Reply([tool_use_block(ident, f"mcp__chg__{tool}", {})], "tool_use")


def _mcp_tools(body: dict) -> list[str]:
    return [tool["name"] for tool in body["tools"] if tool["name"].startswith("mcp__")]


def test_tools_a_server_changes_during_a_call_are_offered_from_the_next_request(
    tmp_path: Path,
) -> None:
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(_call("toolu_1", "grow"), _call("toolu_2", "fresh"))
        server.enqueue(_call("toolu_3", "same"), Reply([text_block("done")]))
        done = _run_agent(tmp_path, server.base_url)
        bodies = list(server.accepted)
        rejected = [r.rejection for r in server.requests if r.rejection is not None]
    assert done.returncode == 0, done.stderr
    assert not rejected
    before = ["mcp__chg__gone", "mcp__chg__grow", "mcp__chg__same"]
    after = ["mcp__chg__fresh", "mcp__chg__grow", "mcp__chg__same"]
    assert [_mcp_tools(body) for body in bodies] == [before, after, after, after]
    fresh = bodies[2]["messages"][-1]["content"][0]
    assert fresh["tool_use_id"] == "toolu_2" and not fresh.get("is_error")
    assert "fresh ran" in str(fresh["content"])
    # a notification that changes nothing: the very same tool list, byte for byte
    assert bodies[3]["tools"] == bodies[2]["tools"]
    stderr = " ".join(done.stderr.split())
    said = "MCP server chg changed its tools (1 added, 1 removed)"
    assert stderr.count(said) == 1 and stderr.count("changed its tools") == 1, stderr


def test_a_tool_a_running_server_did_not_list_is_refused_without_claiming_it_does_not_exist():
    listed = OfferedTool({"name": "mcp__chg__grow"}, "chg", "grow")
    said = describe_not_offered("mcp__chg__fresh", [ServerState("chg", READY, tools=(listed,))])
    assert said is not None and "does not list it" not in said
    assert "not in the server's list of tools when agent-cli last read it" in said
    assert "/mcp restart chg" in said
