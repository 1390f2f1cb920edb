"""A base URL that leads to no Messages API says so, in the installed program.

Outside tester (session 30): `ANTHROPIC_BASE_URL=http://127.0.0.1:PORT/v1 agent-cli`, then
`hello`, said "Model request failed (HTTP 404): the request failed ... send 'continue' to
retry", and `continue` failed the same way; the server's own "Not found: /v1/v1/messages"
was never shown. A server answering 200 with text/plain was retried 5 times and then said
only "the request failed"; it is still retried (one such answer may be a gateway's passing
fault), and then says what came. Real processes, the real SDK, the strict fake API on 127.0.0.1
(a `RawAnswer` is sent as it is: an endpoint that is not the API).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from e2e_support import build_env, run_piped, start_repl
from fake_anthropic import RawAnswer

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-wrong-endpoint-FAKE-0123456789"


def flat(text: str) -> str:
    """The words on screen or in a pipe, whatever the terminal wrapped."""
    return " ".join(text.split())


def test_a_base_url_ending_in_v1_names_the_url_and_the_fix_and_offers_no_retry(
    terminals: Any, home: Path, workspace: Path, server: Any
) -> None:
    repl = start_repl(
        terminals,
        home,
        workspace,
        extra_env={"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": f"{server.base_url}/v1"},
    )
    for line in ("hello", "continue"):
        said = flat(repl.submit(line))
        assert f"{server.base_url}/v1/v1/messages is not the Messages API" in said, said
        assert "(it said: Not found: /v1/v1/messages)" in said
        assert "ANTHROPIC_BASE_URL ends in /v1, which the SDK adds itself: drop it." in said
        assert "quit, fix ANTHROPIC_BASE_URL, then start again with `agent-cli --continue`" in said
        assert "send 'continue'" not in said and "retrying" not in said
    assert [request.path for request in server.requests] == ["/v1/v1/messages"] * 2


@pytest.mark.parametrize("one_shot", [False, True], ids=["repl", "print"])
@pytest.mark.parametrize(
    ("answer", "fact", "words"),
    [
        (
            RawAnswer(f"unauthorized request key={API_KEY}".encode(), "text/plain", 404),
            "/v1/messages is not the Messages API",
            "(it said: unauthorized request key=[redacted])",
        ),
    ],
    ids=["404 text/plain"],
)
def test_an_endpoint_answering_plain_text_is_named_once_without_retries(
    home: Path,
    workspace: Path,
    server: Any,
    one_shot: bool,
    answer: RawAnswer,
    fact: str,
    words: str,
) -> None:
    server.enqueue(answer)
    env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url})
    argv = ["-p", "hello"] if one_shot else []

    run = run_piped(argv, cwd=workspace, env=env, stdin_text="" if one_shot else "hello\n")

    said = flat(run.stdout + run.stderr)
    assert f"Model request failed (HTTP {answer.status}): {server.base_url}{fact}" in said, said
    assert words in said and "Check ANTHROPIC_BASE_URL: the API's root" in said
    go_on = "then run the command again with --continue" if one_shot else "`agent-cli --continue`"
    assert go_on in said and "send 'continue'" not in said
    assert "retrying" not in said and "attempts" not in said and API_KEY not in said
    assert len(server.requests) == 1
    if one_shot:
        assert run.returncode == 1


GITHUB = "ghp_WrongEndpoint0123456789abcdefABCDEFab"
PASSWORD = "hunter2-Wrong-Endpoint-pass"


def test_the_url_shown_holds_no_password_or_secret_the_base_url_carried(
    home: Path, workspace: Path, server: Any
) -> None:
    """A gateway's URL may carry a user and password, or a token in its path: the words
    name the URL without the first and with the session's secrets redacted."""
    host = server.base_url.removeprefix("http://")
    base_url = f"http://agent:{PASSWORD}@{host}/gw/{GITHUB}/v1"
    env = build_env(
        home,
        {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": base_url, "GITHUB_TOKEN": GITHUB},
    )

    run = run_piped(["-p", "hello"], cwd=workspace, env=env)

    said = flat(run.stdout + run.stderr)
    shown = f"{server.base_url}/gw/[REDACTED]/v1/v1/messages is not the Messages API"
    assert shown in said, said
    assert GITHUB not in said and PASSWORD not in said and "agent:" not in said
    assert [request.path for request in server.requests] == [f"/gw/{GITHUB}/v1/v1/messages"]


@pytest.mark.parametrize("one_shot", [False, True], ids=["repl", "print"])
def test_answers_that_are_never_an_event_stream_are_retried_then_say_what_came(
    home: Path, workspace: Path, server: Any, one_shot: bool
) -> None:
    """Review of fix30h: a 200 that is no event stream failed at once, telling the user
    to fix ANTHROPIC_BASE_URL. It is retried as before; when retries run out the words
    say what came and what the server said, with the key redacted."""
    body = f"hello from a plain web server key={API_KEY}".encode()
    server.enqueue(*[RawAnswer(body, "text/plain", 200)] * 5)
    env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url})
    argv = ["-p", "hello"] if one_shot else []

    run = run_piped(argv, cwd=workspace, env=env, stdin_text="" if one_shot else "hello\n")

    said = flat(run.stdout + run.stderr)
    assert (
        f"Model request failed after 5 attempts: {server.base_url}/v1/messages answered "
        "text/plain, not the Messages API's event stream (it said: hello from a plain web "
        "server key=[redacted]); if this goes on, check ANTHROPIC_BASE_URL." in said
    ), said
    go_on = "run the command again with --continue" if one_shot else "send 'continue' to retry"
    assert go_on in said and "fix ANTHROPIC_BASE_URL" not in said and API_KEY not in said
    assert len(server.requests) == 5


def test_a_one_off_gateway_page_sent_with_200_is_retried_and_answered(
    home: Path, workspace: Path, server: Any
) -> None:
    """Review of fix30h: one "502 Bad Gateway" page with status 200 ended the request,
    telling the user to fix ANTHROPIC_BASE_URL; the retry gets the answer, as before."""
    page = b"<html><head><title>502 Bad Gateway</title></head><body>cloudflare</body></html>"
    server.enqueue(RawAnswer(page, "text/html", 200))
    env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url})

    run = run_piped(["-p", "hello"], cwd=workspace, env=env)

    said = flat(run.stdout + run.stderr)
    assert "echo: hello" in said and "ANTHROPIC_BASE_URL" not in said, said
    assert run.returncode == 0 and len(server.requests) == 2
