"""AnthropicProvider driven through the real SDK against the fake Messages API."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import time
import traceback

import pytest
from fake_anthropic import (
    DropConnection,
    EndStreamEarly,
    HttpError,
    MalformedEvent,
    Reply,
    Stall,
    StreamError,
    start_fake_server,
    text_block,
    tool_use_block,
)

from agent_cli.errors import MissingApiKey, ProviderRequestFailed, WireFormatError
from agent_cli.events import ModelRequest, ModelResponse, RetryNotice, TextDelta
from agent_cli.provider.anthropic_provider import AnthropicProvider

API_KEY = "sk-ant-test-9f8e7d6c5b4a-NEVER-LEAK"
READ_TOOL = {
    "name": "read_file",
    "description": "Read a file.",
    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
}


@pytest.fixture
def server():
    fake = start_fake_server(api_key=API_KEY)
    yield fake
    fake.stop()


class Sleeps(list):
    """A `sleep` that records the delays it was asked for instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def make_provider(server, **options) -> tuple[AnthropicProvider, Sleeps]:
    sleeps = Sleeps()
    options = {"sleep": sleeps, "jitter": lambda: 0.0, "timeout_seconds": 10.0, **options}
    return AnthropicProvider(API_KEY, "claude-test", base_url=server.base_url, **options), sleeps


def ask(text="read README.md", *history) -> ModelRequest:
    messages = (*history, {"role": "user", "content": [{"type": "text", "text": text}]})
    return ModelRequest(
        system="You are terse.",
        durable_context="",
        messages=messages,
        tools=(READ_TOOL,),
        max_tokens=512,
    )


def run(provider: AnthropicProvider, request: ModelRequest) -> list:
    return list(provider.stream(request))


def fail(provider: AnthropicProvider, request: ModelRequest) -> tuple[ProviderRequestFailed, list]:
    seen: list = []
    with pytest.raises(ProviderRequestFailed) as caught:
        for event in provider.stream(request):
            seen.append(event)
    return caught.value, seen


def final(events: list) -> ModelResponse:
    assert isinstance(events[-1], ModelResponse)
    assert not any(isinstance(event, ModelResponse) for event in events[:-1])
    return events[-1]


def streamed_text(events: list) -> str:
    return "".join(event.text for event in events if isinstance(event, TextDelta))


def test_text_streams_in_pieces_and_ends_with_the_whole_message(server):
    server.enqueue(Reply([text_block("The first heading is Agent CLI.")], chunk_size=5))
    provider, _ = make_provider(server)
    events = run(provider, ask())
    assert len([e for e in events if isinstance(e, TextDelta)]) > 1
    assert streamed_text(events) == "The first heading is Agent CLI."
    response = final(events)
    assert response.message == {
        "role": "assistant",
        "content": [{"type": "text", "text": "The first heading is Agent CLI."}],
    }
    assert response.stop_reason == "end_turn"
    assert response.usage.input_tokens > 0 and response.usage.output_tokens > 0
    sent = server.accepted[-1]
    assert sent["stream"] is True and sent["model"] == "claude-test"
    assert sent["system"][-1]["cache_control"] == {"type": "ephemeral"}


def test_a_tool_call_arrives_with_its_input_assembled_from_json_deltas(server):
    tool_input = {"path": "docs/architecture.md", "lines": [1, 40], "note": "naïve ✓"}
    server.enqueue(
        Reply(
            [text_block("Let me look."), tool_use_block("toolu_01", "read_file", tool_input)],
            stop_reason="tool_use",
            chunk_size=3,
        )
    )
    provider, _ = make_provider(server)
    response = final(run(provider, ask()))
    assert response.stop_reason == "tool_use"
    assert response.message["content"] == [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "toolu_01", "name": "read_file", "input": tool_input},
    ]


