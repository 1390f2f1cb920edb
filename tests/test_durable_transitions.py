"""Pending-item status changes and the capture of retrieval evidence."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from agent_cli.durable import (
    DurableContextState,
    PendingItem,
    PendingStatus,
    capture_retrieval_evidence,
    transition_pending,
)
from agent_cli.errors import DurableStateError, PendingTransitionError

T0 = "2024-05-01T10:00:00+00:00"
T1 = "2024-05-01T11:00:00+00:00"
T2 = "2024-05-01T12:00:00+00:00"


def state_with(status: PendingStatus = PendingStatus.OPEN, reason: str | None = None):
    item = PendingItem(
        "p1", "port the tests", "transcript:s1:4", T0, status=status, blocked_reason=reason
    )
    other = PendingItem("p2", "write docs", "transcript:s1:5", T0)
    return DurableContextState(pending_items=(item, other))


@pytest.mark.parametrize(
    "start, reason, target",
    [
        (PendingStatus.OPEN, None, PendingStatus.BLOCKED),
        (PendingStatus.OPEN, None, PendingStatus.DONE),
        (PendingStatus.BLOCKED, "waiting", PendingStatus.OPEN),
        (PendingStatus.BLOCKED, "waiting", PendingStatus.DONE),
    ],
)
def test_legal_transitions_return_a_new_state_with_the_item_moved(start, reason, target):
    before = state_with(start, reason)
    after = transition_pending(
        before,
        "p1",
        target,
        T1,
        "transcript:s1:9",
        reason="needs a review" if target is PendingStatus.BLOCKED else None,
    )
    moved = after.pending_items[0]
    assert moved.status is target
    assert moved.last_confirmed_at == T1
    assert moved.source_pointer == "transcript:s1:9"
    assert moved.history[-1].from_status is start and moved.history[-1].to_status is target
    assert before.pending_items[0].status is start
    assert after.pending_items[1] == before.pending_items[1]


@pytest.mark.parametrize(
    "start, reason, target",
    [
        (PendingStatus.DONE, None, PendingStatus.OPEN),
        (PendingStatus.DONE, None, PendingStatus.BLOCKED),
        (PendingStatus.DONE, None, PendingStatus.DONE),
        (PendingStatus.OPEN, None, PendingStatus.OPEN),
        (PendingStatus.BLOCKED, "waiting", PendingStatus.BLOCKED),
    ],
)
def test_illegal_transitions_raise_and_done_is_final(start, reason, target):
    with pytest.raises(PendingTransitionError) as caught:
        transition_pending(
            state_with(start, reason), "p1", target, T1, "transcript:s1:9", reason="again"
        )
    assert caught.value.reason == "illegal_transition"


@pytest.mark.parametrize("at", [T0, "2024-05-01T09:00:00+00:00", "2024-05-01T10:30:00+01:00"])
def test_a_transition_must_be_strictly_later_than_the_last_confirmation(at):
    with pytest.raises(PendingTransitionError) as caught:
        transition_pending(state_with(), "p1", "done", at, "transcript:s1:9")
    assert (caught.value.field, caught.value.reason) == ("at", "not_later")


def test_moving_to_blocked_needs_a_reason():
    for reason, code in ((None, "required_when_blocked"), (" \n ", "empty")):
        with pytest.raises(PendingTransitionError) as caught:
            transition_pending(state_with(), "p1", "blocked", T1, "transcript:s1:9", reason=reason)
        assert (caught.value.field, caught.value.reason) == ("reason", code)


@pytest.mark.parametrize(
    "kwargs, field, code",
    [
        (dict(item_id="nope"), "item_id", "unknown_item"),
        (dict(to="finished"), "to", "unknown_status"),
        (dict(source_pointer=""), "source_pointer", "empty"),
        (dict(at="2024-05-01T11:00:00"), "at", "no_time_zone"),
    ],
)
def test_bad_transition_inputs_raise_typed_transition_errors(kwargs, field, code):
    args = dict(item_id="p1", to="done", at=T1, source_pointer="transcript:s1:9")
    args.update(kwargs)
    with pytest.raises(PendingTransitionError) as caught:
        transition_pending(state_with(), **args)
    assert (caught.value.field, caught.value.reason) == (field, code)
    assert isinstance(caught.value, DurableStateError)


def test_unblocking_clears_the_reason_and_history_keeps_the_whole_trail():
    state = transition_pending(
        state_with(), "p1", "blocked", T1, "transcript:s1:6", reason="waiting on CI"
    )
    state = transition_pending(state, "p1", PendingStatus.OPEN, T2, "transcript:s1:7")
    item = state.pending_items[0]
    assert item.blocked_reason is None
    assert [(h.from_status.value, h.to_status.value, h.reason) for h in item.history] == [
        ("open", "blocked", "waiting on CI"),
        ("blocked", "open", None),
    ]


def test_a_history_that_does_not_end_at_the_item_status_is_refused():
    moved = transition_pending(state_with(), "p1", "done", T1, "transcript:s1:9")
    history = moved.pending_items[0].history
    with pytest.raises(DurableStateError, match="status_mismatch"):
        PendingItem("p1", "x", "transcript:s1:9", T1, history=history)


@dataclass
class RecallHit:
    memory_id: str
    source_id: str
    source_type: str
    source_title: str
    captured_at: str
    score: float
    rank: int
    text: str = "recalled body text"


@dataclass
class ContextCandidate:
    memory_id: str
    source_id: str
    source_type: str
    source_title: str
    captured_at: str
    score: float
    source_rank: int
    conflict_key: str | None = None


def test_capture_copies_provenance_from_either_hit_shape_without_reordering():
    hits = [
        ContextCandidate("m9", "doc-1", "note", "B", T0, 0.2, 7, conflict_key="db-engine"),
        RecallHit("m1", "doc-2", "file", "A", T1, 0.9, 2),
        {
            "memory_id": "m5",
            "source_id": "doc-3",
            "source_type": "web",
            "source_title": "C",
            "captured_at": T2,
            "score": 0.5,
            "rank": 1,
        },
    ]
    evidence = capture_retrieval_evidence(hits)
    assert [(e.memory_id, e.score, e.source_rank, e.conflict_key) for e in evidence] == [
        ("m9", 0.2, 7, "db-engine"),
        ("m1", 0.9, 2, None),
        ("m5", 0.5, 1, None),
    ]
    assert not hasattr(evidence[1], "text")


def test_capture_refuses_hits_whose_two_ranks_disagree_or_that_have_none():
    hit = {
        "memory_id": "m",
        "source_id": "d",
        "source_type": "t",
        "source_title": "x",
        "captured_at": T0,
        "score": 0.5,
    }
    with pytest.raises(DurableStateError, match="missing"):
        capture_retrieval_evidence([hit])
    with pytest.raises(DurableStateError, match="ambiguous_rank"):
        capture_retrieval_evidence([{**hit, "rank": 1, "source_rank": 2}])


def test_capture_refuses_duplicate_memory_ids_and_bad_scores():
    hit = RecallHit("m1", "d", "t", "x", T0, 0.5, 1)
    with pytest.raises(DurableStateError, match="duplicate_id"):
        capture_retrieval_evidence([hit, hit])
    with pytest.raises(DurableStateError, match="out_of_range"):
        capture_retrieval_evidence([RecallHit("m1", "d", "t", "x", T0, 1.5, 1)])


def test_a_transition_time_may_be_an_aware_datetime_and_is_stored_as_iso_text():
    from datetime import UTC, datetime

    moved = transition_pending(
        state_with(), "p1", "done", datetime(2024, 5, 2, tzinfo=UTC), "transcript:s1:9"
    )
    item = moved.pending_items[0]
    assert item.last_confirmed_at == item.history[-1].at == "2024-05-02T00:00:00+00:00"


def test_capture_reads_type_and_title_from_hits_that_name_them_plainly():
    plain = {
        "memory_id": "m1",
        "source_id": "doc-1",
        "type": "file",
        "title": "Design notes",
        "captured_at": T0,
        "score": 0.4,
        "rank": 3,
    }
    both = {**plain, "memory_id": "m2", "source_type": "web", "source_title": "Page"}
    first, second = capture_retrieval_evidence([plain, both])
    assert (first.source_type, first.source_title, first.source_rank) == ("file", "Design notes", 3)
    assert (second.source_type, second.source_title) == ("web", "Page")


def test_forget_item_removes_a_fact_or_a_pending_item_and_refuses_an_unknown_id():
    from agent_cli.durable import DurableContextState, DurableFact, PendingItem, forget_item
    from agent_cli.errors import DurableItemNotFound

    state = DurableContextState(
        facts=(DurableFact("F1", "a", "transcript:s:1", "2026-12-02T10:00:00+00:00"),),
        pending_items=(PendingItem("T1", "b", "transcript:s:2", "2026-12-02T10:00:00+00:00"),),
    )
    assert forget_item(state, "F1").facts == () and forget_item(state, "F1").pending_items
    assert forget_item(state, "T1").pending_items == () and forget_item(state, "T1").facts
    with pytest.raises(DurableItemNotFound) as raised:
        forget_item(state, "F2")
    assert raised.value.item_id == "F2"
