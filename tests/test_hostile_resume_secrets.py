"""A secret named after its value was recorded is not sent again on resume (fifth attack).

The attack: session 1 reads deploy.cfg, which holds SIGNING_SEED's value (a name that
does not look like a credential, so it was not redacted). The user notices, names it in
`AGENT_CLI_SECRET_NAMES` and goes on with `--continue`: every request of the resumed
session sent the value again from the earlier tool result. Real `agent-cli -p` processes
against the fake API; the transcript keeps what was recorded (append-only).
"""

from __future__ import annotations

import json
from pathlib import Path

from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

from agent_cli.secret_forms import REDACTED_MARK, SecretForms
from agent_cli.session.resumed_secrets import redact_tool_results

API_KEY = "sk-ant-resume-secrets-FAKE-42"
SEED = "seed-Zq7Rk2mXv9LpW4tYc8NbH3"


def test_a_value_named_secret_before_continue_is_in_no_request_of_the_resumed_session(
    tmp_path: Path,
) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    workspace.mkdir()
    (workspace / "deploy.cfg").write_text(f"region=eu\nseed={SEED}\n")
    with start_fake_server(api_key=API_KEY) as server:
        env = {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url}
        env["SIGNING_SEED"] = SEED
        server.enqueue(
            Reply([tool_use_block("toolu_1", "read_file", {"path": "deploy.cfg"})], "tool_use"),
            Reply([text_block("read it")]),
        )
        first = run_piped(["-p", "read deploy.cfg"], cwd=workspace, env=build_env(home, env))
        assert first.returncode == 0, first.stderr
        assert SEED in json.dumps(server.accepted[-1])  # not a secret yet
        before = len(server.accepted)
        server.enqueue(Reply([text_block("ok")]))
        env["AGENT_CLI_SECRET_NAMES"] = "SIGNING_SEED"
        resumed = run_piped(["--continue", "-p", "go on"], cwd=workspace, env=build_env(home, env))
        assert resumed.returncode == 0, resumed.stderr
        later = json.dumps(server.accepted[before:])
    assert len(server.accepted) > before
    assert SEED not in later and f"seed={REDACTED_MARK}" in later
    transcripts = list((home).rglob("*.jsonl"))
    assert any(SEED in path.read_text() for path in transcripts)  # kept as written


def test_only_messages_whose_results_hold_a_secret_change():
    secrets = SecretForms.from_values([SEED])
    clean = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a"}]}
    text = {"role": "user", "content": [{"type": "text", "text": SEED}]}  # the user's words
    listed = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "b", "content": f"x {SEED}"},
            {
                "type": "tool_result",
                "tool_use_id": "c",
                "content": [{"type": "text", "text": SEED}, {"type": "image", "source": {}}],
            },
        ],
    }
    view, count = redact_tool_results([clean, text, listed], secrets)
    assert count == 2 and view[0] is clean and view[1] is text
    assert view[2]["content"][0]["content"] == f"x {REDACTED_MARK}"
    assert view[2]["content"][1]["content"][0]["text"] == REDACTED_MARK
    assert view[2]["content"][1]["content"][1] == {"type": "image", "source": {}}
    assert SEED in json.dumps(listed)  # the input is not changed
