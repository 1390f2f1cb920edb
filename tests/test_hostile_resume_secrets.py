"""A secret named after its value was recorded is not sent again on resume (fifth and
sixth attacks: tool results, then what the model and compaction made of them; seventh:
a key behind `read_file`'s gutter, a piece an old cut left, an MCP image).

The attack: session 1 reads deploy.cfg, which holds SIGNING_SEED's value (a name that
does not look like a credential, so it was not redacted). The user notices, names it in
`AGENT_CLI_SECRET_NAMES` and goes on with `--continue`: every request of the resumed
session sent the value again from the earlier tool result. Real `agent-cli -p` processes
against the fake API; the transcript keeps what was recorded (append-only).

The seventh attack resumed three more ways: a PEM key read with `read_file` (each line
behind its line-number gutter, so no whole form) was sent line by line and handed back
by `recall`; a token whose head a spill preview's cut had left in the view was sent in
part (19 of 44 characters); an MCP image holding the token was sent again.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from hostile_support import recoverable_secrets
from session_support import ScriptedProvider, drain, make_session
from test_hostile_multiline_secrets import make_pem, pieces_in

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


# --- seventh attack: a key behind a gutter, pieces at old cuts, images ---------------------

PEM = make_pem(77)
TOKEN = "sgn_J9kcdZlU0pFxSMxq7Rk2mXv9LpW4tYc8NbH3aQ5s"
LEAKY = Path(__file__).parent / "mcp_fixtures" / "leaky_server.py"


def call(tool_id: str, name: str, tool_input: dict[str, Any]) -> Reply:
    return Reply([tool_use_block(tool_id, name, tool_input)], stop_reason="tool_use")


def run_two_sessions(
    tmp_path: Path,
    first: list[Reply],
    second: Any,
    named_later: dict[str, str],
    args: list[str] | None = None,
) -> tuple[list[dict[str, Any]], str, Path]:
    """Session 1 (`first`, nothing secret yet), then `--continue` with `named_later` in
    the environment; `second(transcript)` gives its replies. The resumed session's
    request bodies, what it printed, and the home folder."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    with start_fake_server(api_key=API_KEY) as server:
        env = {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url}
        server.enqueue(*first)
        done = run_piped([*(args or []), "-p", "go"], cwd=workspace, env=build_env(home, env))
        assert done.returncode == 0, done.stderr
        before = len(server.requests)
        transcript = next((home / "transcripts").glob("*.jsonl"))
        server.enqueue(*second(transcript))
        env.update(named_later)
        resumed = run_piped(
            [*(args or []), "--continue", "-p", "go on"], cwd=workspace, env=build_env(home, env)
        )
        assert resumed.returncode == 0, resumed.stderr
        bodies = [request.body for request in server.requests[before:]]
    assert bodies
    return bodies, resumed.stdout + resumed.stderr, home


def result_record(transcript: Path, tool_id: str) -> str:
    """The pointer of the transcript record holding the result of `tool_id`."""
    for line in transcript.read_text().splitlines():
        record = json.loads(line)
        message = (record.get("payload") or {}).get("message") or {}
        if message.get("role") == "user" and tool_id in json.dumps(message.get("content")):
            return str(record["event_id"])
    raise AssertionError(f"no record holds the result of {tool_id}")


