"""Durable state values: construction rules, normalisation, add helpers, JSON round trip."""

from __future__ import annotations

import dataclasses
import json
import math
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_cli.durable import (
    DurableContextState,
    DurableFact,
    PendingItem,
    PendingStatus,
    RetrievalEvidence,
    add_fact,
    add_pending,
    distinct_source_pointers,
    forget_item,
    issue_id,
    normalize_text,
    state_from_dict,
    state_to_dict,
    transition_pending,
)
from agent_cli.errors import DurableStateError

T0 = "2024-05-01T10:00:00+00:00"


def make_fact(
    fact_id: str = "f1", content: str = "the cache is SQLite WAL", pointer: str = "transcript:s1:3"
) -> DurableFact:
    return DurableFact(
        fact_id=fact_id, content=content, source_pointer=pointer, last_confirmed_at=T0
    )


def make_pending(item_id: str = "p1", pointer: str = "transcript:s1:4") -> PendingItem:
    return PendingItem(
        item_id=item_id, description="port the tests", source_pointer=pointer, last_confirmed_at=T0
    )


def make_evidence(memory_id: str = "m1", **overrides) -> RetrievalEvidence:
    values = dict(
        memory_id=memory_id,
        source_id="doc-7",
        source_type="note",
        source_title="Storage notes",
        captured_at=T0,
        score=0.75,
        source_rank=1,
    )
    values.update(overrides)
    return RetrievalEvidence(**values)


def test_values_are_frozen():
    fact = make_fact()
    with pytest.raises(dataclasses.FrozenInstanceError):
        fact.content = "changed"  # type: ignore[misc]


@pytest.mark.parametrize("field", ["fact_id", "content", "source_pointer"])
@pytest.mark.parametrize(
    "bad, reason", [("", "empty"), ("  \n\t ", "empty"), (None, "none"), (7, "not_text")]
)
def test_fact_refuses_empty_none_or_non_text(field, bad, reason):
    values = dict(fact_id="f1", content="x", source_pointer="transcript:s:1", last_confirmed_at=T0)
    values[field] = bad
    with pytest.raises(DurableStateError) as caught:
        DurableFact(**values)
    assert (caught.value.field, caught.value.reason) == (field, reason)


@pytest.mark.parametrize(
    "stamp, reason",
    [
        ("2024-05-01T10:00:00", "no_time_zone"),
        ("2024-05-01", "not_iso8601"),
        ("2024-05-01\n10:00:00+00:00", "not_iso8601"),
        ("yesterday", "not_iso8601"),
        ("2024-13-01T10:00:00Z", "not_iso8601"),
        ("２０２４-05-01T10:00:00Z", "not_iso8601"),
    ],
)
def test_timestamps_need_a_zone_and_an_iso_shape(stamp, reason):
    with pytest.raises(DurableStateError) as caught:
        DurableFact("f1", "x", "transcript:s:1", stamp)
    assert caught.value.reason == reason


def test_an_aware_datetime_is_accepted_and_stored_as_iso_text():
    fact = DurableFact("f1", "x", "transcript:s:1", datetime(2024, 5, 1, tzinfo=UTC))
    assert fact.last_confirmed_at == "2024-05-01T00:00:00+00:00"


def test_a_naive_datetime_is_refused():
    with pytest.raises(DurableStateError, match="no_time_zone"):
        DurableFact("f1", "x", "transcript:s:1", datetime(2024, 5, 1))


def test_text_whitespace_and_line_breaks_are_folded_to_single_spaces():
    fact = make_fact(content="  one\r\ntwo\u2028three\u2029four\x85five\x0bsix\x00seven\t ")
    assert fact.content == "one two three four five six seven"


@pytest.mark.parametrize("score", [-0.01, 1.01, math.nan, math.inf, True, "0.5", None])
def test_evidence_refuses_scores_outside_the_unit_interval_or_not_numbers(score):
    with pytest.raises(DurableStateError) as caught:
        make_evidence(score=score)
    assert caught.value.field == "score"


