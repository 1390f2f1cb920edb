"""A summary request that fails, through the real SDK against the strict fake API.

The fake answers every summary request with a mid-stream `overloaded_error` (as an
outside tester's script did); the model reads three files in one turn, each read taking
the view over the soft threshold. What is checked is what a user meets: the warning says
why the summary failed (the API was overloaded, after how many attempts), each retry of
the summary request is announced as an ordinary request's is, and the summary is asked
for in one series of attempts per turn, not once per compaction (later compactions of
the same turn prune instead). The next turn may ask again; `/compact` always does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import (
    HttpError,
    Reply,
    StreamError,
    start_fake_server,
    text_block,
    tool_use_block,
)
from faults_support import notices, turn_end
from session_support import drain, make_session, workspace_with

from agent_cli.compaction.results import SKIPPED_NO_SUMMARIZER
from agent_cli.events import CompactionFired, StreamRestarted
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.provider.summary_reuse import INSTRUCTIONS_HEADER
from agent_cli.repl.error_text import notice_text

API_KEY = "sk-ant-summary-failure-FAKE-0123"
MAX_RETRIES = 2  # a series: the first try and two retries
SERIES = MAX_RETRIES + 1
FILES = ("a.txt", "b.txt", "c.txt")


def is_summary_request(body: dict[str, Any]) -> bool:
    """Either shape the summarizer sends: the bounded one (its own system prompt) or the
    one reusing the cached prefix (the instructions as the last user message)."""
    if "handoff summar" in json.dumps(body.get("system", "")).lower():
        return True
    return INSTRUCTIONS_HEADER in json.dumps(body["messages"][-1]["content"])


class ThreeReads:
    """A model that reads a.txt, b.txt and c.txt one by one, then answers; a summary
    request gets `summary_fault` (a mid-stream overloaded_error unless told otherwise)."""

    def __init__(self) -> None:
        self.turn = 0
        self.summary_fault: Any = lambda: StreamError(
            after_events=4, error_type="overloaded_error", message="Overloaded"
        )

    def __call__(self, body: dict[str, Any]) -> Any:
        if is_summary_request(body):
            return self.summary_fault()
        last = body["messages"][-1]["content"]
        done = [
            block["tool_use_id"]
            for block in (last if isinstance(last, list) else [])
            if block.get("type") == "tool_result"
        ]
        read = int(done[-1].rsplit("_", 1)[1]) + 1 if done else 0
        if read == len(FILES):
            return Reply([text_block("All three files are read.")])
        if read == 0:
            self.turn += 1
        call = tool_use_block(f"toolu_t{self.turn}_{read}", "read_file", {"path": FILES[read]})
        return Reply([call], "tool_use")


def summary_requests(server: Any) -> int:
    return sum(1 for r in server.requests if r.body is not None and is_summary_request(r.body))


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    text = "".join(f"line {n} of a file that takes room in the view\n" for n in range(180))
    return workspace_with(tmp_path, {name: text for name in FILES})


@pytest.fixture()
def server():
    with start_fake_server(api_key=API_KEY) as fake:
        fake.responder = ThreeReads()
        yield fake


def open_on(server: Any, workspace: Path, sleeps: list[float]) -> Any:
    provider = AnthropicProvider(
        API_KEY,
        "claude-test",
        base_url=server.base_url,
        sleep=sleeps.append,
        max_retries=MAX_RETRIES,
        jitter=lambda: 0.0,
        timeout_seconds=10,
    )
    return make_session(workspace, provider, soft=4_000, hard=60_000, keep_recent=4)


def test_a_summary_that_failed_is_asked_for_once_in_a_turn_and_says_the_api_was_overloaded(
    server: Any, workspace: Path
) -> None:
    session = open_on(server, workspace, [])
    drain(session.run_turn("Read the three files."))  # over the soft threshold from here
    before = summary_requests(server)

    events = drain(session.run_turn("Read the three files again."))

    assert turn_end(events).outcome == "ok"
    fired = [e for e in events if isinstance(e, CompactionFired)]
    assert len(fired) >= 2  # compaction ran more than once in the turn ...
    assert summary_requests(server) - before == SERIES  # ... the summary, one series
    [failed] = notices(events, "summary_failed")
    words = notice_text(failed)
    assert "overloaded" in words and f"{SERIES} attempts" in words, words
    assert not notices(events, SKIPPED_NO_SUMMARIZER)  # held back, not "unavailable"
    assert all(r.rejection is None for r in server.requests)


def test_the_next_turn_asks_for_a_summary_again(server: Any, workspace: Path) -> None:
    session = open_on(server, workspace, [])
    drain(session.run_turn("Read the three files."))
    drain(session.run_turn("Read the three files again."))
    before = summary_requests(server)

    events = drain(session.run_turn("And once more."))

    assert turn_end(events).outcome == "ok"
    assert summary_requests(server) - before == SERIES
    assert len(notices(events, "summary_failed")) == 1


def test_compact_typed_after_a_failed_summary_asks_again(server: Any, workspace: Path) -> None:
    session = open_on(server, workspace, [])
    drain(session.run_turn("Read the three files."))
    drain(session.run_turn("Read the three files again."))
    before = summary_requests(server)

    events = drain(session.compact_now(None))

    assert summary_requests(server) - before == SERIES
    [failed] = notices(events, "summary_failed")
    assert "overloaded" in notice_text(failed)


def test_each_retry_of_a_summary_request_is_announced_as_it_comes(
    server: Any, workspace: Path
) -> None:
    sleeps: list[float] = []
    session = open_on(server, workspace, sleeps)
    drain(session.run_turn("Read the three files."))
    told: list[tuple[StreamRestarted, int]] = []
    session.watch_summary_retries(lambda event: told.append((event, summary_requests(server))))

    drain(session.run_turn("Read the three files again."))

    assert [(e.attempt, e.kind) for e, _ in told] == [(1, "overloaded"), (2, "overloaded")]
    # told as each retry comes, not all after the series: more requests had reached the
    # server by the second word than by the first (how many exactly races the server's
    # own record of a request whose stream broke, so the count is not pinned)
    assert told[1][1] > told[0][1]
    assert [e.delay_seconds for e, _ in told] == sleeps[-MAX_RETRIES:]


@pytest.mark.parametrize(
    ("fault", "cause"),
    [
        (lambda: HttpError(429), "rate limit"),
        (lambda: HttpError(400, message="prompt is too long: the fake says no"), "fake says no"),
    ],
    ids=["rate limited", "refused with the API's message"],
)
def test_the_warning_names_other_causes_in_words(
    server: Any, workspace: Path, fault: Any, cause: str
) -> None:
    server.responder.summary_fault = fault
    session = open_on(server, workspace, [])
    drain(session.run_turn("Read the three files."))

    events = drain(session.run_turn("Read the three files again."))

    [failed] = notices(events, "summary_failed")
    assert cause in notice_text(failed), notice_text(failed)


def test_an_api_refusal_quoting_a_secret_of_the_session_is_said_without_it(
    server: Any, workspace: Path
) -> None:
    """A gateway may quote the request it refuses; the warning shows the API's message,
    so it is redacted of the session's secrets, as a failed request's is."""
    secret = "sk_live_51SummaryEchoQ8Zr2mXv9LpW4tYc8NbH3"
    (workspace / ".env").write_text(f"STRIPE_SECRET_KEY={secret}\n")
    server.responder.summary_fault = lambda: HttpError(
        400, message=f"invalid text near 'STRIPE_SECRET_KEY={secret}'"
    )
    session = open_on(server, workspace, [])
    drain(session.run_turn("Read the three files."))

    [failed] = notices(drain(session.run_turn("Read the three files again.")), "summary_failed")

    words = notice_text(failed)
    assert "invalid text near 'STRIPE_SECRET_KEY=[REDACTED]'" in words, words
    assert secret not in words and secret not in repr(failed.error)