def test_parallel_tool_calls_keep_their_order_and_answering_them_is_accepted(server):
    server.enqueue(
        Reply(
            [
                tool_use_block("toolu_a", "read_file", {"path": "a.txt"}),
                tool_use_block("toolu_b", "read_file", {"path": "b.txt"}),
            ],
            stop_reason="tool_use",
        )
    )
    provider, _ = make_provider(server)
    rules = "You are terse. " * 400  # a system prompt long enough to be cached (1,024+ tokens)
    first = final(run(provider, dataclasses.replace(ask(), system=rules)))
    assert [block["id"] for block in first.message["content"]] == ["toolu_a", "toolu_b"]
    results = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_a", "content": "A"},
            {"type": "tool_result", "tool_use_id": "toolu_b", "content": "B"},
        ],
    }
    request = ModelRequest(
        system=rules,
        durable_context="",
        messages=(ask().messages[0], first.message, results),
        tools=(READ_TOOL,),
    )
    second = final(run(provider, request))
    assert second.message["content"] == [{"type": "text", "text": "received 2 tool results"}]
    assert [request.rejection for request in server.requests] == [None, None]
    assert second.usage.cache_read_input_tokens >= first.usage.cache_creation_input_tokens > 1_024


@pytest.mark.parametrize("stop_reason", ["pause_turn", "refusal", "stop_sequence", "max_tokens"])
def test_every_stop_reason_is_handed_to_the_session_with_the_text_that_arrived(server, stop_reason):
    server.enqueue(Reply([text_block("Partial answer")], stop_reason=stop_reason))
    provider, sleeps = make_provider(server)
    response = final(run(provider, ask()))
    assert response.stop_reason == stop_reason
    assert response.message["content"] == [{"type": "text", "text": "Partial answer"}]
    assert sleeps == []


def test_a_429_is_retried_after_the_delay_the_server_asked_for(server):
    server.enqueue(HttpError(429, retry_after="3"), Reply([text_block("ok")]))
    provider, sleeps = make_provider(server)
    events = run(provider, ask())
    assert sleeps == [3.0]
    assert [e for e in events if isinstance(e, RetryNotice)] == [
        RetryNotice(attempt=1, delay_seconds=3.0, kind="rate_limited")
    ]
    assert final(events).message["content"] == [{"type": "text", "text": "ok"}]
    assert len(server.requests) == 2


def test_retry_after_ms_wins_and_an_absurd_retry_after_is_capped(server):
    server.enqueue(
        HttpError(529, retry_after_ms="1500", retry_after="9"),
        HttpError(529, retry_after="86400"),
        Reply([text_block("ok")]),
    )
    provider, sleeps = make_provider(server)
    final(run(provider, ask()))
    assert sleeps == [1.5, 60.0]


def test_overloaded_529_backs_off_exponentially_without_a_header(server):
    server.enqueue(HttpError(529), HttpError(529), HttpError(503), Reply([text_block("ok")]))
    provider, sleeps = make_provider(server)
    events = run(provider, ask())
    assert sleeps == [0.5, 1.0, 2.0]
    assert [e.kind for e in events if isinstance(e, RetryNotice)] == [
        "overloaded",
        "overloaded",
        "unavailable",
    ]


def test_a_mid_stream_overloaded_error_voids_the_partial_text_and_retries(server):
    server.enqueue(StreamError(after_events=5), Reply([text_block("complete answer")]))
    provider, sleeps = make_provider(server)
    events = run(provider, ask())
    notice_at = next(i for i, e in enumerate(events) if isinstance(e, RetryNotice))
    assert streamed_text(events[:notice_at])
    assert events[notice_at] == RetryNotice(attempt=1, delay_seconds=0.5, kind="overloaded")
    assert streamed_text(events[notice_at:]) == "complete answer"
    assert final(events).message["content"] == [{"type": "text", "text": "complete answer"}]
    assert sleeps == [0.5]


