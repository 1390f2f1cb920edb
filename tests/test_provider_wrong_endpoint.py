"""A URL that is no Messages API fails at once, saying where the request went and what
came back: a 404 not about the model and a 405 as "wrong_endpoint". A 200 that is no
event stream is read as a stream, as always: a valid stream under another label is an
answer, and one that breaks is retried as before; only when retries run out does the
failure carry the content type and the server's words. Other failures (a 400) carry the
API's message alone. The real SDK against the fake API on 127.0.0.1, which sends
`RawAnswer`s as they are."""

from __future__ import annotations

import json

import pytest
from fake_anthropic import RawAnswer, Reply, start_fake_server, text_block
from fake_anthropic_stream import build_reply_events

from agent_cli.errors import ProviderRequestFailed
from agent_cli.events import ModelRequest, ModelResponse, RetryNotice
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.repl.error_text import describe_failed_request

API_KEY = "sk-ant-test-wrong-endpoint-NEVER-LEAK"


@pytest.fixture
def server():
    with start_fake_server(api_key=API_KEY) as fake:
        yield fake


def make_provider(base_url: str) -> AnthropicProvider:
    return AnthropicProvider(
        API_KEY, "claude-test", base_url=base_url, sleep=lambda _: None, timeout_seconds=10.0
    )


def ask() -> ModelRequest:
    message = {"role": "user", "content": [{"type": "text", "text": "hello"}]}
    return ModelRequest(system="", durable_context="", messages=(message,), tools=(), max_tokens=64)


def fail(provider: AnthropicProvider) -> tuple[ProviderRequestFailed, list]:
    seen: list = []
    with pytest.raises(ProviderRequestFailed) as caught:
        seen.extend(provider.stream(ask()))
    return caught.value, seen


def test_a_base_url_ending_in_v1_fails_at_once_naming_the_url_and_what_the_server_said(server):
    failure, seen = fail(make_provider(server.base_url + "/v1"))
    assert (failure.kind, failure.status, failure.attempts) == ("wrong_endpoint", 404, 1)
    assert failure.url == f"{server.base_url}/v1/v1/messages"
    assert failure.detail == "Not found: /v1/v1/messages"
    assert seen == [] and [r.path for r in server.requests] == ["/v1/v1/messages"]


def test_a_plain_text_404_is_read_for_its_words_with_the_key_redacted(server):
    body = f"unauthorized request to /v1/messages auth=Bearer {API_KEY}\n".encode()
    server.enqueue(RawAnswer(body, "text/plain", 404))
    failure, _ = fail(make_provider(server.base_url))
    assert (failure.kind, failure.status, failure.attempts) == ("wrong_endpoint", 404, 1)
    assert failure.detail == "unauthorized request to /v1/messages auth=Bearer [redacted]"
    assert failure.content_type == "text/plain" and API_KEY not in str(failure.__dict__)


@pytest.mark.parametrize(
    ("content_type", "body", "said"),
    [
        ("text/plain; charset=utf-8", b"hello from a web server", "hello from a web server"),
        ("text/html", b"<html><title>Sign in</title><p>Use SSO</p></html>", "Sign in Use SSO"),
        ("application/json", b'{"ok": true}', '{"ok": true}'),
    ],
)
def test_a_200_that_is_never_an_event_stream_is_retried_then_names_its_content_type(
    server, content_type, body, said
):
    """Review of fix30h: such an answer failed at once as "not_messages_api"; it is
    retried as the incomplete stream it parses as, and only the last failure says what
    came."""
    server.enqueue(*[RawAnswer(body, content_type, 200)] * 5)
    failure, seen = fail(make_provider(server.base_url))
    assert (failure.kind, failure.status, failure.attempts) == ("stream_incomplete", None, 5)
    assert failure.content_type == content_type.split(";")[0]
    assert failure.detail == said and failure.url == f"{server.base_url}/v1/messages"
    retries = [event.kind for event in seen if isinstance(event, RetryNotice)]
    assert retries == ["stream_incomplete"] * 4 and len(server.requests) == 5


