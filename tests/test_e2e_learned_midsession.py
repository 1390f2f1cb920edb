"""A secret learned mid-session reaches what was taken in before it (24th round, t03).

The attack: a command printed a token from a file nothing knew as secret (`cat
notes/creds.yml`: request 2 carries it, unavoidably), then wrote it into `.env` as
`GITHUB_TOKEN`. agent-cli said the value was hidden from then on; yet every later request
still held it (the earlier tool result stays in the view) and `recall` (its search, and the
page of that result's record) gave it back whole to the model and the terminal. The same
held for AGENTS.md quoting a value later written to `.env.local`, and for an MCP tool
whose description (or name) quotes it: both ride in every request. Now the live view is
redacted as a resumed one is, recall redacts this run's records written before the value
was learned, the project instructions are redacted of it, and the MCP servers' tools are
offered again by the listing rules. The installed agent-cli (or its `main`), the real SDK,
the strict fake Messages API and a real MCP server process.
"""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from hostile_support import recoverable_secrets

from agent_cli.repl.main import main
from agent_cli.secret_forms import REDACTED_MARK

pytestmark = pytest.mark.e2e

KEY = "sk-ant-FAKE-learned-midsession-0123456789"
TOKEN = "ghp_LearnedLater0123456789abcdefABCDEF01"
LEARNED_NOTICE = "changed during the session"
LEAKY = Path(__file__).parent / "mcp_fixtures" / "leaky_server.py"


def call(tool_id: str, name: str, **tool_input: Any) -> Reply:
    return Reply([tool_use_block(tool_id, name, tool_input)], stop_reason="tool_use")


def last_result(body: dict[str, Any]) -> str:
    """The text of the last tool_result of a request."""
    block = body["messages"][-1]["content"][0]
    content = block["content"]
    return content if isinstance(content, str) else content[0]["text"]


def leaked(body: Any) -> set[str]:
    return recoverable_secrets(json.dumps(body), (TOKEN,)) | recoverable_secrets(
        json.dumps(body, ensure_ascii=False), (TOKEN,)
    )


