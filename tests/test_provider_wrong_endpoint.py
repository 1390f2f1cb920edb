"""A URL that is no Messages API fails at once, saying where the request went and what
came back: a 404 not about the model and a 405 as "wrong_endpoint", a 200 that is no
event stream as "not_messages_api" (it was retried as an incomplete stream, 5 times).
The real SDK against the fake API on 127.0.0.1, which sends `RawAnswer`s as they are."""

from __future__ import annotations

import json

import pytest
from fake_anthropic import RawAnswer, Reply, start_fake_server, text_block
from fake_anthropic_stream import build_reply_events

from agent_cli.errors import ProviderRequestFailed
from agent_cli.events import ModelRequest, ModelResponse, RetryNotice
from agent_cli.provider.anthropic_provider import AnthropicProvider

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
def test_a_200_that_is_no_event_stream_is_named_with_its_content_type_and_not_retried(
    server, content_type, body, said
):
    server.enqueue(RawAnswer(body, content_type, 200), Reply([text_block("never asked")]))
    failure, seen = fail(make_provider(server.base_url))
    assert (failure.kind, failure.status, failure.attempts) == ("not_messages_api", 200, 1)
    assert failure.content_type == content_type.split(";")[0]
    assert failure.detail == said and failure.url == f"{server.base_url}/v1/messages"
    assert not any(isinstance(event, RetryNotice) for event in seen)
    assert len(server.requests) == 1


@pytest.mark.parametrize("content_type", ["", "text/event-stream; charset=utf-8"])
def test_an_event_stream_without_the_usual_header_is_still_read(server, content_type):
    usage = {"input_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    events = build_reply_events({"model": "claude-test"}, Reply([text_block("hi")]), usage)
    sse = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)
    server.enqueue(RawAnswer(sse.encode(), content_type, 200))
    events_seen = list(make_provider(server.base_url).stream(ask()))
    assert isinstance(events_seen[-1], ModelResponse)
    assert events_seen[-1].message["content"] == [{"type": "text", "text": "hi"}]