def test_a_one_off_gateway_page_with_status_200_is_retried_and_the_answer_comes(server):
    """Review of fix30h: a gateway's "502 Bad Gateway" page sent with 200 failed at once,
    telling the user to fix ANTHROPIC_BASE_URL; it is retried, as before fix30h."""
    page = b"<html><head><title>502 Bad Gateway</title></head><body>cloudflare</body></html>"
    server.enqueue(RawAnswer(page, "text/html", 200), Reply([text_block("HELLO-OK")]))
    seen = list(make_provider(server.base_url).stream(ask()))
    assert [event.kind for event in seen if isinstance(event, RetryNotice)] == ["stream_incomplete"]
    assert seen[-1].message["content"] == [{"type": "text", "text": "HELLO-OK"}]


def test_a_400_that_is_no_api_error_carries_no_words_of_the_body(server):
    """Review of fix30h: a 400 whose body echoed the request showed the user's prompt and
    the system prompt on the terminal, and its 400-character line lost the advice. A
    400's detail is the API's own message only (none here)."""
    server.enqueue(
        RawAnswer(b"bad body: " + json.dumps(ask().messages).encode(), "text/plain", 400)
    )
    failure, _ = fail(make_provider(server.base_url))
    assert (failure.kind, failure.status, failure.attempts) == ("bad_request", 400, 1)
    assert failure.detail == "" and "hello" not in str(failure)
    said = describe_failed_request(failure)
    assert "hello" not in said and said.endswith(
        "send 'continue' to retry (sending it again would repeat it)."
    )


@pytest.mark.parametrize("status", [404, 200])
@pytest.mark.parametrize("offset", [60, 70, 75, 475])
def test_the_key_is_redacted_before_the_words_are_cut(server, status, offset):
    """Review of fix30h: words were cut to 500 characters before the key was redacted,
    so a key straddling the cut left its start in the detail. Redacted first, then cut
    to about 80 characters: no piece of the key, wherever it stands."""
    for glue in (" key=", ""):
        body = ("x" * offset + glue + API_KEY + " end").encode()
        server.enqueue(*[RawAnswer(body, "text/plain", status)] * (5 if status == 200 else 1))
        failure, _ = fail(make_provider(server.base_url))
        assert failure.detail.startswith("x" * 50) and len(failure.detail) <= 81
        assert API_KEY[:4] not in failure.detail, failure.detail
        if offset + len(glue) + len("[redacted]") <= 80:
            assert "[redacted]" in failure.detail


@pytest.mark.parametrize(
    "content_type",
    [
        "",
        "text/event-stream; charset=utf-8",
        "Text/Event-Stream",
        # review of fix30h: these failed at once as "not_messages_api"
        "text/plain; charset=utf-8",
        "application/octet-stream",
        "text/event-stream, text/event-stream; charset=utf-8",  # two headers, as httpx joins them
    ],
)
def test_an_event_stream_without_the_usual_header_is_still_read(server, content_type):
    usage = {"input_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    events = build_reply_events({"model": "claude-test"}, Reply([text_block("hi")]), usage)
    sse = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)
    server.enqueue(RawAnswer(sse.encode(), content_type, 200))
    events_seen = list(make_provider(server.base_url).stream(ask()))
    assert isinstance(events_seen[-1], ModelResponse)
    assert events_seen[-1].message["content"] == [{"type": "text", "text": "hi"}]


GITHUB = "ghp_WrongEndpointWords0123456789abcdefAB"


@pytest.mark.parametrize("glue", [" token=", ""])
def test_a_session_secret_the_cut_split_leaves_no_piece_on_the_line(server, glue):
    """The session's secrets are redacted after the provider cut the words: an ending
    that may begin one goes too, as if it had been redacted before the cut."""
    from agent_cli.secret_forms import SecretForms
    from agent_cli.session.shown_errors import without_secrets

    server.enqueue(RawAnswer(("y" * 70 + glue + GITHUB + " end").encode(), "text/plain", 404))
    failure, _ = fail(make_provider(server.base_url))
    shown = without_secrets(failure, SecretForms.from_values([GITHUB]))
    assert isinstance(shown, ProviderRequestFailed)
    assert shown.detail.startswith("y" * 70) and shown.detail.endswith("…")
    assert "ghp" not in shown.detail and shown.kind == "wrong_endpoint"
