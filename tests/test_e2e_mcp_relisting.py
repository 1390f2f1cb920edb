"""End to end against the strict fake API: a call whose server said its tools changed and
then never answers `tools/list` (`mcp_fixtures/changing_server.py hang`, startup_timeout
60 s) is answered at once (an outside attack: the panel spun "running" for the whole
startup_timeout after the server had answered, 4 calls took 43 s in `-p`, and Ctrl-C
during that wait recorded "the tool did not finish" for a call that had run). In tmux,
Ctrl-C while agent-cli waits for that listing keeps the call's answer as its result."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest
from e2e_support import ReplDriver, agent_cli_argv, build_env, count_prompts, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

API_KEY = "sk-ant-e2e-mcp-relisting-0123456789"
SERVER = Path(__file__).parent / "mcp_fixtures" / "changing_server.py"


def _config(home: Path, log: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[mcp_servers.chg]\ncommand = "{sys.executable}"\nargs = ["{SERVER}", "hang"]\n'
        f'startup_timeout = 60\nenv = {{ LISTING_LOG = "{log}" }}\n',
        encoding="utf-8",
    )


def _results(body: dict) -> list[dict]:
    content = body["messages"][-1]["content"]
    return [block for block in content if block.get("type") == "tool_result"]


def test_calls_whose_server_never_answers_the_listing_it_asked_for_are_answered(tmp_path):
    home = Path(os.environ["AGENT_CLI_HOME"])
    _config(home, tmp_path / "listings.log")
    with start_fake_server(api_key=API_KEY) as server:
        for number in range(3):
            server.enqueue(
                Reply([tool_use_block(f"toolu_{number}", "mcp__chg__same", {})], "tool_use")
            )
        server.enqueue(Reply([text_block("done")]))
        env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url})
        began = time.monotonic()
        done = run_piped(["-p", "use the server", "--yes"], cwd=tmp_path, env=env)
        took = time.monotonic() - began
        bodies = list(server.accepted)
    assert done.returncode == 0, done.stderr
    assert len(bodies) == 4
    for body in bodies[1:]:
        [result] = _results(body)
        assert not result.get("is_error") and "same ran" in json.dumps(result["content"])
    assert took < 60, took  # generous: each call waited its startup_timeout (60 s) before


@pytest.mark.e2e
def test_ctrl_c_while_the_new_tool_list_is_awaited_keeps_the_calls_answer(tmp_path, terminals):
    folder, home, log = tmp_path / "ws", tmp_path / "home", tmp_path / "listings.log"
    folder.mkdir()
    _config(home, log)
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(
            Reply([tool_use_block("toolu_d1", "mcp__chg__same", {"to": "prod"})], "tool_use")
        )
        server.enqueue(Reply([text_block("the turn after")]))
        env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url})
        terminal = terminals.open(env)
        terminal.start([*agent_cli_argv(), "--yes"], cwd=folder)
        repl = ReplDriver(terminal)
        repl.wait_for_prompt(timeout=60)
        repl.send("deploy")
        deadline = time.monotonic() + 60
        while "hung" not in (log.read_text(encoding="utf-8") if log.exists() else ""):
            assert time.monotonic() < deadline, terminal.screen()  # the listing under way
            time.sleep(0.02)
        terminal.press("C-c")  # while agent-cli waits (2 s) for the listing's answer
        terminal.wait_for_text("turn cancelled", timeout=60)
        shown = terminal.wait_for(lambda screen: count_prompts(screen) >= 2, "the next prompt")
        repl.send("what happened?")
        terminal.wait_for_text("the turn after", timeout=60)
        bodies = list(server.accepted)
    assert len(bodies) == 2, shown  # Ctrl-C ended the turn: no request until the next one
    last = bodies[-1]
    [result] = [
        block
        for message in last["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    said = json.dumps(result["content"])
    assert result["tool_use_id"] == "toolu_d1" and not result.get("is_error"), said
    assert "same ran" in said and "did not finish" not in said
    assert "no result was shown" not in shown, shown
    assert "interrupted by Ctrl-C" in shown and "same ran" in shown  # its answer, on screen
