"""The session's view: frozen messages, counted exactly and in time that follows new ones."""

from __future__ import annotations

from pathlib import Path

import pytest
from session_support import drain, make_session, plain, transcript_records

from agent_cli.errors import ReadOnlyValueError
from agent_cli.events import CompactionFired
from agent_cli.frozen import is_frozen
from agent_cli.provider.offline import OfflineProvider
from agent_cli.session.budget import to_request_tokens


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "big.txt").write_text("".join(f"line {i} of a long file\n" for i in range(400)))
    (root / "README.md").write_text("# Hello agent\n")
    return root


def _recorded_messages(session) -> list:
    return [r["payload"]["message"] for r in transcript_records(session) if r["kind"] == "message"]


def test_messages_the_session_adds_are_frozen_and_refuse_changes(workspace: Path) -> None:
    session = make_session(workspace, OfflineProvider())
    drain(session.run_turn("read README.md and tell me its first heading"))
    assert len(session.view) == 4 and all(is_frozen(m) for m in session.view)
    with pytest.raises(ReadOnlyValueError):
        session.view[2]["content"][0]["content"] = "changed behind the session's back"
    with pytest.raises(ReadOnlyValueError):
        session.view[0]["content"] = "another request"
    assert plain(session.view) == plain(_recorded_messages(session))


def test_a_compacted_view_and_a_resumed_view_are_frozen(workspace: Path) -> None:
    session = make_session(workspace, OfflineProvider(), soft=6_000, hard=40_000, keep_recent=4)
    fired = []
    for _ in range(6):
        fired += [
            e for e in drain(session.run_turn("read big.txt")) if isinstance(e, CompactionFired)
        ]
    assert fired and all(is_frozen(m) for m in session.view)
    view, session_id = list(session.view), session.session_id
    session.close()
    resumed = make_session(
        workspace, OfflineProvider(), soft=6_000, hard=40_000, keep_recent=4, resume=session_id
    )
    assert resumed.view == view and all(is_frozen(m) for m in resumed.view)


def test_a_restored_view_is_frozen_and_leaves_the_given_messages_alone(workspace: Path) -> None:
    session = make_session(workspace, OfflineProvider())
    given = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    session.conversation.restore(given)  # what a resume does with the replayed view
    assert session.view == given and is_frozen(session.view[0])
    assert not is_frozen(given[0])
    given[0]["content"].append({"type": "text", "text": "more"})  # still the caller's to change
    assert len(session.view[0]["content"]) == 1


def _gauge_by_hand(session) -> int:
    reserved = session.reserved_tokens(session.last_durable_text)
    return to_request_tokens(reserved + session.counter.count_messages(session.view), None)


def test_outside_code_cannot_change_the_view_and_the_gauge_stays_exact(workspace: Path) -> None:
    session = make_session(workspace, OfflineProvider())
    drain(session.run_turn("read README.md"))
    assert session.gauge().tokens == _gauge_by_hand(session)
    plain = {"role": "user", "content": [{"type": "text", "text": "short"}]}
    with pytest.raises(ReadOnlyValueError):
        session.view.append(plain)  # only the conversation writes the view
    before = session.gauge().tokens
    drain(session.run_turn("a much longer text than before " * 40))
    assert session.gauge().tokens == _gauge_by_hand(session) > before


def test_the_gauge_counts_a_view_whose_tool_call_is_still_running(workspace: Path) -> None:
    session = make_session(workspace, OfflineProvider())
    drain(session.run_turn("read README.md"))
    call = {"role": "assistant", "content": [dict(session.view[1]["content"][0], id="toolu_x")]}
    session.conversation.restore([*session.view, call])  # as between a call and its results
    assert session.gauge().tokens == _gauge_by_hand(session)
