"""A model id that holds a secret of the session is refused before anything is recorded:
an API key pasted as `--model`, `ANTHROPIC_MODEL` or `/model <id>` was written to the
transcript and shown in the banner and `stats` (nineteenth outside test). Real processes
against the strict fake API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, text_block

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-FAKE-model-id-0123456789abcdefXYZ"
REFUSED = "that model id holds one of your secrets"


def env_for(home: Path, server: Any, **extra: str) -> dict[str, str]:
    settings = {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url, **extra}
    return build_env(home, settings)


def files_holding(home: Path, secret: str) -> list[Path]:
    return [p for p in home.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


@pytest.mark.parametrize("where", ["flag", "environment"])
def test_a_secret_given_as_the_model_at_start_is_refused_and_nothing_is_kept(
    home: Path, workspace: Path, server: Any, where: str
) -> None:
    argv = ["--model", API_KEY] if where == "flag" else []
    extra = {"ANTHROPIC_MODEL": API_KEY} if where == "environment" else {}

    run = run_piped([*argv, "-p", "hello"], cwd=workspace, env=env_for(home, server, **extra))

    assert run.returncode == 2, run.stderr[-2000:]
    assert REFUSED in " ".join(run.stderr.split())
    assert API_KEY not in run.stdout + run.stderr
    assert files_holding(home, API_KEY) == []
    assert server.accepted == []


def test_a_secret_given_to_slash_model_is_refused_and_the_session_goes_on(
    home: Path, workspace: Path, server: Any
) -> None:
    server.enqueue(Reply([text_block("answered on the model it had")]))
    stdin = f"/model {API_KEY}\nhello\nstats\n"

    run = run_piped(["--yes"], cwd=workspace, env=env_for(home, server), stdin_text=stdin)

    said = " ".join((run.stdout + run.stderr).split())
    assert run.returncode == 0, said[-2000:]
    assert REFUSED in said
    assert "answered on the model it had" in said
    assert API_KEY not in said.replace(f"/model {API_KEY}", "")  # (the typed line echoed)
    assert files_holding(home, API_KEY) == []
    assert server.accepted[-1]["model"] != API_KEY
