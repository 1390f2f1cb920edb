"""Tools a server lists that the Messages API or the MCP SDK cannot take: each is left out
with its reason, and the server's other tools work. Real processes throughout: the
hand-written hostile server over stdio (`mcp_fixtures/hostile_server.py`), the hub, and
for the requests the real CLI against the strict fake Messages API, which refuses what
the real API refuses (a top-level anyOf, a schema that is no valid draft 2020-12)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

from agent_cli.mcp_servers.settings import McpServerSettings

API_KEY = "sk-ant-tool-schemas-FAKE-3"
HOSTILE = Path(__file__).parent / "mcp_fixtures" / "hostile_server.py"


def hostile(mode: str) -> McpServerSettings:
    args = (str(HOSTILE), mode)
    return McpServerSettings("h", command=sys.executable, args=args, startup_timeout=30)


def _run_agent(workspace: Path, base_url: str, mode: str, prompt: str):
    home = Path(os.environ["AGENT_CLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[mcp_servers.h]\ncommand = "{sys.executable}"\nargs = ["{HOSTILE}", "{mode}"]\n'
        "startup_timeout = 60\n",  # the first request waits as long: the box may be busy
        encoding="utf-8",
    )
    env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": base_url})
    return run_piped(["-p", prompt, "--yes"], cwd=workspace, env=env)


def test_a_tool_whose_schema_the_api_refuses_is_left_out_and_every_request_is_accepted(
    tmp_path,
) -> None:
    """A top-level anyOf (a real server's "by id or by name") made the API refuse every
    request of the session; now that tool is not sent, and the server's echo runs."""
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(
            Reply([tool_use_block("toolu_e", "mcp__h__echo", {})], "tool_use"),
            Reply([text_block("The echo said ok.")]),
        )
        done = _run_agent(tmp_path, server.base_url, "api_refused_schemas", "echo, please")
        rejections = [r.rejection for r in server.requests if r.rejection is not None]
        sent = [tool["name"] for tool in server.accepted[0]["tools"]] if server.accepted else []
    assert rejections == [] and done.returncode == 0, (rejections, done.stderr)
    assert "mcp__h__echo" in sent
    assert "mcp__h__union" not in sent and "mcp__h__badtype" not in sent
    assert done.stdout.strip() == "The echo said ok."