@pytest.mark.parametrize("rank", [0, -1, 1.0, True, "1", None])
def test_evidence_refuses_ranks_that_are_not_positive_integers(rank):
    with pytest.raises(DurableStateError) as caught:
        make_evidence(source_rank=rank)
    assert caught.value.field == "source_rank"


def test_evidence_keeps_integer_scores_as_floats_at_the_edges():
    assert make_evidence(score=1).score == 1.0
    assert make_evidence(score=0).score == 0.0


@pytest.mark.parametrize(
    "kind, build",
    [
        ("fact_id", lambda: DurableContextState(facts=(make_fact("a"), make_fact("a")))),
        (
            "item_id",
            lambda: DurableContextState(pending_items=(make_pending("a"), make_pending("a"))),
        ),
        (
            "memory_id",
            lambda: DurableContextState(
                retrieval_evidence=(make_evidence("m"), make_evidence("m"))
            ),
        ),
    ],
)
def test_state_refuses_duplicate_ids_within_each_kind(kind, build):
    with pytest.raises(DurableStateError) as caught:
        build()
    assert (caught.value.field, caught.value.reason) == (kind, "duplicate_id")


def test_the_same_id_may_appear_in_different_kinds():
    state = DurableContextState(facts=(make_fact("x"),), pending_items=(make_pending("x"),))
    assert len(state.facts) == len(state.pending_items) == 1


def test_state_freezes_lists_into_tuples_and_checks_element_types():
    state = DurableContextState(facts=[make_fact()])
    assert isinstance(state.facts, tuple)
    with pytest.raises(DurableStateError, match="wrong_type"):
        DurableContextState(facts=(make_pending(),))


def test_blocked_items_need_a_reason_and_others_may_not_have_one():
    with pytest.raises(DurableStateError, match="required_when_blocked"):
        PendingItem("p", "d", "transcript:s:1", T0, status=PendingStatus.BLOCKED)
    with pytest.raises(DurableStateError, match="only_when_blocked"):
        PendingItem("p", "d", "transcript:s:1", T0, blocked_reason="why")
    assert (
        PendingItem("p", "d", "transcript:s:1", T0, status="blocked", blocked_reason="why").status
        is PendingStatus.BLOCKED
    )


def test_add_fact_and_add_pending_return_new_states_and_leave_the_old_one():
    empty = DurableContextState()
    one = add_pending(add_fact(empty, make_fact()), make_pending())
    assert empty.is_empty and not one.is_empty
    assert [f.fact_id for f in one.facts] == ["f1"]
    with pytest.raises(DurableStateError, match="duplicate_id"):
        add_fact(one, make_fact())


def test_distinct_pointers_are_listed_once_facts_first():
    state = DurableContextState(
        facts=(
            make_fact("a", pointer="transcript:s:2"),
            make_fact("b", pointer="transcript:s:1"),
            make_fact("c", pointer="transcript:s:2"),
        ),
        pending_items=(
            make_pending("p", pointer="transcript:s:1"),
            make_pending("q", pointer="artifact:s:out.txt:0123456789ab"),
        ),
    )
    assert distinct_source_pointers(state) == (
        "transcript:s:2",
        "transcript:s:1",
        "artifact:s:out.txt:0123456789ab",
    )


def test_state_round_trips_through_json_exactly():
    state = DurableContextState(
        facts=(make_fact(),),
        pending_items=(make_pending("p1"), make_pending("p2")),
        retrieval_evidence=(make_evidence("m1", score=0.1 + 0.2, conflict_key="db"),),
    )
    state = transition_pending(
        state, "p2", "blocked", "2024-05-02T00:00:00Z", "transcript:s1:9", reason="needs review"
    )
    text = json.dumps(state_to_dict(state))
    assert state_from_dict(json.loads(text)) == state


