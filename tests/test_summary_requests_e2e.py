"""What a summary request costs and when one is sent, end to end: the real `anthropic` SDK
against the strict fake Messages API on loopback, its usage from the fake's prompt-cache
model, one clock shared by the session and the fake's cache.

- The request that reuses the cached prefix reads it and writes nothing: what follows the
  last request's messages (its instructions, the newest turn) no later request reads.
- After a pause longer than the cache lifetime the prefix is gone: the bounded request is
  sent, not a reuse that would write the whole view again at 1.25x.
- A `/compact` with nothing new since the last summary asks for no summary at all.
- At the default thresholds, the findings the model wrote in the turns a summary replaces
  all reach the summary request (none is left out of its input without a trace).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from session_support import drain, make_session

from agent_cli.compaction.results import NOTHING_NEW_TO_SUMMARIZE
from agent_cli.events import CompactionFired, CompactionSkipped
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.provider.summary_reuse import INSTRUCTIONS_HEADER
from agent_cli.repl.compact_lines import format_skipped
from bench.prompt_cache import PromptCacheModel

API_KEY = "sk-ant-summary-requests-FAKE"
NOTES = "Design notes about queues and tenants. " * 300  # about 3,000 tokens a turn


class SharedClock:
    """Seconds for the fake's prompt cache and a datetime for the session, from one count:
    each call moves it a millisecond, `wait` moves it as a pause would."""

    def __init__(self) -> None:
        self.seconds = 1_000.0

    def wait(self, seconds: float) -> None:
        self.seconds += seconds

    def cache_clock(self) -> float:
        return self.seconds

    def __call__(self) -> datetime:
        self.seconds += 0.001
        return datetime(2026, 12, 2, tzinfo=UTC) + timedelta(seconds=self.seconds)


def is_bounded(body: dict[str, Any]) -> bool:
    return "handoff summar" in json.dumps(body.get("system", "")).lower()


def is_summary(body: dict[str, Any]) -> bool:
    return is_bounded(body) or INSTRUCTIONS_HEADER in json.dumps(body["messages"][-1])


def model(body: dict[str, Any]) -> Reply:
    if is_summary(body):
        return Reply([text_block("Goal: the user writes design notes about queues.")])
    return Reply([text_block("Noted.")])


@pytest.fixture()
def clock() -> SharedClock:
    return SharedClock()


@pytest.fixture()
def served(clock: SharedClock) -> Iterator[tuple[Any, list[tuple[dict[str, Any], dict[str, int]]]]]:
    """The fake, with every accepted request and the usage it reported."""
    cache = PromptCacheModel(clock=clock.cache_clock)
    with start_fake_server(api_key=API_KEY, responder=model, prompt_cache=cache) as server:
        reported: list[tuple[dict[str, Any], dict[str, int]]] = []
        answer = server.usage_for
        server.usage_for = lambda body: reported.append((body, answer(body))) or reported[-1][1]
        yield server, reported


def notes_session(workspace: Path, server: Any, clock: SharedClock) -> Any:
    provider = AnthropicProvider(
        API_KEY, "claude-sonnet-5-5", base_url=server.base_url, timeout_seconds=30
    )
    return make_session(workspace, provider, soft=40_000, hard=60_000, clock=clock)


def run_until_fired(session: Any, clock: SharedClock, pause: float) -> None:
    """A turn every 20 s; before the turn that will compact, a pause of `pause` seconds."""
    for turn in range(30):
        clock.wait(20)
        if session.gauge().tokens + 3_500 >= 40_000:
            clock.wait(pause)
        events = drain(session.run_turn(f"Turn {turn}: {NOTES}"))
        if any(isinstance(event, CompactionFired) for event in events):
            return
    raise AssertionError("compaction never fired")


def summary_usage(reported: list[tuple[dict[str, Any], dict[str, int]]]) -> tuple[Any, ...]:
    ((body, usage),) = [(b, u) for b, u in reported if is_summary(b)]
    later = [u for b, u in reported[[b for b, _ in reported].index(body) + 1 :]]
    return body, usage, later


def test_a_summary_reusing_the_cached_prefix_reads_it_and_writes_nothing(
    workspace: Path, served: Any, clock: SharedClock
) -> None:
    server, reported = served
    run_until_fired(notes_session(workspace, server, clock), clock, pause=0)
    body, usage, later = summary_usage(reported)
    assert not is_bounded(body)  # the warm prefix was reused ...
    assert usage["cache_read_input_tokens"] > 30_000
    assert usage["cache_creation_input_tokens"] == 0  # ... and nothing was written for nobody
    assert usage["input_tokens"] > 2_000  # the newest turn and the instructions, at 1x
    assert all(u["cache_read_input_tokens"] < 5_000 for u in later)  # none could read more


@pytest.mark.parametrize("pause", [6 * 60, 60 * 60])
def test_after_a_pause_longer_than_the_cache_lifetime_the_bounded_request_is_sent(
    workspace: Path, served: Any, clock: SharedClock, pause: float
) -> None:
    server, reported = served
    run_until_fired(notes_session(workspace, server, clock), clock, pause=pause)
    body, usage, _ = summary_usage(reported)
    assert is_bounded(body)
    assert usage["cache_creation_input_tokens"] == usage["cache_read_input_tokens"] == 0
    assert usage["input_tokens"] < 30_000  # not the whole view, written again at 1.25x


def test_a_pause_within_the_cache_lifetime_still_reuses_the_prefix(
    workspace: Path, served: Any, clock: SharedClock
) -> None:
    server, reported = served
    run_until_fired(notes_session(workspace, server, clock), clock, pause=3 * 60)
    body, usage, _ = summary_usage(reported)
    assert not is_bounded(body) and usage["cache_read_input_tokens"] > 30_000


def compact_requests(session: Any, server: Any, focus: str | None = None) -> tuple[int, list]:
    before = len(server.requests)
    events = drain(session.compact_now(focus))
    return len(server.requests) - before, events


@pytest.mark.parametrize(
    ("notes", "first"),
    [
        (NOTES, "adopted"),  # the summary replaced the older turns
        (NOTES[:2_000], "not smaller"),  # the digest lines ate what it freed: L3 pruned
    ],
)
def test_a_repeated_compact_with_nothing_new_sends_no_summary_request(
    workspace: Path, served: Any, clock: SharedClock, notes: str, first: str
) -> None:
    server, _ = served
    session = notes_session(workspace, server, clock)
    for turn in range(8):
        drain(session.run_turn(f"Turn {turn}: {notes}"))
    sent, events = compact_requests(session, server)
    assert sent == 1 and any(isinstance(e, CompactionFired) for e in events)
    fired = [line.layer for e in events if isinstance(e, CompactionFired) for line in e.layers]
    assert ("L4" in fired) == (first == "adopted")
    view = list(session.view)
    for focus in (None, None, "the tenants"):  # a new focus cannot add what is gone
        sent, events = compact_requests(session, server, focus)
        assert sent == 0, events
        (skipped,) = [e for e in events if isinstance(e, CompactionSkipped)]
        assert (skipped.reason, skipped.held) == ("nothing_to_compact", NOTHING_NEW_TO_SUMMARIZE)
        assert "nothing new to compact" in format_skipped(skipped)
        assert list(session.view) == view
    drain(session.run_turn(f"Turn 9: {notes}"))  # something new: a summary is asked for again
    sent, _ = compact_requests(session, server)
    assert sent == 1


def test_after_a_resume_a_compact_with_nothing_new_sends_no_summary_request(
    workspace: Path, served: Any, clock: SharedClock
) -> None:
    """The resumed session does not remember its last compaction: L4 sees that all it
    would summarize is the last summary."""
    server, _ = served
    session = notes_session(workspace, server, clock)
    for turn in range(8):
        drain(session.run_turn(f"Turn {turn}: {NOTES}"))
    drain(session.compact_now())
    session_id = session.session_id
    session.close()
    provider = AnthropicProvider(
        API_KEY, "claude-sonnet-5-5", base_url=server.base_url, timeout_seconds=30
    )
    resumed = make_session(
        workspace, provider, soft=40_000, hard=60_000, clock=clock, resume=session_id
    )
    sent, events = compact_requests(resumed, server, "the queues")
    (skipped,) = [e for e in events if isinstance(e, CompactionSkipped)]
    assert sent == 0 and (skipped.reason, skipped.held) == (
        "nothing_to_compact",
        NOTHING_NEW_TO_SUMMARIZE,
    )


def reading_model(body: dict[str, Any]) -> Reply:
    """Each turn reads the file the user names; the answer after it is a finding."""
    if is_summary(body):
        return Reply([text_block("Goal: find the bug in each file.")])
    last = body["messages"][-1]["content"]
    if isinstance(last, list) and last[0].get("type") == "tool_result":
        n = len(body["messages"])
        finding = f"FINDING-{n}: the bug for this file is on line {n * 7}. "
        return Reply([text_block(finding + "Each helper scales values. " * 120)])
    name = re.findall(r"read (f\d\d\.txt)", json.dumps(last))[-1]
    call = tool_use_block(f"toolu_{len(body['messages'])}", "read_file", {"path": name})
    return Reply([call], "tool_use")


def test_at_the_default_thresholds_every_finding_replaced_reaches_the_summary(
    workspace: Path, served: Any, clock: SharedClock
) -> None:
    """Each file read is over the per-result limit, so L1 cuts the newest in the run that
    summarizes and the bounded request is sent: its input held the oldest 30% and the
    newest of 48,000 characters and left the middle out, findings included, no trace."""
    server, _ = served
    server.responder = reading_model
    for number in range(40):
        lines = "".join(
            f"file {number} line {j}: alpha beta gamma delta {j * number}\n" for j in range(300)
        )
        (workspace / f"f{number:02d}.txt").write_text(lines)
    provider = AnthropicProvider(
        API_KEY, "claude-sonnet-5-5", base_url=server.base_url, timeout_seconds=30
    )
    session = make_session(workspace, provider, soft=80_000, hard=120_000, clock=clock)
    for turn in range(40):
        before = [b for b in server.accepted if not is_summary(b)][-1:]
        clock.wait(20)
        events = drain(session.run_turn(f"Turn {turn}: read f{turn:02d}.txt, find the bug"))
        if any(isinstance(event, CompactionFired) for event in events):
            break
    else:
        raise AssertionError("compaction never fired")
    (summary,) = [b for b in server.accepted if is_summary(b)]
    after = [b for b in server.accepted if not is_summary(b)][-1]

    def findings(body: dict[str, Any]) -> set[str]:
        return set(re.findall(r"FINDING-\d+", json.dumps(body)))

    assert is_bounded(summary) and len(findings(before[0])) > 10
    assert findings(before[0]) <= findings(summary) | findings(after)