def test_a_mid_stream_api_error_is_retried_too(server):
    server.enqueue(StreamError(after_events=2, error_type="api_error"), Reply([text_block("ok")]))
    provider, _ = make_provider(server)
    events = run(provider, ask())
    assert [e.kind for e in events if isinstance(e, RetryNotice)] == ["api_error"]


def test_a_connection_dropped_mid_stream_is_retried(server):
    server.enqueue(DropConnection(after_events=4), Reply([text_block("second try")]))
    provider, _ = make_provider(server)
    events = run(provider, ask())
    assert [e.kind for e in events if isinstance(e, RetryNotice)] == ["connection"]
    assert final(events).message["content"] == [{"type": "text", "text": "second try"}]


def test_a_stream_that_ends_without_message_stop_is_retried(server):
    server.enqueue(EndStreamEarly(after_events=4), Reply([text_block("whole")]))
    provider, _ = make_provider(server)
    events = run(provider, ask())
    assert [e.kind for e in events if isinstance(e, RetryNotice)] == ["stream_incomplete"]


def test_when_retries_run_out_the_failure_says_what_and_how_often(server):
    server.enqueue(*[HttpError(529)] * 3)
    provider, sleeps = make_provider(server, max_retries=2)
    failure, seen = fail(provider, ask())
    assert (failure.kind, failure.status, failure.attempts) == ("overloaded", 529, 3)
    assert sleeps == [0.5, 1.0]
    assert not any(isinstance(event, ModelResponse) for event in seen)


@pytest.mark.parametrize(
    "status, kind",
    [
        (400, "bad_request"),
        (401, "auth"),
        (403, "permission"),
        (404, "wrong_endpoint"),
        (405, "wrong_endpoint"),
        (413, "request_too_large"),
    ],
)
def test_errors_that_would_only_repeat_fail_at_once(server, status, kind):
    server.enqueue(HttpError(status, message="prompt is too long: 250000 tokens"))
    provider, sleeps = make_provider(server)
    failure, seen = fail(provider, ask())
    assert (failure.kind, failure.status, failure.attempts) == (kind, status, 1)
    assert failure.detail == "prompt is too long: 250000 tokens"
    assert sleeps == [] and seen == [] and len(server.requests) == 1


def test_a_wrong_key_is_an_auth_failure_from_the_server(server):
    provider = AnthropicProvider(
        "sk-ant-wrong", "claude-test", base_url=server.base_url, sleep=Sleeps()
    )
    failure, _ = fail(provider, ask())
    assert (failure.kind, failure.status) == ("auth", 401)


def test_max_tokens_inside_a_tool_call_keeps_the_text_and_drops_the_half_call(server):
    server.enqueue(
        Reply(
            [
                text_block("Reading both."),
                tool_use_block("toolu_ok", "read_file", {"path": "a"}),
                tool_use_block("toolu_cut", "read_file", {}, raw_json='{"path": "docs/arch'),
            ],
            stop_reason="max_tokens",
        )
    )
    provider, sleeps = make_provider(server)
    response = final(run(provider, ask()))
    assert response.stop_reason == "max_tokens"
    assert response.message["content"] == [
        {"type": "text", "text": "Reading both."},
        {"type": "tool_use", "id": "toolu_ok", "name": "read_file", "input": {"path": "a"}},
    ]
    assert sleeps == []


def test_a_broken_call_under_a_tool_use_stop_is_treated_as_a_malformed_stream(server):
    broken = Reply(
        [tool_use_block("toolu_x", "read_file", {}, raw_json='{"path": ')], stop_reason="tool_use"
    )
    server.enqueue(broken, broken)
    provider, _ = make_provider(server)
    failure, _ = fail(provider, ask())
    assert (failure.kind, failure.attempts) == ("stream_malformed", 2)