@pytest.mark.parametrize(
    "mutate, reason",
    [
        (lambda d: d.update(extra=1), "unknown_key"),
        (lambda d: d["facts"][0].pop("content"), "missing_key"),
        (lambda d: d["facts"][0].update(colour="red"), "unknown_key"),
        (lambda d: d.update(facts="nope"), "not_a_list"),
        (lambda d: d["facts"].append(3), "not_an_object"),
        (lambda d: d["facts"][0].update(last_confirmed_at="2024-05-01T10:00:00"), "no_time_zone"),
    ],
)
def test_loading_a_damaged_dict_raises_instead_of_guessing(mutate, reason):
    data = state_to_dict(DurableContextState(facts=(make_fact(),)))
    mutate(data)
    with pytest.raises(DurableStateError) as caught:
        state_from_dict(data)
    assert caught.value.reason == reason


@settings(max_examples=200, deadline=None)
@given(
    texts=st.lists(
        st.text(min_size=1).filter(lambda t: normalize_text(t) != ""), min_size=1, max_size=5
    ),
    score=st.floats(min_value=0.0, max_value=1.0),
    rank=st.integers(min_value=1),
)
def test_any_valid_state_round_trips_through_json(texts, score, rank):
    state = DurableContextState(
        facts=tuple(make_fact(f"f{i}", content=text, pointer=text) for i, text in enumerate(texts)),
        pending_items=(make_pending(texts[0]),),
        retrieval_evidence=(
            make_evidence(
                texts[-1],
                score=score,
                source_rank=rank,
                source_title=texts[0],
                conflict_key=texts[-1],
            ),
        ),
    )
    assert state_from_dict(json.loads(json.dumps(state_to_dict(state)))) == state


def test_a_zone_offset_with_seconds_survives_the_json_round_trip():
    from datetime import timedelta, timezone

    odd_zone = timezone(timedelta(hours=5, minutes=30, seconds=15))
    state = DurableContextState(
        facts=(DurableFact("f", "x", "p", datetime(2024, 1, 1, tzinfo=odd_zone)),)
    )
    assert state.facts[0].last_confirmed_at.endswith("+05:30:15")
    assert state_from_dict(json.loads(json.dumps(state_to_dict(state)))) == state


def _numbered(state: DurableContextState) -> DurableContextState:
    state = add_fact(state, make_fact("F1"))
    state = add_fact(state, make_fact("F2", content="the port is 8080"))
    return add_pending(state, PendingItem("T1", "ship it", "transcript:s1:4", T0))


def test_a_forgotten_id_is_never_issued_again_whatever_was_forgotten():
    state = _numbered(DurableContextState())
    assert (issue_id(state, "F"), issue_id(state, "T")) == ("F3", "T2")
    forgot = forget_item(forget_item(state, "F2"), "T1")
    assert forgot.highest_forgotten == (("F", 2), ("T", 1))
    assert (issue_id(forgot, "F"), issue_id(forgot, "T")) == ("F3", "T2")
    lower = forget_item(forgot, "F1")
    assert lower.highest_forgotten == (("F", 2), ("T", 1))  # a lower number keeps the highest
    assert issue_id(lower, "F") == "F3" and issue_id(DurableContextState(), "F") == "F1"


def test_forgetting_an_id_without_a_number_records_nothing():
    state = add_fact(DurableContextState(), make_fact("notes"))
    assert forget_item(state, "notes").highest_forgotten == ()


def test_what_was_forgotten_round_trips_and_is_absent_until_something_is():
    state = _numbered(DurableContextState())
    assert "highest_forgotten" not in state_to_dict(state)  # files read as they always did
    forgot = forget_item(state, "F2")
    data = json.loads(json.dumps(state_to_dict(forgot)))
    assert data["highest_forgotten"] == {"F": 2}
    assert state_from_dict(data) == forgot
    assert issue_id(state_from_dict(data), "F") == "F3"


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ([], "not_an_object"),
        ({"F": 0}, "bad_number"),
        ({"F": "2"}, "bad_number"),
        ({"F": True}, "bad_number"),
        ({"": 2}, "bad_prefix"),
        ({"F1": 2}, "bad_prefix"),
    ],
)
def test_a_damaged_record_of_what_was_forgotten_is_refused(value, reason):
    data = {**state_to_dict(DurableContextState()), "highest_forgotten": value}
    with pytest.raises(DurableStateError) as caught:
        state_from_dict(data)
    assert (caught.value.field, caught.value.reason) == ("highest_forgotten", reason)
