"""`/context` and `/last` after a `.env` edit between turns, in a real terminal (tmux), the
fake API playing the model through the real SDK (session 29's left item).

Turn 1 runs `cat notes.txt`, which prints two tokens nothing knew as secret yet, and the
model's answer repeats the first. Then the user writes the first into `.env`, as in
another shell, and opens `/context`; then adds the second and opens `/last`. Neither view
sends a request, yet each checks the dotenv files first, as a request does: it says the
file changed, with the same line a request would be preceded by, and shows neither value.
The next turn learns nothing new (nothing said again) and carries neither value.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_anthropic import Reply, text_block, tool_use_block
from hostile_support import recoverable_secrets
from scene_support import Scene, open_scene

from agent_cli.secret_forms import REDACTED_MARK

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-views-0123456789abcdef"
TOKEN = "ghp_UsErEdIt8Wv2Xy4Za6Bc8De0Fg2Hi4Jk6Lm8"
STRIPE = "sk_live_51HbetweenVIEWSq8Zr2mXv9LpW4tYc8Nb"
LEARNED = "changed during the session"


@pytest.fixture()
def scene(tmp_path: Path, terminals) -> Iterator[Scene]:
    notes = {"notes.txt": f"temp token {TOKEN}\nstripe {STRIPE}\n"}
    with open_scene(tmp_path, terminals, API_KEY, notes, flags=["--yes"]) as opened:
        yield opened


def words(text: str) -> str:
    return " ".join(text.split())


def test_context_and_last_check_the_dotenv_files_before_they_show(scene: Scene) -> None:
    repl, server = scene.repl, scene.server
    server.enqueue(
        Reply([tool_use_block("toolu_1", "bash", {"command": "cat notes.txt"})], "tool_use"),
        Reply([text_block(f"notes.txt holds {TOKEN}.")]),
        Reply([text_block("answer three")]),
    )
    repl.submit("show notes", timeout=60)
    assert len(server.accepted) == 2

    (scene.workspace / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")  # another shell
    context = words(repl.submit("/context"))
    assert f".env {LEARNED}" in context and "(GITHUB_TOKEN)" in context, context
    assert context.index(LEARNED) < context.index("view: ")
    assert f"notes.txt holds {REDACTED_MARK}" in context, context
    assert recoverable_secrets(context, (TOKEN,)) == set(), context

    with (scene.workspace / ".env").open("a") as dotenv:
        dotenv.write(f"STRIPE_SECRET_KEY={STRIPE}\n")
    last = words(repl.submit("/last"))
    assert f".env {LEARNED}" in last and "(STRIPE_SECRET_KEY)" in last, last
    assert f"temp token {REDACTED_MARK}" in last and f"stripe {REDACTED_MARK}" in last, last
    assert last.index(LEARNED) < last.index("temp token")
    assert recoverable_secrets(last, (TOKEN, STRIPE)) == set(), last
    assert len(server.accepted) == 2  # the views sent nothing

    after = words(repl.submit("thanks", timeout=60))
    assert "answer three" in after and LEARNED not in after, after  # said once each
    assert len(server.accepted) == 3
    sent = json.dumps(server.accepted[2])
    assert recoverable_secrets(sent, (TOKEN, STRIPE)) == set(), sent
