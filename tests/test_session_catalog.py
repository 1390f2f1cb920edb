"""Saved sessions told apart, the one --continue picks, and deleting old ones (issue 12.11).

Real transcripts on disk, written by real sessions on the real SDK against the fake API.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_anthropic import HttpError, start_fake_server
from session_support import drain, make_session

from agent_cli.errors import TranscriptLocked
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.session import latest_session_id
from agent_cli.session.catalog import (
    DELETED,
    FAILED,
    NOT_FOUND,
    SessionDeletion,
    delete_sessions,
    summarize_sessions,
)
from agent_cli.store.paths import resolve_state_paths

API_KEY = "sk-ant-catalog-FAKEKEY-0123"


@pytest.fixture()
def server():
    with start_fake_server(api_key=API_KEY) as fake:
        yield fake


def provider(server) -> AnthropicProvider:
    return AnthropicProvider(
        API_KEY, "claude-test", base_url=server.base_url, max_retries=0, sleep=lambda _: None
    )


def run_session(workspace: Path, server, *lines: str) -> str:
    session = make_session(workspace, provider(server))
    for line in lines:
        drain(session.run_turn(line))
    session.close()
    return session.session_id


def test_sessions_show_their_first_request_turns_and_tokens(server, workspace) -> None:
    answered = run_session(workspace, server, "fix the parser bug", "and add a test")
    (summary,) = summarize_sessions(resolve_state_paths(), workspace)
    assert summary.session_id == answered
    assert summary.first_request == "fix the parser bug"
    assert (summary.answered_turns, summary.turns) == (2, 2)
    assert summary.tokens > 0


def test_continue_prefers_a_session_with_an_answered_turn_over_a_newer_failed_one(
    server, workspace
) -> None:
    answered = run_session(workspace, server, "hello")
    server.enqueue(HttpError(400, "invalid_request_error"))
    failed = run_session(workspace, server, "a one-shot that failed")
    summaries = {s.session_id: s for s in summarize_sessions(resolve_state_paths(), workspace)}
    assert summaries[failed].answered_turns == 0 and summaries[failed].turns == 1
    assert latest_session_id(resolve_state_paths(), workspace) == answered


def test_deleting_a_session_removes_its_transcript_and_artifacts_but_not_an_open_one(
    server, workspace
) -> None:
    paths = resolve_state_paths()
    old = run_session(workspace, server, "old work")
    artifact = paths.artifacts_root / old / "tool-results" / "x.txt"
    artifact.parent.mkdir(parents=True)
    artifact.write_text("kept output", encoding="utf-8")
    open_one = make_session(workspace, provider(server))
    try:
        (refused,) = delete_sessions(paths, [open_one.session_id])
        assert refused.outcome == FAILED and isinstance(refused.problem, TranscriptLocked)
        assert (paths.transcripts / f"{open_one.session_id}.jsonl").exists()
        assert delete_sessions(paths, [old]) == [SessionDeletion(old, DELETED)]
    finally:
        open_one.close()
    assert not (paths.transcripts / f"{old}.jsonl").exists()
    assert not (paths.artifacts_root / old).exists()
    assert [s.session_id for s in summarize_sessions(paths)] == [open_one.session_id]


def test_a_failed_deletion_does_not_stop_the_rest_and_every_id_gets_its_outcome(
    server, workspace
) -> None:
    paths = resolve_state_paths()
    first = run_session(workspace, server, "first")
    last = run_session(workspace, server, "last")
    open_one = make_session(workspace, provider(server))
    absent = "20990101-000000-abcdef"
    try:
        outcomes = delete_sessions(paths, [first, open_one.session_id, absent, "../x", last])
    finally:
        open_one.close()
    assert [(o.session_id, o.outcome) for o in outcomes] == [
        (first, DELETED),
        (open_one.session_id, FAILED),
        (absent, NOT_FOUND),
        ("../x", NOT_FOUND),
        (last, DELETED),
    ]
    assert isinstance(outcomes[1].problem, TranscriptLocked)
    assert [s.session_id for s in summarize_sessions(paths)] == [open_one.session_id]


def test_recent_exchanges_pair_each_request_with_its_answer_and_tools():
    from agent_cli.compaction.markers import SUMMARY_HEADER
    from agent_cli.session.catalog import recent_exchanges

    view = [
        {"role": "user", "content": "[Compaction digest: ...]", "_digest": {"format": 1}},
        {"role": "user", "content": f"{SUMMARY_HEADER}\nolder work", "_summary": True},
        {"role": "assistant", "content": [{"type": "text", "text": "noted"}]},
        {"role": "user", "content": "read a.txt"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a.txt"}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "alpha"},
        ]},
        {"role": "assistant", "content": [{"type": "text", "text": "It says alpha."}]},
        {"role": "user", "content": [{"type": "text", "text": "thanks"}]},
    ]  # fmt: skip
    exchanges = recent_exchanges(view, limit=5)
    assert [(e.request, e.answer, e.tools) for e in exchanges] == [
        ("read a.txt", "Reading.\nIt says alpha.", ("read_file",)),
        ("thanks", "", ()),
    ]
    assert recent_exchanges(view, limit=1)[0].request == "thanks"
