"""A model the API does not know: say which, say how to choose another, fail `-p`.

Real SDK over HTTP to the strict fake Messages API, which answers the scripted 404
`not_found_error` the real API sends for an unknown model (`model: <id>`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from fake_anthropic import HttpError, start_fake_server
from faults_support import notices, turn_end
from session_support import drain, make_session

from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.repl.error_text import notice_text

API_KEY = "sk-ant-test-MODELS-404"
GONE = "claude-gone-4-0"
CHOICES = ("--model", "config key `model`", "ANTHROPIC_MODEL", "/model")


def _provider(server, model: str = GONE) -> AnthropicProvider:
    return AnthropicProvider(API_KEY, model, base_url=server.base_url, sleep=lambda _: None)


def test_a_404_for_the_model_names_it_and_every_way_to_choose_another(tmp_path: Path):
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(HttpError(404, "not_found_error", f"model: {GONE}"))
        session = make_session(tmp_path, _provider(server))
        events = drain(session.run_turn("hello"))
        session.close()
    assert turn_end(events).outcome == "failed"
    [notice] = notices(events, "provider_failed")
    assert f"'{GONE}'" in notice_text(notice) and "404" in notice_text(notice)
    assert all(choice in notice_text(notice) for choice in CHOICES)
    assert "continue" not in notice_text(notice)
    assert len(server.requests) == 1  # not retried: it would only fail again


def test_a_404_for_a_wrong_path_is_not_called_a_missing_model(tmp_path: Path):
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(HttpError(404, "not_found_error", "Not found: /v1/messages"))
        session = make_session(tmp_path, _provider(server, "claude-sonnet-5-5"))
        events = drain(session.run_turn("hello"))
        session.close()
    [notice] = notices(events, "provider_failed")
    assert "has no model" not in notice_text(notice) and "HTTP 404" in notice_text(notice)


def test_print_mode_exits_non_zero_and_says_which_model_was_not_found(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(HttpError(404, "not_found_error", f"model: {GONE}"))
        env.update(
            ANTHROPIC_API_KEY=API_KEY, ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_MODEL=GONE
        )
        done = subprocess.run(
            [sys.executable, "-m", "agent_cli", "-p", "hello"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        sent_model = server.requests[-1].body["model"]
    assert done.returncode == 1 and done.stdout == ""
    assert sent_model == GONE
    flat = " ".join(done.stderr.split())
    assert f"'{GONE}'" in flat and all(choice in flat for choice in CHOICES)
    assert "continue" not in flat


def test_continue_with_model_goes_on_with_it_after_a_model_chosen_with_slash_model_is_gone(
    tmp_path: Path,
):
    """LOSS-11: the recorded `/model` choice beat `--model`, so the 404 advice could not
    be followed in -p: every `--continue --model <good>` sent the missing model again."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}

    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "agent_cli", *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            input=stdin,
        )

    with start_fake_server(api_key=API_KEY) as server:
        env.update(ANTHROPIC_API_KEY=API_KEY, ANTHROPIC_BASE_URL=server.base_url)
        server.enqueue(HttpError(404, "not_found_error", f"model: {GONE}"))
        run(stdin=f"/model {GONE}\nmy important request\n")
        assert server.requests[-1].body["model"] == GONE
        went_on = run("--continue", "--model", "claude-sonnet-5-5", "-p", "go on")
        flagged = server.requests[-1].body
        again = run("--continue", "-p", "and then")  # the flag's model was recorded
        later = server.requests[-1].body
    assert went_on.returncode == 0, went_on.stderr
    assert flagged["model"] == "claude-sonnet-5-5"
    assert "my important request" in str(flagged["messages"])
    flat = " ".join(went_on.stderr.split())
    assert f"claude-sonnet-5-5 (--model), instead of {GONE} chosen with /model" in flat
    assert again.returncode == 0, again.stderr
    assert later["model"] == "claude-sonnet-5-5"