def test_a_value_printed_before_it_was_learned_leaves_every_later_request_and_recall(
    tmp_path: Path,
) -> None:
    """As the tester met it: printed by one call, written into `.env` by the next, then
    searched for and recalled by pointer, then printed again."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    (workspace / "notes").mkdir(parents=True)
    (workspace / "notes" / "creds.yml").write_text(f"api_token: {TOKEN}\n")
    steps = [
        call("toolu_1", "bash", command="cat notes/creds.yml"),
        call(
            "toolu_2",
            "bash",
            command="sed -n 's/api_token: /GITHUB_TOKEN=/p' notes/creds.yml > .env && echo wrote",
        ),
        call("toolu_3", "recall", pattern="api_token"),
    ]
    bodies: list[dict[str, Any]] = []

    def respond(body: dict[str, Any]) -> Reply:
        bodies.append(body)
        if len(bodies) <= len(steps):
            return steps[len(bodies) - 1]
        if len(bodies) == len(steps) + 1:  # the pointer the search found, read whole
            pointer = re.search(r"transcript:[\w.-]+:\d+", last_result(body))
            assert pointer is not None, last_result(body)
            return call("toolu_4", "recall", pointer=pointer.group())
        if len(bodies) == len(steps) + 2:
            return call("toolu_5", "bash", command="cat notes/creds.yml")
        return Reply([text_block("done")])

    with start_fake_server(api_key=KEY) as fake:
        fake.responder = respond
        env = build_env(home, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url})
        done = run_piped(["-p", "look at creds", "--yes"], cwd=workspace, env=env)
    assert done.returncode == 0, done.stderr
    assert len(bodies) == 6
    assert leaked(bodies[0]) == set() and leaked(bodies[1]) == {TOKEN}  # before: unavoidable
    for where, body in enumerate(bodies[2:], start=2):
        assert leaked(body) == set(), f"request {where}: {json.dumps(body)[-1500:]}"
    assert f"api_token: {REDACTED_MARK}" in json.dumps(bodies[2]["messages"])
    assert f"api_token: {REDACTED_MARK}" in last_result(bodies[3])  # the search's excerpt
    assert f"api_token: {REDACTED_MARK}" in last_result(bodies[4])  # the record's page
    shown = done.stdout + done.stderr
    assert shown.count(LEARNED_NOTICE) == 1
    after = shown[shown.index(LEARNED_NOTICE) :]
    assert recoverable_secrets(after, (TOKEN,)) == set(), after  # the recall panels too


def test_agents_md_quoting_a_value_a_command_then_writes_to_a_dotenv_file_is_redacted_at_once(
    tmp_path: Path,
) -> None:
    """AGENTS.md rides in every request as its own system block; it is redacted of the
    value once a command wrote it to `.env.local` (the file is not read again), its note
    for the model counts it, and the user is told as at start."""
    home, workspace, vault = tmp_path / "home", tmp_path / "ws", tmp_path / "vault"
    vault.mkdir()
    workspace.mkdir()
    (vault / "prod.env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
    (workspace / "AGENTS.md").write_text(f"# Rules\nDeploy to staging with token {TOKEN}.\n")
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(
            call("toolu_1", "bash", command=f"cp {vault}/prod.env .env.local && echo pulled"),
            Reply([text_block("done")]),
        )
        env = build_env(home, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url})
        done = run_piped(["-p", "pull the env", "--yes"], cwd=workspace, env=env)
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    assert len(bodies) == 2
    assert TOKEN in json.dumps(bodies[0]["system"])  # nothing knew it yet
    assert leaked(bodies[1]) == set(), json.dumps(bodies[1]["system"])
    system = json.dumps(bodies[1]["system"])
    assert f"staging with token {REDACTED_MARK}." in system
    assert "[1 secret value held by agent-cli" in system and "text of AGENTS.md]" in system
    said = " ".join(done.stderr.split())
    assert "Project instructions: AGENTS.md holds 1 secret value" in said
    assert said.index(LEARNED_NOTICE) < said.index("Project instructions: AGENTS.md holds")


def test_an_mcp_tool_quoting_a_value_later_written_to_a_dotenv_file_is_offered_again_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server's tool definitions were listed (and redacted) before the value was known:
    once a command writes it to `.env.local`, the next request offers `deploy` with its
    description and schema redacted and no longer offers the tool named after it; `/mcp`
    says why, the name redacted."""
    home, workspace, vault = tmp_path / "home", tmp_path / "ws", tmp_path / "vault"
    for folder in (home, workspace, vault):
        folder.mkdir()
    (workspace / "secret.txt").write_text(TOKEN + "\n")  # what the server quotes
    (vault / "prod.env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
    (home / "config.toml").write_text(
        "[mcp_servers.described]\n"
        f'command = "{sys.executable}"\n'
        f'args = ["{LEAKY}", "described"]\n'
        "startup_timeout = 40\n"
    )
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(
            call("toolu_1", "bash", command=f"cp {vault}/prod.env .env.local"),
            Reply([text_block("done")]),
        )
        env = {
            "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_BASE_URL": fake.base_url,
            "AGENT_CLI_HOME": str(home),
            "PATH": "/usr/bin:/bin",
        }
        for name, value in env.items():  # what the command inherits
            monkeypatch.setenv(name, value)
        stdout, stderr = io.StringIO(), io.StringIO()
        code = main(
            ["--workspace", str(workspace), "--yes"],
            stdin=io.StringIO("deploy\n/mcp\n"),
            stdout=stdout,
            stderr=stderr,
            env=env,
        )
        bodies = [request.body for request in fake.requests]
    shown = stdout.getvalue() + stderr.getvalue()
    assert code == 0, shown[-2_000:]
    assert len(bodies) == 2
    before = {tool["name"] for tool in bodies[0]["tools"]}
    assert f"mcp__described__{TOKEN}" in before  # nothing knew it yet
    assert leaked(bodies[1]) == set(), json.dumps(bodies[1]["tools"])[-2_000:]
    tools = {tool["name"]: tool for tool in bodies[1]["tools"]}
    assert {"mcp__described__deploy", "mcp__described__ping"} <= set(tools)
    assert REDACTED_MARK in tools["mcp__described__deploy"]["description"]
    assert json.dumps(tools["mcp__described__deploy"]["input_schema"]).count(REDACTED_MARK) == 3
    after = shown[shown.index(LEARNED_NOTICE) :]
    assert "MCP server described: 1 tool no longer offered to the model" in after
    assert f"not offered: '{REDACTED_MARK}'" in after  # `/mcp` names the withdrawn tool
    assert recoverable_secrets(after, (TOKEN,)) == set(), after
