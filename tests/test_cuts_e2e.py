"""The attack of issue 21 (item 2) end to end: the installed `agent-cli` against the
fake Messages API with the real SDK. The model pads a command's output so that bash's
1 MiB cap falls inside the key, and greps a file whose long line is cut at 300
characters inside the key (since the fourth attack, grep shows no line that holds a
key at all: `grep_secrets`). No request body and no file under AGENT_CLI_HOME (the
transcript, the artifact) may hold any piece of the key.
"""

from __future__ import annotations

import json

import pytest
from cuts_support import LEAK_CHARS, leaked_piece, strings_in
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

KEY = "sk-ant-FAKE-Zq9w8e7r6t5y4u3i2o1pLmNb"
CAP = 1_048_576
BEFORE_CAP = 9  # characters of the key that would fit under the cap


@pytest.mark.e2e
def test_cuts_chosen_by_the_model_leak_no_piece_of_the_key(tmp_path):
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    (workspace / "key.txt").write_text(KEY)
    (workspace / "long.txt").write_text("·" * (300 - BEFORE_CAP) + KEY + " needle\n")
    padding = f"head -c {CAP - BEFORE_CAP} /dev/zero | tr '\\0' '.'; cat key.txt"
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(
            Reply([tool_use_block("toolu_1", "bash", {"command": padding})], "tool_use"),
            Reply([tool_use_block("toolu_2", "grep", {"pattern": "needle"})], "tool_use"),
            Reply([text_block("Looked.")]),
        )
        env = build_env(home, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url})
        done = run_piped(["--yes"], cwd=workspace, env=env, stdin_text="look\n")
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    last = strings_in(bodies[-1])
    assert "cap" in last and "No matches under ." in last  # both tools ran and answered
    for where, body in enumerate(bodies):
        text = strings_in(body)
        assert leaked_piece(text, KEY) is None, f"request {where}"
        assert "." * 20 + KEY[:BEFORE_CAP] not in json.dumps(body)
    written = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    assert any("tool-results" in str(path) for path in written)  # the capped output
    for path, data in written.items():
        text = data.decode("utf-8", "replace")
        assert leaked_piece(text, KEY) is None, path
        assert "." + KEY[: min(LEAK_CHARS, BEFORE_CAP)] not in text, path
    assert leaked_piece(done.stdout + done.stderr, KEY) is None
