"""A secret named after its value was recorded is not sent again on resume (fifth and
sixth attacks: tool results, then what the model and compaction made of them).

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

from agent_cli.compaction.markers import DIGEST_KEY, SUMMARY_KEY
from agent_cli.secret_forms import REDACTED_MARK, SecretForms
from agent_cli.session.resumed_secrets import redact_resumed_view

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
            Reply(
                [
                    text_block(f"the seed is {SEED}"),
                    tool_use_block("toolu_2", "grep", {"pattern": SEED}),
                ],
                "tool_use",
            ),
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
    assert f"the seed is {REDACTED_MARK}" in later  # the model's answer that repeated it
    assert {"pattern": REDACTED_MARK} in _tool_inputs(server.accepted[-1])  # and its input
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
    view, count = redact_resumed_view([clean, text, listed], secrets)
    assert count == 2 and view[0] is clean and view[1] is text
    assert view[2]["content"][0]["content"] == f"x {REDACTED_MARK}"
    assert view[2]["content"][1]["content"][0]["text"] == REDACTED_MARK
    assert view[2]["content"][1]["content"][1] == {"type": "image", "source": {}}
    assert SEED in json.dumps(listed)  # the input is not changed


def _tool_inputs(body: dict) -> list:
    return [
        block["input"]
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_use"
    ]


def test_the_model_s_words_and_inputs_and_compaction_s_products_are_redacted_not_the_user_s():
    secrets = SecretForms.from_values([SEED])
    answer = {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": SEED, "signature": "sig"},  # signed: as it is
            {"type": "text", "text": f"it is {SEED}"},
            {"type": "tool_use", "id": "t", "name": "bash", "input": {"argv": ["echo", SEED]}},
        ],
    }
    digest = {
        "role": "user",
        "content": f"digest: read deploy.cfg -> seed={SEED}",
        DIGEST_KEY: {"interactions": [[f"read deploy.cfg -> seed={SEED}", "transcript:s:3"]]},
    }
    summary = {"role": "user", "content": f"summary: the seed is {SEED}", SUMMARY_KEY: True}
    typed = {"role": "user", "content": f"my seed is {SEED}"}
    view, count = redact_resumed_view([answer, digest, summary, typed], secrets)
    assert count == 5 and view[3] is typed
    assert view[0]["content"][0] is answer["content"][0]
    assert view[0]["content"][1]["text"] == f"it is {REDACTED_MARK}"
    assert view[0]["content"][2]["input"] == {"argv": ["echo", REDACTED_MARK]}
    assert SEED not in json.dumps(view[1]) and view[1][DIGEST_KEY]["interactions"][0][1] == (
        "transcript:s:3"
    )
    assert view[2] == {**summary, "content": f"summary: the seed is {REDACTED_MARK}"}
