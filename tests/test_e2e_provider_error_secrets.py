"""An API error that quotes the request shows none of the session's secrets: a gateway or
proxy in front of the API may echo part of what it refuses, and the error's detail is
printed on the terminal. The provider redacts its own key; the session's secrets (the
environment's, the workspace's dotenv files') were shown whole (nineteenth outside test:
`GITHUB_TOKEN=ghp_…` and a `.env`'s `STRIPE_SECRET_KEY` in "Model request failed (HTTP
400): …", in the REPL and in `-p`). Real processes against the strict fake API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import HttpError

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-provider-error-FAKE-0123456789"
GITHUB = "ghp_ApiErrEcho0123456789abcdefABCDEFabcd"
STRIPE = "sk_live_51ApiErrEchoQ8Zr2mXv9LpW4tYc8NbH3sJd6"


def refusal() -> HttpError:
    return HttpError(
        400,
        message=f"invalid text near 'GITHUB_TOKEN={GITHUB}' and 'STRIPE_SECRET_KEY={STRIPE}' "
        f"(key {API_KEY})",
    )


@pytest.mark.parametrize("one_shot", [False, True], ids=["repl", "print"])
def test_an_api_error_quoting_the_request_shows_no_secret_of_the_session(
    home: Path, workspace: Path, server: Any, one_shot: bool
) -> None:
    (workspace / ".env").write_text(f"STRIPE_SECRET_KEY={STRIPE}\n")
    server.enqueue(refusal())
    env = build_env(
        home,
        {
            "ANTHROPIC_API_KEY": API_KEY,
            "ANTHROPIC_BASE_URL": server.base_url,
            "GITHUB_TOKEN": GITHUB,
        },
    )
    argv = ["-p", "hello"] if one_shot else []

    run = run_piped(argv, cwd=workspace, env=env, stdin_text="" if one_shot else "hello\n")

    said = run.stdout + run.stderr
    assert "HTTP 400" in said, said[-2000:]
    assert "invalid text near 'GITHUB_TOKEN=[REDACTED]'" in said, said[-2000:]
    for secret in (GITHUB, STRIPE, API_KEY):
        assert secret not in said
    for path in home.rglob("*"):
        if path.is_file():
            text = path.read_bytes()
            assert GITHUB.encode() not in text and STRIPE.encode() not in text, path
