"""A dotenv file the user edits between typed turns is learned before the next request (29th
round, T3), through the installed agent-cli, the real SDK and the strict fake Messages API.

Turn 1 runs `cat notes.txt`, which prints two tokens nothing knew as secret yet (its
request 2 carries them, unavoidably). While its answer streams, after the turn's last
tool check, the user writes the first into `.env`, as in another window; turns 2 and 3
are plain chat. While turn 3's answer streams the user adds the second to `.env`; then
`/compact` asks for a summary of the older part (turn 1's result among it) and turn 4 is
plain chat again. No tool runs after turn 1: every request after each edit, the
summary's included, must carry neither value, and the terminal says once per edit that
the file changed, before the request that learned it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from hostile_support import recoverable_secrets

from agent_cli.secret_forms import REDACTED_MARK

pytestmark = pytest.mark.e2e

KEY = "sk-ant-FAKE-between-turns-0123456789abcdef"
TOKEN = "ghp_UsErEdIt8Wv2Xy4Za6Bc8De0Fg2Hi4Jk6Lm8"
STRIPE = "sk_live_51HbetweenTURNSq8Zr2mXv9LpW4tYc8Nb"
LEARNED_NOTICE = "changed during the session"


def leaked(body: Any, secrets: tuple[str, ...]) -> set[str]:
    return recoverable_secrets(json.dumps(body), secrets) | recoverable_secrets(
        json.dumps(body, ensure_ascii=False), secrets
    )


def test_dotenv_edits_between_typed_turns_are_hidden_from_every_next_request(
    tmp_path: Path,
) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text(f"temp token {TOKEN}\nstripe {STRIPE}\n")
    bodies: list[dict[str, Any]] = []

    def respond(body: dict[str, Any]) -> Reply:
        bodies.append(body)
        if len(bodies) == 1:
            block = tool_use_block("toolu_1", "bash", {"command": "cat notes.txt"})
            return Reply([block], stop_reason="tool_use")
        if len(bodies) == 2:  # the user, in another window, after the turn's last check
            (workspace / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
        if len(bodies) == 4:
            with (workspace / ".env").open("a") as dotenv:
                dotenv.write(f"STRIPE_SECRET_KEY={STRIPE}\n")
        if len(bodies) == 5:  # `/compact`'s summary request
            return Reply([text_block("The user read notes.txt and chatted.")])
        return Reply([text_block(f"answer {len(bodies)}")])

    with start_fake_server(api_key=KEY) as fake:
        fake.responder = respond
        env = build_env(home, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url})
        typed = "show notes\nthanks\nanything else?\n/compact\nand now?\n"
        done = run_piped(["--yes"], cwd=workspace, env=env, stdin_text=typed)
    shown = done.stdout + done.stderr
    assert done.returncode == 0, shown[-2_000:]
    assert len(bodies) == 6, [json.dumps(body)[:300] for body in bodies]
    summary = json.dumps(bodies[4]["messages"])
    assert "notes.txt" in summary and "Exit code: 0" in summary, summary  # turn 1's result
    assert leaked(bodies[1], (TOKEN, STRIPE)) == {TOKEN, STRIPE}  # before: unavoidable
    for where, body in enumerate(bodies[2:4], start=2):  # after the first edit
        assert leaked(body, (TOKEN,)) == set(), f"request {where}: {json.dumps(body)}"
    assert f"temp token {REDACTED_MARK}" in json.dumps(bodies[2]["messages"])
    for where, body in enumerate(bodies[4:], start=4):  # after the second
        assert leaked(body, (TOKEN, STRIPE)) == set(), f"request {where}: {json.dumps(body)}"
    said = " ".join(shown.split())
    assert said.count(f".env {LEARNED_NOTICE}") == 2, shown[-2_000:]
    assert "(GITHUB_TOKEN)" in said and "(STRIPE_SECRET_KEY)" in said
    said_in_order = done.stdout.index(LEARNED_NOTICE, done.stdout.index("> thanks"))
    assert said_in_order < done.stdout.index("answer 3")  # before turn 2's answer
    second = done.stdout.rindex(LEARNED_NOTICE)
    assert done.stdout.index("> /compact") < second < done.stdout.index("[compact]")
    after = shown[shown.rindex(LEARNED_NOTICE) :]
    assert recoverable_secrets(after, (TOKEN, STRIPE)) == set(), after
