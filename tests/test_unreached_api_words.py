"""A refused connection or a timeout of the Messages API names the base URL it tried
(session 30's left item).

It said "could not reach the API; check the network or ANTHROPIC_BASE_URL" and "the API
did not answer in time; try again": a user whose ANTHROPIC_BASE_URL names a port nothing
listens on was not shown where the requests went (a 404 or 405 names it since fix30h).
Now both name the base URL, without what could be a credential in it (user part, query,
a path segment that is a key by a service's prefix: `endpoint_answers.shown_url`; a known
secret of the session by the session's redaction), and say what to check. A review found
the first rule hiding any token-shaped segment: dated model names, UUIDs, account ids,
project names showed as `[REDACTED]`; those show now.

The real SDK over real sockets on 127.0.0.1: a port nothing listens on (bound, then
closed) and a server that accepts and never answers, with a short timeout.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fake_anthropic import DropConnection, start_fake_server
from faults_support import notices
from session_support import drain, make_session, workspace_with
from test_model_command import Context

from agent_cli.errors import ProviderRequestFailed, SummarizerFailed
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.provider.endpoint_answers import shown_url
from agent_cli.repl.error_text import (
    describe_failed_request,
    describe_failed_summary,
    explain_models_api_problem,
    notice_text,
)
from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.session.model_choice import list_models

API_KEY = "sk-ant-unreached-FAKE-7"
PASSWORD = "hunter2-gateway-pass"
QUERY_KEY = "qk-5b7c9d1e3f5a7b9c1d3e"
PATH_KEY = "sk-ant-api03-9Fq2Lm7Xv4Rt8Kp3Zs6Wn1Yb5Hc0Jd"  # a key by its prefix
GATEWAY_TOKEN = "gwk9Fq2Lm7Xv4Rt8Kp3Zs6Wn1Yb5Hc0Jd"  # no prefix: a secret by .env only
# Ids a base URL's path holds (a gateway's, a deployment's, a tenant's): no keys.
PATH_IDS = (
    "claude-3-5-sonnet-20241022",
    "claude-sonnet-4-5-20250929",
    "team_2024_q3_llm_gateway",
    "project-7f3a9c2e",
    "550e8400-e29b-41d4-a716-446655440000",
    "0123456789abcdef0123456789abcdef",
    "proj_01HZX8K2M4N6P8R0T2V4W6Y8Z0",
    "anthropic-proxy-prod-eu-west-1",
)


def closed_port() -> int:
    """A port that was free a moment ago: nothing listens on it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def server_that_never_answers() -> Iterator[int]:
    """A port whose server accepts every connection and never writes a byte."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:  # closed: the test is over
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        stop.set()
        listener.close()
        for connection in held:
            connection.close()
        thread.join(5)


def failed_words(tmp_path: Path, base_url: str, *, one_shot: bool = False, dotenv: str = "") -> str:
    """What the user reads when a turn's request to `base_url` fails (2 attempts), in a
    workspace whose `.env` holds `dotenv`."""
    provider = AnthropicProvider(
        API_KEY,
        "claude-test",
        base_url=base_url,
        sleep=lambda seconds: None,
        max_retries=1,
        attempt_timeout=lambda: 0.5,
        jitter=lambda: 0.0,
    )
    files = {".env": dotenv} if dotenv else None
    session = make_session(workspace_with(tmp_path, files), provider)
    try:
        [failed] = notices(drain(session.run_turn("hello")), "provider_failed")
        return notice_text(failed, one_shot=one_shot, session_id=session.session_id)
    finally:
        session.close()


@pytest.mark.parametrize("one_shot", [False, True], ids=["repl", "-p"])
def test_a_refused_connection_names_the_base_url_and_what_to_check(
    tmp_path: Path, one_shot: bool
) -> None:
    port = closed_port()
    said = failed_words(tmp_path, f"http://127.0.0.1:{port}", one_shot=one_shot)
    assert f"the connection to http://127.0.0.1:{port} failed or dropped;" in said, said
    assert "check ANTHROPIC_BASE_URL" in said and "the network" in said
    assert "after 2 attempts" in said and "your message, which is kept" in said
    assert ("--continue" in said) is one_shot  # -p's own way to go on stays


def test_a_timeout_names_the_base_url_and_what_to_check(tmp_path: Path) -> None:
    with server_that_never_answers() as port:
        said = failed_words(tmp_path, f"http://127.0.0.1:{port}")
    assert f"http://127.0.0.1:{port} did not answer in time" in said, said
    assert "check ANTHROPIC_BASE_URL" in said and "the network" in said


def test_a_base_url_with_credentials_is_named_without_them(tmp_path: Path) -> None:
    port = closed_port()
    base = f"http://gw-user:{PASSWORD}@127.0.0.1:{port}/gw/{PATH_KEY}/relay?key={QUERY_KEY}"
    said = failed_words(tmp_path, base)
    assert f"to http://127.0.0.1:{port}/gw/{REDACTED_MARK}/relay failed" in said, said
    for secret in (PASSWORD, QUERY_KEY, PATH_KEY, "gw-user", API_KEY):
        assert secret not in said


def test_shown_url_keeps_the_address_and_leaves_out_what_could_be_a_credential() -> None:
    assert shown_url("https://api.anthropic.com/v1/messages") == (
        "https://api.anthropic.com/v1/messages"
    )
    assert shown_url(f"http://u:{PASSWORD}@[::1]:8080/v1/messages?api_key={QUERY_KEY}#x") == (
        "http://[::1]:8080/v1/messages"
    )
    assert shown_url(f"https://proxy.example.com/k/{PATH_KEY}/v1/messages") == (
        f"https://proxy.example.com/k/{REDACTED_MARK}/v1/messages"
    )
    assert shown_url(f"https://proxy.example.com/p;key={PATH_KEY}/v1") == (
        f"https://proxy.example.com/{REDACTED_MARK}/v1"
    )


@pytest.mark.parametrize("segment", PATH_IDS)
def test_shown_url_shows_an_id_in_the_path(segment: str) -> None:
    url = f"https://gw.example.com/{segment}/v1/messages"
    assert shown_url(url) == url


def test_an_id_in_the_base_url_path_is_named_and_a_dotenv_secret_is_not(
    tmp_path: Path,
) -> None:
    port = closed_port()
    base = f"http://127.0.0.1:{port}/deployments/{PATH_IDS[0]}/{GATEWAY_TOKEN}"
    said = failed_words(tmp_path, base, dotenv=f"GATEWAY_TOKEN={GATEWAY_TOKEN}\n")
    shown = f"http://127.0.0.1:{port}/deployments/{PATH_IDS[0]}/{REDACTED_MARK}"
    assert f"the connection to {shown} failed" in said, said
    assert GATEWAY_TOKEN not in said


# --- a summary request and the Models API name the URL the same way (session 31's item) ---


def test_a_summary_request_whose_connection_drops_names_the_base_url(tmp_path: Path) -> None:
    """`/compact` whose summary request loses its connection each time: the warning said
    "the connection to the API failed or dropped"; it names where the request went, as a
    turn's failure does (the real SDK against the fake API)."""
    note = "a line of the notes we keep\n" * 300  # room a summary would free
    with start_fake_server(api_key=API_KEY) as server:
        provider = AnthropicProvider(
            API_KEY, "claude-test", base_url=server.base_url, sleep=lambda s: None, max_retries=1
        )
        session = make_session(workspace_with(tmp_path), provider, keep_recent=1)
        try:
            for n in range(3):
                drain(session.run_turn(f"note {n}: {note}"))
            server.enqueue(DropConnection(), DropConnection())  # both attempts
            [failed] = notices(drain(session.compact_now()), "summary_failed")
            said = notice_text(failed)
        finally:
            session.close()
    assert f"the connection to {server.base_url} failed or dropped;" in said, said
    assert "check ANTHROPIC_BASE_URL" in said and "after 2 attempts" in said
    assert "try /compact again later" in said


