"""A fact or pending item too big to go with every request (a pasted file) is refused at
/remember and /todo, saying the limit and what to do; one already in the memory file (an
older version took it) can still be removed with /forget, and turns work again (fifth
outside attack). Real processes against the fake API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, text_block

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-durable-size-FAKE-0123456789"
BIG = " ".join(f"word{i}" for i in range(120_000))  # about 1.2 MB


def env_for(home: Path, server: Any) -> dict[str, str]:
    return build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url})


@pytest.mark.parametrize("command", ["remember", "todo"])
def test_a_pasted_file_is_refused_as_a_fact_or_todo_and_turns_still_work(
    home: Path, workspace: Path, server: Any, command: str
) -> None:
    server.enqueue(Reply([text_block("answered")]))
    env = env_for(home, server)

    refused = run_piped([], cwd=workspace, env=env, stdin_text=f"/{command} {BIG}\n")
    answered = run_piped(["-p", "a plain question"], cwd=workspace, env=env)

    assert refused.returncode == 0, refused.stderr
    said = refused.stdout + refused.stderr
    assert f"/{command} takes at most 2,000 characters" in said, said[-600:]
    assert "in a file" in said
    assert answered.returncode == 0, answered.stderr
    assert answered.stdout.strip() == "answered"


def test_an_oversized_fact_left_by_an_older_version_can_be_forgotten(
    home: Path, workspace: Path, server: Any
) -> None:
    env = env_for(home, server)
    run_piped([], cwd=workspace, env=env, stdin_text="/remember small fact\n")
    [memory_file] = (home / "memory").glob("*.json")
    document = json.loads(memory_file.read_text())
    document["state"]["facts"][0]["content"] = BIG
    memory_file.write_text(json.dumps(document))
    server.enqueue(Reply([text_block("answered after forgetting")]))

    run = run_piped([], cwd=workspace, env=env, stdin_text="/forget F1\nhello\n")

    assert run.returncode == 0, run.stderr
    assert "forgot F1" in run.stdout
    assert "answered after forgetting" in run.stdout
    assert BIG[:200] not in str(server.accepted[-1])
