"""`agent-cli -p` with an MCP server from config.toml: the real SDK against the strict
fake API, the real demo server, in a real process. With `--yes` the model's MCP call runs
and its result reaches the model; without it the call is refused the way a built-in
tool's is in -p mode (nobody can be asked)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

API_KEY = "sk-ant-print-mode-mcp-FAKE-7"
DEMO = Path(__file__).parent / "mcp_fixtures" / "demo_server.py"


def _run_agent(
    workspace: Path, base_url: str, *flags: str, prompt: str
) -> subprocess.CompletedProcess[str]:
    home = Path(os.environ["AGENT_CLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[mcp_servers.demo]\ncommand = "{sys.executable}"\nargs = ["{DEMO}"]\n'
        "startup_timeout = 60\n",  # the first request waits as long: the box may be busy
        encoding="utf-8",
    )
    env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": base_url})
    return run_piped(["-p", prompt, *flags], cwd=workspace, env=env)


def _echo_then_answer() -> tuple[Reply, Reply]:
    return (
        Reply([tool_use_block("toolu_m", "mcp__demo__echo", {"text": "from -p"})], "tool_use"),
        Reply([text_block("The demo server said: echo: from -p")]),
    )


def test_print_mode_with_yes_runs_the_mcp_tool_and_prints_the_answer(tmp_path) -> None:
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(*_echo_then_answer())
        done = _run_agent(tmp_path, server.base_url, "--yes", prompt="echo through the demo")
        first_tools = [tool["name"] for tool in server.accepted[0]["tools"]]
        result = server.accepted[-1]["messages"][-1]["content"][0]
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "The demo server said: echo: from -p"
    assert "mcp__demo__echo" in first_tools  # the request waited for the server
    assert result["tool_use_id"] == "toolu_m" and not result.get("is_error")
    assert "echo: from -p" in str(result["content"])
    assert all(r.rejection is None for r in server.requests)


def test_print_mode_without_yes_refuses_the_mcp_call_as_it_refuses_bash(tmp_path) -> None:
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(*_echo_then_answer())
        done = _run_agent(tmp_path, server.base_url, prompt="echo through the demo")
        result = server.accepted[-1]["messages"][-1]["content"][0]
    assert done.returncode == 4, done.stderr
    to_model = str(result["content"])
    assert result["tool_use_id"] == "toolu_m" and result.get("is_error") is True
    assert "echo: from -p" not in to_model  # the server was never called
    assert "nobody could be asked" in to_model and "--yes" in to_model
    stderr = " ".join(done.stderr.split())
    assert "was not run: -p cannot ask for permission." in stderr
    assert "--yes" in stderr and "denied by the user" not in stderr


def test_print_mode_says_a_server_missed_its_startup_timeout_naming_it_and_no_mcp_command(
    tmp_path,
) -> None:
    """It said the server was "still starting, left out of this request ... /mcp shows how
    they stand": no limit, no key, and a command -p cannot run. The server's own timeout
    now lands while the request waits (for its handshake's deadline, not a guess), and
    says both."""
    home = Path(os.environ["AGENT_CLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[mcp_servers.slow]\ncommand = "{sys.executable}"\nargs = ["{DEMO}", "noinit"]\n'
        "startup_timeout = 6\n",  # longer than the SDK's import takes on a busy box
        encoding="utf-8",
    )
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(Reply([text_block("Answered without it.")]))
        env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url})
        done = run_piped(["-p", "hello"], cwd=tmp_path, env=env)
    said = " ".join(done.stderr.split())
    assert done.returncode == 0 and done.stdout.strip() == "Answered without it.", said
    assert (
        "MCP server slow is not available: it did not finish the MCP handshake and list its "
        "tools within its startup_timeout of 6 s (raise startup_timeout under "
        "[mcp_servers.slow] in config.toml if it needs longer). This run goes on without it"
    ) in said
    assert "/mcp" not in said