def test_a_stalled_stream_times_out_and_is_retried(server):
    server.enqueue(Stall(seconds=5, after_events=2), Reply([text_block("awake")]))
    provider, _ = make_provider(server, attempt_timeout=server.short_timeout_for_stalls(0.3))
    events = run(provider, ask())
    assert [e.kind for e in events if isinstance(e, RetryNotice)] == ["timeout"]
    assert final(events).message["content"] == [{"type": "text", "text": "awake"}]


def test_a_stream_that_sends_only_pings_after_its_start_times_out_and_is_retried(server):
    """Pings reset each read's timeout; the same bound holds on time without an event
    (fifth outside attack: `-p` waited for ever on such a stream)."""
    stuck = Stall(seconds=30, after_events=1, ping_every=0.05)  # message_start, then pings
    server.enqueue(stuck, Reply([text_block("awake")]))
    provider, _ = make_provider(server, attempt_timeout=server.short_timeout_for_stalls(0.5))
    started = time.monotonic()
    events = run(provider, ask())
    assert time.monotonic() - started < 15
    assert [e.kind for e in events if isinstance(e, RetryNotice)] == ["timeout"]
    assert final(events).message["content"] == [{"type": "text", "text": "awake"}]


def test_a_stall_timeout_applies_to_the_stalled_attempt_only(server):
    asked: list[float] = []
    timeouts = server.short_timeout_for_stalls(0.3, normal=30.0)

    def recording_timeouts() -> float:
        asked.append(timeouts())
        return asked[-1]

    server.enqueue(Stall(seconds=5), Reply([text_block("awake")]))
    provider, _ = make_provider(server, attempt_timeout=recording_timeouts)
    run(provider, ask())
    run(provider, ask())
    assert asked == [0.3, 30.0, 30.0]


def test_a_server_that_never_answers_fails_with_timeout(server):
    server.enqueue(Stall(seconds=5), Stall(seconds=5))
    timeouts = server.short_timeout_for_stalls(0.3)
    provider, _ = make_provider(server, attempt_timeout=timeouts, max_retries=1)
    failure, _ = fail(provider, ask())
    assert (failure.kind, failure.attempts) == ("timeout", 2)


def test_malformed_sse_is_retried_once_then_fails(server):
    server.enqueue(MalformedEvent(), MalformedEvent(), Reply([text_block("never reached")]))
    provider, sleeps = make_provider(server)
    failure, _ = fail(provider, ask())
    assert (failure.kind, failure.attempts) == ("stream_malformed", 2)
    assert len(sleeps) == 1


def test_an_invalid_view_raises_before_anything_is_sent(server):
    provider, _ = make_provider(server)
    orphan = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}]}
    request = ModelRequest(system="s", durable_context="", messages=(orphan,), tools=())
    with pytest.raises(WireFormatError):
        run(provider, request)
    assert server.requests == []


def test_a_keyboard_interrupt_during_backoff_propagates_unchanged(server):
    def interrupted_sleep(seconds: float) -> None:
        raise KeyboardInterrupt

    server.enqueue(HttpError(529))
    provider, _ = make_provider(server, sleep=interrupted_sleep)
    with pytest.raises(KeyboardInterrupt):
        run(provider, ask())


def test_a_missing_key_is_refused_before_any_request():
    for key in ("", "   "):
        with pytest.raises(MissingApiKey, match="ANTHROPIC_API_KEY"):
            AnthropicProvider(key, "claude-test", base_url="http://127.0.0.1:9")


def test_the_api_key_never_appears_in_any_failure_text(server):
    echoing = f"invalid request from key {API_KEY}"
    server.enqueue(
        HttpError(400, message=echoing),
        *[HttpError(529, message=echoing)] * 2,
        StreamError(after_events=2, error_type="invalid_request_error", message=echoing),
    )
    provider, _ = make_provider(server, max_retries=1)
    failures = [fail(provider, ask())[0] for _ in range(3)]
    assert [failure.kind for failure in failures] == ["bad_request", "overloaded", "bad_request"]
    for failure in failures:
        rendered = "".join(traceback.format_exception(failure))
        for text in (str(failure), repr(failure), failure.detail, rendered):
            assert API_KEY not in text
        assert "[redacted]" in failure.detail
    assert API_KEY not in repr(provider)


