"""A tool call whose input is nested deep arrives whole and runs. The SDK's stream helper
re-parsed every partial input with jiter, which stops at about 200 levels: such a valid
answer failed (retried as a malformed stream, then named `tool_input_too_deep`). The
provider now assembles the raw events and parses each input once with Python's json.
The installed CLI, the real SDK against the strict fake API."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

API_KEY = "sk-ant-deep-input-FAKE-4"
RAW_SERVER = Path(__file__).parent / "mcp_fixtures" / "raw_server.py"


def nested(levels: int) -> dict[str, Any]:
    """An input object `levels` deep, itself counted: {"tree": [[...["leaf"]...]]}."""
    deep: Any = ["leaf"]
    for _ in range(levels - 2):
        deep = [deep]
    return {"tree": deep}


def run_agent(tmp_path: Path, base_url: str, *, mcp: bool) -> Any:
    home = Path(os.environ["AGENT_CLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    if mcp:  # its tools/call answers say how deep the arguments it read are
        (home / "config.toml").write_text(
            f'[mcp_servers.raw]\ncommand = "{sys.executable}"\n'
            f'args = ["{RAW_SERVER}", "depth"]\nstartup_timeout = 60\n',
            encoding="utf-8",
        )
    env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": base_url})
    return run_piped(["-p", "go", "--yes"], cwd=tmp_path, env=env)


def test_an_mcp_call_nested_past_the_sdk_parsers_limit_runs_and_its_answer_comes_back(
    tmp_path,
) -> None:
    """240 levels: past jiter's ~200, within what the MCP SDK can send (254)."""
    call = tool_use_block("toolu_deep", "mcp__raw__odd", nested(240))
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(Reply([call], "tool_use"), Reply([text_block("The tree arrived.")]))
        done = run_agent(tmp_path, server.base_url, mcp=True)
        asked = len(server.requests)
        sent_back = server.accepted[-1]["messages"]
    assert done.returncode == 0, done.stderr
    assert len(sent_back) == 3, "the deep call never ran (its answer was retried)"
    assert done.stdout.strip() == "The tree arrived."
    assert asked == 2  # no retry: the first answer was read as it came
    assert sent_back[-2]["content"][0]["input"] == nested(240)
    result = sent_back[-1]["content"][0]
    assert result["tool_use_id"] == "toolu_deep" and not result.get("is_error")
    assert "the arguments are nested 240 deep" in str(result["content"])


@pytest.fixture
def deep_fake_server():
    """The fake API walks requests by recursion (its prompt-cache model) in this process:
    room for 500 levels, as the CLI makes room for itself (`agent_cli.__main__`)."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, 4_000))
    yield
    sys.setrecursionlimit(before)


def test_a_call_nested_500_deep_arrives_whole_and_the_session_goes_on(
    tmp_path, deep_fake_server
) -> None:
    """500 levels: read by Python's json, recorded, answered by the tool, and sent back to
    the API whole on the next request. (bash knows no key `tree`: it refuses the input in
    its fixed words, which shows the call reached the tool intact.)"""
    call = tool_use_block("toolu_500", "bash", {"command": "echo hi", **nested(500)})
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(Reply([call], "tool_use"), Reply([text_block("Understood.")]))
        done = run_agent(tmp_path, server.base_url, mcp=False)
        asked = len(server.requests)
        sent_back = server.accepted[-1]["messages"]
    assert done.returncode == 0, done.stderr
    assert len(sent_back) == 3, "the deep call never ran (its answer was retried)"
    assert done.stdout.strip() == "Understood."
    assert asked == 2
    assert sent_back[-2]["content"][0]["input"] == {"command": "echo hi", **nested(500)}
    result = sent_back[-1]["content"][0]
    assert result["tool_use_id"] == "toolu_500" and result.get("is_error") is True


def test_a_call_nested_past_the_bound_is_named_and_not_retried(tmp_path) -> None:
    """Past `MAX_TOOL_INPUT_DEPTH` (600) the session's walks would run out of stack: the
    answer is refused once, in words, before anything runs."""
    raw = '{"tree": ' + "[" * 700 + "]" * 700 + "}"
    call = tool_use_block("toolu_700", "bash", {}, raw_json=raw)
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(*[Reply([call], "tool_use") for _ in range(3)])
        done = run_agent(tmp_path, server.base_url, mcp=False)
        asked = len(server.requests)
    words = " ".join(done.stderr.split())
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "tool call whose input is nested more than 600 levels deep" in words
    assert "the request failed" not in words and asked == 1


def test_an_mcp_call_deeper_than_the_mcp_sdk_can_send_says_so_and_the_server_stays(
    tmp_path, deep_fake_server
) -> None:
    """300 levels arrive whole, but the MCP SDK's serializer stops at about 250: the call
    is said not to have been sent (it was said "answered with something unreadable"),
    and the server still answers the next call."""
    calls = [
        tool_use_block("toolu_300", "mcp__raw__odd", nested(300)),
        tool_use_block("toolu_10", "mcp__raw__odd", nested(10)),
    ]
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(Reply(calls, "tool_use"), Reply([text_block("Done.")]))
        done = run_agent(tmp_path, server.base_url, mcp=True)
        results = server.accepted[-1]["messages"][-1]["content"]
    assert done.returncode == 0, done.stderr
    assert results[0]["is_error"] is True
    assert "not sent to raw: its input is nested deeper than the MCP SDK can send" in str(
        results[0]["content"]
    )
    assert "the arguments are nested 10 deep" in str(results[1]["content"])
