"""Provider faults through the real SDK against the strict fake API, seen from the session.

For each fault class the retries run out (or the error is one that would only repeat):
the turn ends "failed" with a notice that says what happened, the view and the
transcript's messages are exactly what they were before the request (the turn's user
message is recorded first: that is the "before"; the usage of each attempt the API began
is recorded beside them, since it was billed), nothing of the voided partial answer is
kept, and the next turn works with every request accepted by the fake.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import (
    DropConnection,
    EndStreamEarly,
    HttpError,
    MalformedEvent,
    Reply,
    Stall,
    StreamError,
    text_block,
    tool_use_block,
)
from faults_support import assert_history_is_valid, notices, take_snapshot, turn_end
from session_support import drain, make_session, plain, workspace_with

from agent_cli.events import AssistantDone, StreamRestarted, ToolFinished
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.repl.error_text import notice_text

API_KEY = "sk-ant-test-FAULTS-0123456789"
MAX_RETRIES = 2
VOIDED_TEXT = "This answer will not survive"


@dataclass(frozen=True)
class ProviderFault:
    """One fault class: the script the fake plays on every attempt, and what to expect."""

    make: Callable[[], Any]
    attempts: int
    sleeps: list[float]
    words: str  # the notice must say this


BACKOFF = [0.5, 1.0]  # jitter 0: 0.5 s, then doubled
FAULTS = {
    "429 with retry-after": ProviderFault(
        lambda: HttpError(429, retry_after="2"), 3, [2.0, 2.0], "rate limited"
    ),
    "429 without retry-after": ProviderFault(lambda: HttpError(429), 3, BACKOFF, "rate limited"),
    "529 with retry-after": ProviderFault(
        lambda: HttpError(529, retry_after="3"), 3, [3.0, 3.0], "overloaded"
    ),
    "529 without retry-after": ProviderFault(lambda: HttpError(529), 3, BACKOFF, "overloaded"),
    "mid-stream overloaded_error": ProviderFault(
        lambda: StreamError(after_events=5), 3, BACKOFF, "overloaded"
    ),
    "connection dropped mid-stream": ProviderFault(
        lambda: DropConnection(after_events=5),
        3,
        BACKOFF,
        "failed or dropped; check ANTHROPIC_BASE",
    ),
    "read timeout": ProviderFault(
        lambda: Stall(seconds=5, after_events=4), 3, BACKOFF, "did not answer in time"
    ),
    "stream ended early": ProviderFault(
        lambda: EndStreamEarly(after_events=5), 3, BACKOFF, "request failed"
    ),
    "malformed SSE": ProviderFault(
        lambda: MalformedEvent(after_events=5), 2, [0.5], "request failed"
    ),
    "400 invalid request": ProviderFault(
        lambda: HttpError(400, message="messages.1: the fake refuses this"),
        1,
        [],
        "rejected the request: messages.1: the fake refuses this",
    ),
}


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    return workspace_with(tmp_path, {"notes.txt": "the build uses make\n"})


def build_provider(server, sleeps: list[float]) -> AnthropicProvider:
    return AnthropicProvider(
        API_KEY,
        "claude-test",
        base_url=server.base_url,
        sleep=sleeps.append,
        attempt_timeout=server.short_timeout_for_stalls(0.5),
        max_retries=MAX_RETRIES,
        jitter=lambda: 0.0,
    )


def start_with_a_tool_turn(server, workspace: Path, sleeps: list[float]) -> Any:
    """A session whose history already holds one whole tool interaction and an answer."""
    server.enqueue(
        Reply(
            [
                text_block("Looking."),
                tool_use_block("toolu_setup", "read_file", {"path": "notes.txt"}),
            ],
            "tool_use",
        ),
        Reply([text_block("It uses make.")]),
    )
    session = make_session(workspace, build_provider(server, sleeps))
    assert turn_end(drain(session.run_turn("how is it built?"))).outcome == "ok"
    return session


@pytest.mark.parametrize("fault", FAULTS.values(), ids=FAULTS.keys())
def test_a_provider_fault_leaves_view_and_transcript_as_before_and_the_next_turn_works(
    server, workspace: Path, fault: ProviderFault
) -> None:
    sleeps: list[float] = []
    session = start_with_a_tool_turn(server, workspace, sleeps)
    sleeps.clear()
    requests_before = len(server.requests)
    server.enqueue(*[fault.make() for _ in range(fault.attempts)])
    user_message = {"role": "user", "content": "and the tests?"}
    before = take_snapshot(session)

    events = drain(session.run_turn("and the tests?"))

    assert turn_end(events).outcome == "failed"
    [notice] = notices(events, "provider_failed")
    assert notice.level == "error"
    assert fault.words in notice_text(notice) and "unchanged" in notice_text(notice)
    assert len([e for e in events if isinstance(e, StreamRestarted)]) == fault.attempts - 1
    assert not [e for e in events if isinstance(e, AssistantDone)]
    assert sleeps == fault.sleeps
    assert len(server.requests) == requests_before + fault.attempts
    after = take_snapshot(session)
    assert plain(after.view) == plain([*before.view, user_message])
    assert after.transcript_lines[: len(before.transcript_lines)] == before.transcript_lines
    added = [
        json.loads(line)["kind"] for line in after.transcript_lines[len(before.transcript_lines) :]
    ]
    # the user's message, and the usage of each attempt the API began (it was billed)
    began = isinstance(
        fault.make(), StreamError | DropConnection | Stall | EndStreamEarly | MalformedEvent
    )
    assert added == ["message"] + ["usage"] * (fault.attempts if began else 0)
    assert VOIDED_TEXT.encode() not in b"".join(after.transcript_lines)
    assert_history_is_valid(session)

    events = drain(session.run_turn("please answer now"))
    assert turn_end(events).outcome == "ok"
    assert session.view[-1]["content"][0]["text"].startswith("echo: ")
    assert_history_is_valid(session)
    assert all(request.rejection is None for request in server.requests)


def test_an_answer_cut_inside_a_tool_call_keeps_the_whole_part_and_drops_the_cut_call(
    server, workspace: Path
) -> None:
    sleeps: list[float] = []
    session = start_with_a_tool_turn(server, workspace, sleeps)
    server.enqueue(
        Reply(
            [
                text_block("Writing both files."),
                tool_use_block("toolu_whole", "write_file", {"path": "one.txt", "content": "1"}),
                tool_use_block("toolu_cut", "write_file", {}, raw_json='{"path": "two.txt", "cont'),
            ],
            stop_reason="max_tokens",
        )
    )
    before = take_snapshot(session)

    events = drain(session.run_turn("write one.txt and two.txt"))

    assert turn_end(events).outcome == "ok"
    assert turn_end(events).stop_reason == "max_tokens"
    assert "output limit" in notice_text(notices(events, "max_tokens")[0])
    assert not [e for e in events if isinstance(e, ToolFinished)]  # nothing was run
    assert not (workspace / "one.txt").exists() and not (workspace / "two.txt").exists()
    answer, results = plain(session.view[-2:])
    assert answer["content"] == [
        {"type": "text", "text": "Writing both files."},
        {
            "type": "tool_use",
            "id": "toolu_whole",
            "name": "write_file",
            "input": {"path": "one.txt", "content": "1"},
        },
    ]
    assert [b["tool_use_id"] for b in results["content"]] == ["toolu_whole"]
    assert results["content"][0]["is_error"] is True
    assert "max_tokens" in results["content"][0]["content"]
    written = b"".join(take_snapshot(session).transcript_lines[len(before.transcript_lines) :])
    assert b"toolu_cut" not in written
    assert_history_is_valid(session)
    assert turn_end(drain(session.run_turn("go on"))).outcome == "ok"
    assert all(request.rejection is None for request in server.requests)


def test_an_answer_cut_at_max_tokens_is_marked_in_the_transcript(server, workspace: Path) -> None:
    sleeps: list[float] = []
    session = start_with_a_tool_turn(server, workspace, sleeps)
    server.enqueue(Reply([text_block("The first half of a long expla")], stop_reason="max_tokens"))
    before = take_snapshot(session)

    drain(session.run_turn("explain at length"))

    new = [
        json.loads(line)
        for line in take_snapshot(session).transcript_lines[len(before.transcript_lines) :]
    ]
    assert [r["kind"] for r in new if r["kind"] != "usage"] == ["message", "message", "notice"]
    assert new[-1]["payload"]["code"] == "max_tokens"
    assert_history_is_valid(session)


def test_an_answer_that_was_only_a_cut_tool_call_says_it_was_cut(server, workspace: Path) -> None:
    sleeps: list[float] = []
    session = start_with_a_tool_turn(server, workspace, sleeps)
    server.enqueue(
        Reply(
            [tool_use_block("toolu_cut", "read_file", {}, raw_json='{"pa')],
            stop_reason="max_tokens",
        )
    )
    before = take_snapshot(session)

    events = drain(session.run_turn("read it"))

    assert [n.code for n in notices(events)] == ["max_tokens"]
    assert plain(session.view) == plain([*before.view, {"role": "user", "content": "read it"}])
    assert_history_is_valid(session)
    assert turn_end(drain(session.run_turn("try again"))).outcome == "ok"
    assert all(request.rejection is None for request in server.requests)


@pytest.mark.parametrize("fault", ["529 without retry-after", "connection dropped mid-stream"])
def test_a_fault_after_a_tool_step_keeps_the_recorded_call_and_results(
    server, workspace: Path, fault: str
) -> None:
    sleeps: list[float] = []
    session = start_with_a_tool_turn(server, workspace, sleeps)
    case = FAULTS[fault]
    server.enqueue(
        Reply([tool_use_block("toolu_2", "read_file", {"path": "notes.txt"})], "tool_use"),
        *[case.make() for _ in range(case.attempts)],
    )
    before = take_snapshot(session)

    events = drain(session.run_turn("read it again"))

    assert turn_end(events).outcome == "failed" and turn_end(events).steps == 2
    assert notices(events, "provider_failed")
    call, results = session.view[-2], session.view[-1]
    assert plain(session.view[:-2]) == plain(
        [*before.view, {"role": "user", "content": "read it again"}]
    )
    assert call["content"][0]["id"] == results["content"][0]["tool_use_id"] == "toolu_2"
    assert "the build uses make" in results["content"][0]["content"]
    assert_history_is_valid(session)
    assert turn_end(drain(session.run_turn("well?"))).outcome == "ok"
    assert all(request.rejection is None for request in server.requests)


def test_a_model_summary_request_that_fails_leaves_the_view_and_the_turn_goes_on(
    server, workspace: Path
) -> None:
    sleeps: list[float] = []
    provider = build_provider(server, sleeps)
    session = make_session(workspace, provider, soft=3_000, hard=60_000, keep_recent=2)
    drain(session.run_turn("alpha " * 1_000))
    before = take_snapshot(session)
    server.enqueue(*[HttpError(529) for _ in range(MAX_RETRIES + 1)])  # the summary request

    events = drain(session.run_turn("beta " * 1_000))

    assert [n.code for n in notices(events)] == ["summary_failed"]
    assert turn_end(events).outcome == "ok"
    assert plain(session.view[:-1]) == plain(
        [*before.view, {"role": "user", "content": "beta " * 1_000}]
    )
    summary_requests = [r for r in server.accepted if not r.get("tools")]
    assert len(summary_requests) == MAX_RETRIES + 1
    assert server.accepted[-1]["messages"][0]["content"][0]["text"].startswith("alpha")
    assert_history_is_valid(session)
    assert all(request.rejection is None for request in server.requests)