def test_a_400_about_one_tool_names_that_tool_by_its_place_in_the_request(server):
    """The API says `tools.1.custom.input_schema: ...`; which tool is the request's
    second is known only here, where the request was built."""
    other = {**READ_TOOL, "name": "mcp__crm__lookup"}
    request = dataclasses.replace(ask(), tools=(READ_TOOL, other))
    refusal = "input_schema does not support oneOf, allOf, or anyOf at the top level"
    server.enqueue(
        HttpError(400, message=f"tools.1.custom.input_schema: {refusal}"),
        HttpError(400, message=f"tools.7.custom.input_schema: {refusal}"),
        HttpError(400, message="messages.0: something else"),
    )
    provider, _ = make_provider(server)
    named = [fail(provider, request)[0] for _ in range(3)]
    assert [failure.tool for failure in named] == ["mcp__crm__lookup", None, None]
    assert named[0].detail == f"tools.1.custom.input_schema: {refusal}"


def test_the_summarizer_asks_this_provider_for_the_summary(server):
    server.enqueue(Reply([text_block("Goal: ship the provider. Done: wire builder.")]))
    provider, _ = make_provider(server)
    summarize = provider.build_summarizer(focus="the provider work")
    summary = summarize(
        [
            {"role": "user", "content": "build the provider"},
            {"role": "assistant", "content": "on it"},
        ]
    )
    assert "ship the provider" in summary
    assert server.accepted[-1]["model"] == "claude-test"


def test_importing_the_provider_modules_does_not_import_the_sdk():
    code = (
        "import sys, agent_cli.provider.factory, agent_cli.provider.anthropic_provider;"
        "print('anthropic' in sys.modules, 'httpx2' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_the_key_travels_as_x_api_key_as_well_as_a_bearer_token() -> None:
    from fake_anthropic import Reply, start_fake_server, text_block

    from agent_cli.events import ModelRequest
    from agent_cli.provider.anthropic_provider import AnthropicProvider

    with start_fake_server(api_key="sk-ant-header-test") as server:
        server.enqueue(Reply([text_block("hi")]))
        provider = AnthropicProvider(
            "sk-ant-header-test", "claude-test", base_url=server.base_url, sleep=lambda _: None
        )
        list(provider.stream(ModelRequest("system", "", ({"role": "user", "content": "hi"},), ())))
        headers = server.requests[-1].headers
    assert headers["x-api-key"] == "sk-ant-header-test"
    assert headers["authorization"] == "Bearer sk-ant-header-test"


def test_prepare_builds_one_client_from_any_number_of_threads_and_requests_use_it():
    """Issue 12.7: the REPL builds the client on a worker thread while the user types."""
    import threading

    from fake_anthropic import start_fake_server as start

    with start(api_key="sk-ant-prepare") as fake:
        provider = AnthropicProvider("sk-ant-prepare", "claude-test", base_url=fake.base_url)
        threads = [threading.Thread(target=provider.prepare) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        client = provider._client
        assert client is not None
        events = list(provider.stream(ask("hello")))
        assert events[-1].message["content"][0]["text"] == "echo: hello"
        assert provider._client is client


def test_the_warm_up_stream_still_parses_with_this_sdk():
    """The warm-up swallows errors (it is only a warm-up): prove it really runs. (It now
    builds the SDK's raw event models, which the provider reads since fix22f, not the
    SDK's accumulator; events it could not build would assemble into no answer.)"""
    from agent_cli.provider.anthropic_stream import assemble_warm_up_stream

    answer = assemble_warm_up_stream()
    assert answer.stop_reason == "tool_use"
    assert [block["type"] for block in answer.message["content"]] == ["text", "tool_use"]
