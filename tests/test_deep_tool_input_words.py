"""A tool call whose input is nested past the SDK's JSON reader (jiter's recursion limit,
about 200 levels; Python's json reads it) cannot be read by the SDK's stream accumulator.
It was retried as a malformed stream and ended "the request failed"; now it is said for
what it is, once (the same answer would fail the same way). The installed CLI, the real
SDK against the strict fake API."""

from __future__ import annotations

import os
from pathlib import Path

from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, tool_use_block

API_KEY = "sk-ant-deep-input-FAKE-4"


def test_a_tool_call_nested_past_the_sdk_reader_is_named_and_not_retried(tmp_path) -> None:
    deep: object = "x"
    for _ in range(220):
        deep = [deep]
    home = Path(os.environ["AGENT_CLI_HOME"])
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(
            *[
                Reply(
                    [tool_use_block(f"toolu_{n}", "bash", {"command": "echo", "x": deep})],
                    "tool_use",
                )
                for n in range(3)
            ]
        )
        env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url})
        done = run_piped(["-p", "go", "--yes"], cwd=tmp_path, env=env)
        asked = len(server.requests)
    words = " ".join(done.stderr.split())
    assert done.returncode != 0
    assert "tool call whose input is nested deeper than the Anthropic SDK's JSON reader" in words
    assert "the request failed" not in words and asked == 1
