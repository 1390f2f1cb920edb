"""L4's summarizer failing inside a running session: it raises, hangs past its time limit,
returns nothing, or returns a text longer than what it should replace.

In every case L4 leaves the view as it was (and says why), no compaction is recorded for
it, and what comes next is decided by the budget: under the hard limit the request is
sent with the unsummarized view; at or over it `RequestBlocked` and nothing is sent. A
working summarizer on the same history is the control: it is what makes the difference.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from faults_support import (
    HangingProvider,
    assert_history_is_valid,
    notices,
    take_snapshot,
    turn_end,
)
from session_support import ScriptedProvider, drain, make_session, plain, workspace_with

from agent_cli.compaction.markers import SUMMARY_HEADER
from agent_cli.events import CompactionFired, RequestBlocked
from agent_cli.provider.summarizers import build_model_summarizer

FIRST = "alpha " * 1_000  # about 1,000 tokens: the only message L4 may summarize
SMALL_NEXT = "beta " * 1_000  # over the soft threshold with it, under the hard limit
HUGE_NEXT = "beta " * 2_800  # over the hard limit unless FIRST is summarized


def raising(messages: list[dict[str, Any]]) -> str:
    raise RuntimeError("the summary service is down")


def hanging() -> tuple[Callable[[list[dict[str, Any]]], str], HangingProvider]:
    provider = HangingProvider()
    return build_model_summarizer(provider, timeout_seconds=0.2), provider


FAILURES = {
    "raises": ("summary_failed", lambda: (raising, None)),
    "hangs past its time limit": ("summary_failed", hanging),
    "returns an empty text": ("summary_blank", lambda: (lambda messages: "  \n ", None)),
    "returns text UTF-8 cannot carry": (
        "summary_not_unicode",
        lambda: (lambda messages: "a summary with a lone surrogate \ud800 in it", None),
    ),
    "returns a longer text": (
        "summary_not_smaller",
        lambda: (lambda messages: "much longer " * 3_000, None),
    ),
}


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    return workspace_with(tmp_path)


@pytest.fixture()
def released():
    """Hanging providers to let go at the end of the test (their daemon threads end)."""
    providers: list[HangingProvider] = []
    yield providers
    for provider in providers:
        provider.release.set()


def start_session(workspace: Path, summarizer: Any) -> tuple[Any, ScriptedProvider]:
    provider = ScriptedProvider(summarizer=summarizer)
    session = make_session(workspace, provider, soft=3_000, hard=5_000, keep_recent=2)
    assert turn_end(drain(session.run_turn(FIRST))).outcome == "ok"
    return session, provider


def build_failure(name: str, released: list[HangingProvider]) -> tuple[str, Any]:
    code, make = FAILURES[name]
    summarizer, hanging_provider = make()
    if hanging_provider is not None:
        released.append(hanging_provider)
    return code, summarizer


@pytest.mark.parametrize("name", FAILURES)
def test_a_failed_summary_under_the_hard_limit_sends_the_unsummarized_view(
    workspace: Path, released: list[HangingProvider], name: str
) -> None:
    code, summarizer = build_failure(name, released)
    session, provider = start_session(workspace, summarizer)
    before = take_snapshot(session)

    events = drain(session.run_turn(SMALL_NEXT))

    assert [n.code for n in notices(events)] == [code]
    assert not [e for e in events if isinstance(e, CompactionFired)]
    assert turn_end(events).outcome == "ok"
    sent = provider.requests[-1].messages
    assert plain([sent[0]]) == [{"role": "user", "content": FIRST}]  # nothing was summarized away
    assert plain(session.view) == plain(
        [*before.view, {"role": "user", "content": SMALL_NEXT}, session.view[-1]]
    )
    assert b'"kind":"compaction"' not in b"".join(take_snapshot(session).transcript_lines)
    assert_history_is_valid(session)


@pytest.mark.parametrize("name", FAILURES)
def test_a_failed_summary_over_the_hard_limit_blocks_the_request(
    workspace: Path, released: list[HangingProvider], name: str
) -> None:
    code, summarizer = build_failure(name, released)
    session, provider = start_session(workspace, summarizer)
    before = take_snapshot(session)
    sent_before = len(provider.requests)

    events = drain(session.run_turn(HUGE_NEXT))

    [blocked] = [e for e in events if isinstance(e, RequestBlocked)]
    assert blocked.tokens_after >= blocked.hard_limit == 5_000
    assert [n.code for n in notices(events)] == [code]  # why the summary could not help
    assert events.index(notices(events)[0]) < events.index(blocked)
    assert turn_end(events).outcome == "blocked"
    assert len(provider.requests) == sent_before  # nothing was sent
    after = take_snapshot(session)
    assert plain(after.view) == plain([*before.view, {"role": "user", "content": HUGE_NEXT}])
    assert not any(SUMMARY_HEADER in str(m["content"]) for m in after.view)
    assert len(after.transcript_lines) == len(before.transcript_lines) + 1
    assert_history_is_valid(session)


def test_a_working_summary_on_the_same_history_is_what_lets_the_request_through(
    workspace: Path,
) -> None:
    session, provider = start_session(workspace, lambda messages: "The user wrote alphas.")

    events = drain(session.run_turn(HUGE_NEXT))

    assert not [e for e in events if isinstance(e, RequestBlocked)]
    [fired] = [e for e in events if isinstance(e, CompactionFired)]
    assert [line.layer for line in fired.layers] == ["L4"]
    assert turn_end(events).outcome == "ok"
    leading = provider.requests[-1].messages[:2]  # the summary, after the digest if any
    assert any(m["content"].startswith(SUMMARY_HEADER) for m in leading)
    assert_history_is_valid(session)


def test_a_hanging_summarizer_gives_up_and_the_next_turn_still_works(
    workspace: Path, released: list[HangingProvider]
) -> None:
    _, summarizer = build_failure("hangs past its time limit", released)
    session, provider = start_session(workspace, summarizer)
    drain(session.run_turn(SMALL_NEXT))

    events = drain(session.run_turn("and one more"))

    assert turn_end(events).outcome == "ok"
    assert released[0].requests >= 1
    assert_history_is_valid(session)