@pytest.mark.parametrize("kind", ["connection", "timeout"])
def test_a_failed_summary_request_names_the_url_by_the_same_words_as_a_turn(kind: str) -> None:
    url = "https://gw.example.com/relay/v1/messages"
    cause = ProviderRequestFailed(kind, attempts=3, url=url)
    summary = describe_failed_summary(
        "summary_failed", SummarizerFailed("provider_error", provider_failure=cause), forced=False
    )
    turn = describe_failed_request(cause)
    base = "https://gw.example.com/relay"
    assert base in summary and "/v1/messages" not in summary, summary
    assert turn.split(": ", 1)[1].split(". ")[0] in summary  # the turn's own advice


def model_list_words(tmp_path: Path, base_url: str, dotenv: str = "") -> str:
    """What `/model` shows when the Models API at `base_url` cannot be used."""
    provider = AnthropicProvider(API_KEY, "claude-test", base_url=base_url)
    files = {".env": dotenv} if dotenv else None
    session = make_session(workspace_with(tmp_path, files), provider)
    try:
        return Context(session).run("/model")
    finally:
        session.close()


def test_model_listing_over_a_refused_connection_names_the_base_url(tmp_path: Path) -> None:
    port = closed_port()
    said = model_list_words(tmp_path, f"http://127.0.0.1:{port}")
    assert "from agent-cli's model table" in said, said
    assert f"the connection to http://127.0.0.1:{port} failed or dropped;" in said, said
    assert "check ANTHROPIC_BASE_URL" in said and "/v1/models" not in said


def test_model_listing_names_the_base_url_without_its_credentials(tmp_path: Path) -> None:
    port = closed_port()
    base = f"http://u:{PASSWORD}@127.0.0.1:{port}/gw/{PATH_KEY}/{GATEWAY_TOKEN}?key={QUERY_KEY}"
    said = model_list_words(tmp_path, base, dotenv=f"GATEWAY_TOKEN={GATEWAY_TOKEN}\n")
    shown = f"http://127.0.0.1:{port}/gw/{REDACTED_MARK}/{REDACTED_MARK}"
    assert f"the connection to {shown} failed" in said, said
    for secret in (PASSWORD, QUERY_KEY, PATH_KEY, GATEWAY_TOKEN, "u:", API_KEY):
        assert secret not in said


def test_a_models_api_that_does_not_answer_in_time_names_the_base_url() -> None:
    with server_that_never_answers() as port:
        provider = AnthropicProvider(API_KEY, "claude-test", base_url=f"http://127.0.0.1:{port}")
        listing = list_models(provider, timeout_seconds=0.5)
    said = explain_models_api_problem(listing.problem, listing.url)
    assert f"http://127.0.0.1:{port} did not answer in time" in said, said
    assert "check ANTHROPIC_BASE_URL" in said
