"""End to end in tmux, against the fake API (`--yes`): Ctrl-C on an MCP call whose answer
of 60 MiB is on its way leaves the server's next call nothing old to wait on (an outside
attack: the prompt came back at once, but the next call, which the server answered at
once, waited its whole timeout and the server was stopped, since the SDK's reader was
still rebuilding the long line over and over). The server here writes half of that
answer (Ctrl-C is pressed once it has), waits for the client to cancel the call, then
writes the rest; the next call's timeout is 20 s, which reading the old line took
several times over before."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_support import ReplDriver, agent_cli_argv, build_env
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-mcp-long-lines-0123456789"
LONG = Path(__file__).parent / "mcp_fixtures" / "long_lines_server.py"


@pytest.fixture()
def scene(tmp_path: Path, terminals) -> Iterator[tuple[ReplDriver, object]]:
    folder, home = tmp_path / "ws", tmp_path / "home"
    folder.mkdir()
    home.mkdir()
    (home / "config.toml").write_text(
        f'[mcp_servers.long]\ncommand = "{sys.executable}"\nargs = ["{LONG}"]\ntimeout = 20\n'
        f'env = {{ LONG_HALF_MARK = "{tmp_path / "half-written"}" }}\n',
        encoding="utf-8",
    )
    with start_fake_server(api_key=API_KEY) as fake:
        env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": fake.base_url})
        terminal = terminals.open(env)
        terminal.start([*agent_cli_argv(), "--yes"], cwd=folder)
        repl = ReplDriver(terminal)
        repl.wait_for_prompt(timeout=60)
        yield repl, fake


def _tool_results(body: dict) -> list[dict]:
    content = body["messages"][-1]["content"]
    return [block for block in content if block.get("type") == "tool_result"]


def test_after_ctrl_c_on_a_call_with_a_long_answer_the_next_call_is_answered(scene, tmp_path):
    repl, server = scene
    server.enqueue(
        Reply([tool_use_block("toolu_l1", "mcp__long__half_then_more", {"mb": 60})], "tool_use"),
        Reply([tool_use_block("toolu_l2", "mcp__long__ok", {})], "tool_use"),
        Reply([text_block("the second call is done")]),
    )
    terminal = repl.terminal
    repl.send("ask for the long answer")
    terminal.wait_for_text("mcp__long__half_then_more", timeout=60)
    deadline = time.monotonic() + 60
    while not (tmp_path / "half-written").exists():  # half the answer is on its way
        assert time.monotonic() < deadline, terminal.screen()
        time.sleep(0.05)
    terminal.press("C-c")
    terminal.wait_for_text("turn cancelled", timeout=60)
    repl.wait_for_prompt(timeout=60)
    repl.send("now the short one")
    terminal.wait_for_text("the second call is done", timeout=90)
    [result] = _tool_results(server.accepted[-1])
    said = json.dumps(result["content"])
    assert not result.get("is_error"), said
    assert "got no answer" not in said and "ok" in said