def result_of(body: dict[str, Any], tool_id: str) -> str:
    """The text of the tool_result for `tool_id` in a request body."""
    for message in body["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else ():
            if block.get("type") == "tool_result" and block.get("tool_use_id") == tool_id:
                return json.dumps(block["content"], ensure_ascii=False)
    raise AssertionError(f"no result for {tool_id}")


@pytest.mark.e2e
def test_a_key_read_before_it_was_named_is_in_no_resumed_request_nor_recall(tmp_path):
    workspace = tmp_path / "ws"
    (workspace / "deploy").mkdir(parents=True)
    (workspace / "deploy" / "id_deploy").write_text(PEM + "\n")
    first = [
        call("toolu_1", "read_file", {"path": "deploy/id_deploy"}),
        call("toolu_2", "read_file", {"path": "deploy/id_deploy", "start_line": 3, "end_line": 5}),
        call("toolu_3", "read_file", {"path": "deploy/id_deploy", "end_line": 2}),
        Reply([text_block("read the key")]),
    ]

    def second(transcript: Path) -> list[Reply]:
        pointer = result_record(transcript, "toolu_1")
        line = PEM.split("\n")[4]
        return [
            call("toolu_9", "recall", {"pointer": pointer}),
            call("toolu_10", "recall", {"search": line[10:40]}),
            Reply([text_block("ok")]),
        ]

    bodies, shown, _ = run_two_sessions(tmp_path, first, second, {"DEPLOY_PRIVATE_KEY": PEM})
    assert PEM.split("\n")[4][10:40] in json.dumps(bodies)  # the model's own search words
    for where, body in enumerate(bodies):
        sent = json.dumps(body).replace(PEM.split("\n")[4][10:40], "")
        assert pieces_in(sent, PEM) == [], f"request {where}"
    assert pieces_in(shown, PEM) == []
    recalled, searched = (result_of(bodies[-1], tool_id) for tool_id in ("toolu_9", "toolu_10"))
    assert "(available, sha256" in recalled and REDACTED_MARK in recalled
    assert ": no match " in searched, searched  # the window's lines are found nowhere


@pytest.mark.e2e
def test_a_piece_of_a_token_an_old_cut_left_is_in_no_resumed_request(tmp_path):
    """Session 1 spilled a minified file whose preview head ends inside the token, and
    grep cut a long line inside it at 300 characters."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    blob = ",".join(f'"k{i}":"v{i:06d}"' for i in range(3000))
    at = 4096 - 7 - 20  # the preview's head ends about 4 KB into the body
    (workspace / "bundle.json").write_text("{" + blob[:at] + TOKEN + blob[at:] + "}\n")
    (workspace / "notes.txt").write_text("needle " + "x" * 280 + TOKEN + " tail\n")
    first = [
        call("toolu_1", "read_file", {"path": "bundle.json"}),
        call("toolu_2", "grep", {"pattern": "needle"}),
        Reply([text_block("read it")]),
    ]

    def second(transcript: Path) -> list[Reply]:
        pointer = result_record(transcript, "toolu_1")
        return [
            call("toolu_9", "recall", {"pointer": pointer}),
            call("toolu_10", "recall", {"pattern": "sgn_[A-Za-z0-9]{6}"}),
            Reply([text_block("ok")]),
        ]

    bodies, shown, _ = run_two_sessions(tmp_path, first, second, {"SIGNING_TOKEN": TOKEN})
    pieces = [TOKEN[i : i + 6] for i in range(len(TOKEN) - 5)]
    for where, body in enumerate(bodies):
        sent = json.dumps(body)
        assert not [piece for piece in pieces if piece in sent], f"request {where}"
    assert not [piece for piece in pieces if piece in shown]
    recalled, searched = (result_of(bodies[-1], tool_id) for tool_id in ("toolu_9", "toolu_10"))
    assert "omitted" in recalled and REDACTED_MARK in recalled
    assert ": no match " in searched, searched  # no piece left to be found


@pytest.mark.e2e
def test_an_mcp_image_holding_a_token_named_later_is_withheld_on_resume(tmp_path):
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    workspace.mkdir()
    (workspace / "secret.txt").write_text(TOKEN)
    (home / "config.toml").write_text(
        f'[mcp_servers.leaky]\ncommand = "{sys.executable}"\n'
        f'args = ["{LEAKY}", "binary"]\nstartup_timeout = 40\n'
    )
    first = [call("toolu_1", "mcp__leaky__image", {}), Reply([text_block("saw it")])]
    bodies, _, _ = run_two_sessions(
        tmp_path, first, lambda _: [Reply([text_block("ok")])], {"LEAKY_TOKEN": TOKEN}, ["--yes"]
    )
    (result,) = [
        block
        for message in bodies[0]["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    kinds = [item["type"] for item in result["content"]]
    assert kinds == ["text", "text"], kinds  # the image block's place: a note
    assert "withheld from the model" in result["content"][1]["text"]
    assert recoverable_secrets(json.dumps(bodies[0]), (TOKEN,)) == set()


def png_holding(text: str) -> str:
    """A base64 PNG-like image whose bytes hold `text` (only its data matters here)."""
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + text.encode() + b"\x00" * 7).decode()


def test_a_resumed_image_holding_a_secret_becomes_a_note_and_a_clean_one_stays():
    secrets = SecretForms.from_values([TOKEN])
    clean = {
        "type": "image",
        "source": {
            "type": "base64",
            "media_type": "image/png",
            "data": png_holding("nothing here"),
        },
    }
    held = {"type": "image", "source": {**clean["source"], "data": png_holding(TOKEN)}}
    message = {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "t",
                "content": [{"type": "text", "text": "MCP x image: ok"}, held, clean],
            }
        ],
    }
    view, count = redact_resumed_view([message], secrets)
    content = view[0]["content"][0]["content"]
    assert count == 1 and content[2] is clean
    assert content[1] == {
        "type": "text",
        "text": "[image image/png: withheld from the model: it holds a secret agent-cli keeps "
        "(an API key or token), so it is not sent]",
    }


def token_pieces(text: str) -> list[str]:
    return [TOKEN[i : i + 6] for i in range(len(TOKEN) - 5) if TOKEN[i : i + 6] in text]


def test_expand_of_an_earlier_runs_record_shows_no_piece_its_cut_left(tmp_path, monkeypatch):
    """`/expand` (the user's, any run) reads the record as the resumed view does."""
    monkeypatch.setenv("AGENT_CLI_HOME", str(tmp_path / "home"))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "bundle.txt").write_text("x" * 4_060 + TOKEN + "y" * 40_000)
    step = [{"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "bundle.txt"}}]
    first = make_session(workspace, ScriptedProvider([step, [{"type": "text", "text": "ok"}]]))
    drain(first.run_turn("read it"))
    record = result_record(tmp_path / "home" / "transcripts" / f"{first.session_id}.jsonl", "t1")
    first.close()
    shown = first.expand(record).excerpt or ""
    assert "omitted" in shown and token_pieces(shown)  # the cut left a piece
    environment = {"SIGNING_TOKEN": TOKEN, "PATH": "/usr/bin:/bin"}
    later = make_session(
        workspace, ScriptedProvider([]), resume=first.session_id, environment=environment
    )
    expanded = later.expand(record).excerpt or ""
    assert "omitted" in expanded and REDACTED_MARK in expanded
    assert token_pieces(expanded) == []


def test_a_digest_line_cut_inside_a_value_named_later_shows_no_piece_of_it():
    secrets = SecretForms.from_values([TOKEN])
    line = f"- bash command=echo {TOKEN[:24]}… -> 3 chars, ok"
    digest = {
        "role": "user",
        "content": f"[Compaction digest]\n{line} (transcript:s:3)",
        DIGEST_KEY: {"interactions": [{"line": line, "pointer": "transcript:s:3"}]},
    }
    view, count = redact_resumed_view([digest], secrets)
    assert count == 2 and token_pieces(json.dumps(view)) == []
    assert view[0][DIGEST_KEY]["interactions"][0] == {
        "line": f"- bash command=echo {REDACTED_MARK}… -> 3 chars, ok",
        "pointer": "transcript:s:3",
    }
