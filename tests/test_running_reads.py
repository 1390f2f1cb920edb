"""L2 kept up to date by the per-turn check (`compaction.running_reads`).

A session checks its view every turn; by the time it compacts, the check has already
found which reads a later read made redundant. These tests hold that shortcut to what
L2 finds by scanning: the same view, figures and digest, also after an earlier
compaction left a digest in the view, and never taken for a view it did not follow.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

import pytest
from compaction_support import assistant, make_counter, read_use, text, tool_result, user

import agent_cli.compaction.layers.dedup as dedup
from agent_cli.compaction import CompactionPolicy, ViewIndex, compact_context
from agent_cli.compaction.digest.entries import Digest, RequestEntry, digest_from_message
from agent_cli.compaction.digest.render import build_digest_message
from agent_cli.compaction.layers.read_keys import read_rule
from agent_cli.compaction.markers import SOURCE_KEY, is_digest_message
from agent_cli.compaction.memo.facts import FactsIndex
from agent_cli.frozen import freeze

POLICY = CompactionPolicy(
    soft_threshold=1_500, hard_limit=10**6, keep_recent_messages=12, max_tool_result_tokens=200
)


def _turns(first: int, count: int, files: int = 4) -> list[dict[str, Any]]:
    """`count` turns from number `first`, each reading one of `files` files (two reads
    in one message every fifth turn, a long result L1 cuts every seventh), each message
    with its transcript pointer."""
    messages: list[dict[str, Any]] = []
    for number in range(first, first + count):
        ids = [f"t{number}"] + ([f"t{number}b"] if number % 5 == 0 else [])
        uses = [
            read_use(tool_id, f"src/{(number + n) % files}.py") for n, tool_id in enumerate(ids)
        ]
        lines = 400 if number % 7 == 3 else 30
        results = [tool_result(tool_id, f"file {number}\n" * lines) for tool_id in ids]
        messages += [assistant(uses), user(results)]
    for offset, message in enumerate(messages):
        message[SOURCE_KEY] = f"transcript:s1:{2 * first + offset + 1}"
    return messages


def _check_turn_by_turn(view: list[dict[str, Any]], index: ViewIndex) -> None:
    for end in range(1, len(view) + 1, 2):
        index.count(view[:end], POLICY)


def _outcome(view: list[dict[str, Any]], index: ViewIndex) -> tuple[Any, ...]:
    result = compact_context(view, policy=POLICY, index=index)
    return result.messages, result.tokens_before, result.tokens_after, result.reports


def _refuse_scanning(monkeypatch: pytest.MonkeyPatch) -> None:
    def scan(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("L2 scanned the view instead of taking what the checks kept")

    monkeypatch.setattr(dedup, "find_superseded_reads", scan)


def _session(frozen: bool, scan: bool, monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """Two compactions of a session checked turn by turn, the second with the first's
    digest in its view; with `scan`, L2 is made to scan (the kept outcome withheld),
    else scanning fails the test."""
    index = ViewIndex(make_counter()[0])
    view = [user("Please tidy src/."), *_turns(0, 30)]
    outcomes = []
    for more in (30, 30):
        view = [freeze(m) for m in view] if frozen else view
        _check_turn_by_turn(view, index)
        with monkeypatch.context() as patched:
            if scan:
                patched.setattr(FactsIndex, "running_reads", lambda *args: None)
            else:
                _refuse_scanning(patched)
            outcomes.append(_outcome(view, index))
        view = [*outcomes[-1][0], *_turns(100, more)]
    return outcomes


@pytest.mark.parametrize("frozen", [True, False])
def test_l2_takes_what_the_checks_kept_and_it_is_what_a_scan_finds(monkeypatch, frozen):
    """A session's view checked turn by turn compacts without L2 scanning it, to the very
    outcome L2 finds by scanning: also the second time, when the view holds the digest
    of the first compaction."""
    kept = _session(frozen, False, monkeypatch)
    assert kept == _session(frozen, True, monkeypatch)
    assert any(is_digest_message(m) for m in kept[0][0][:2])
    for _, _, _, reports in kept:
        applied = {r.name for r in reports if r.outcome == "applied"}
        assert {"truncate_tool_results", "dedup_file_reads"} <= applied


def _followed() -> tuple[list[dict[str, Any]], Any]:
    """A view with an earlier compaction's digest at 1, and the index the check built."""
    digest = build_digest_message(Digest(requests=(RequestEntry("earlier", "transcript:s1:0"),)))
    view = [freeze(m) for m in [user("go"), digest, *_turns(0, 10)]]
    index = ViewIndex(make_counter()[0])
    index.measure(view, POLICY)
    return view, index.facts()


def test_the_kept_outcome_is_not_taken_for_a_view_the_checks_did_not_follow():
    """The view followed, or it without its digest, takes the kept outcome; a view
    missing another message, one whose tool calls differ, or another read rule does not."""
    view, facts = _followed()
    rule = read_rule(POLICY)
    assert facts.running_reads(view, rule) is not None
    assert facts.running_reads([view[0], *view[2:]], rule) is not None  # without its digest
    assert facts.running_reads([*view[:3], *view[4:]], rule) is None  # a call missing
    assert facts.running_reads(view[:-1], rule) is None
    other_call = assistant([read_use("t9", "src/other.py")])
    assert facts.running_reads([*view[:-2], other_call, view[-1]], rule) is None
    assert facts.running_reads(view, read_rule(CompactionPolicy(read_tool_names={"cat"}))) is None


def test_a_message_without_calls_may_differ_where_l1_cut_a_result():
    """L1 cuts results: a result message may be another object (no tool_use in either)
    where the kept outcome leaves it alone, or drops it whole and it holds the same
    results; then the removed call names the cut result. Not where its blocks differ."""
    view, facts = _followed()
    rule = read_rule(POLICY)
    plan = facts.running_reads(view, rule)
    assert plan is not None
    untouched = next(at for at in range(3, len(view), 2) if at not in plan.changes)
    single = [at for at in plan.changes if len(view[at]["content"]) == 1 and at % 2]
    for at in (untouched, single[0]):
        tool_id = view[at]["content"][0]["tool_use_id"]
        cut = {**view[at], "content": [tool_result(tool_id, "cut")]}
        found = facts.running_reads([*view[:at], cut, *view[at + 1 :]], rule)
        assert found is not None
        named = [entry.result for entry in found.removed if entry.tool_use_id == tool_id]
        assert named in ([], [cut["content"][0]])
    two = next(at for at in plan.changes if len(view[at]["content"]) == 2)
    one_left = {**view[two], "content": view[two]["content"][:1]}
    assert facts.running_reads([*view[:two], one_left, *view[two + 1 :]], rule) is None


def test_a_view_lacking_a_message_a_read_touched_is_scanned():
    """Without the message L2 would rebuild, the kept outcome does not apply."""
    view, facts = _followed()
    plan = facts.running_reads(view, read_rule(POLICY))
    assert plan is not None and plan.changes
    touched = min(plan.changes)
    lacking = [*view[:touched], *view[touched + 1 :]]
    assert facts.running_reads(lacking, read_rule(POLICY)) is None


def _two_reads() -> list[dict[str, Any]]:
    return [
        user("start"),
        assistant([text("reading a"), read_use("r1", "a.py")]),
        user([tool_result("r1", "A" * 400)]),
        assistant([text("again"), read_use("r2", "a.py")]),
        user([tool_result("r2", "A" * 400)]),
        assistant("done"),
    ]


SMALL = CompactionPolicy(soft_threshold=200, hard_limit=10**6, keep_recent_messages=40)


def test_an_equal_copy_of_a_plain_view_is_rebuilt_from_its_own_blocks():
    """The check followed plain view V; V is then edited in place, and an equal copy
    taken before the edit is compacted: L2 rebuilds the copy's messages, never V's."""
    followed = _two_reads()
    copy = deepcopy(followed)
    index = ViewIndex(make_counter()[0])
    index.count(followed, SMALL)
    followed[1]["content"][0]["text"] = "edited in place"
    result = compact_context(copy, policy=SMALL, index=index)
    texts = [
        m["content"][0].get("text")
        for m in result.messages
        if m["role"] == "assistant" and isinstance(m["content"], list)
    ]
    assert "edited in place" not in texts and "reading a" in texts


def test_each_compaction_gives_its_own_rebuilt_messages():
    """A caller may edit the view a compaction gave it; the next compaction of the same
    followed view is not changed by that."""
    view = _two_reads()
    index = ViewIndex(make_counter()[0])
    index.count(view, SMALL)
    first = compact_context(view, policy=SMALL, index=index).messages
    rebuilt = next(m for m in first if m["role"] == "assistant" and m is not view[5])
    rebuilt["content"][0] = text("the caller's own edit")
    second = compact_context(view, policy=SMALL, index=index).messages
    assert [m for m in second if m["role"] == "assistant"][0]["content"][0]["text"] == "reading a"


def test_a_digest_from_before_the_run_is_counted_from_its_entries():
    """A digest message read back from disk whose text is not the rendering of its
    entries (written otherwise, here far over the budget) is weighed by its entries:
    what a compaction removes is added as a part beside them, not refitted."""
    digest = Digest(requests=(RequestEntry("first", "transcript:s1:1"),))
    stored = {**build_digest_message(digest), "content": "x " * 3_000}
    policy = CompactionPolicy(soft_threshold=1_000, hard_limit=10**6, keep_recent_messages=2)
    view = [user("go"), stored, *_turns(0, 3)]
    result = compact_context(view, policy=policy, counter=make_counter()[0])
    merged = digest_from_message(next(m for m in result.messages if is_digest_message(m)))
    assert merged.requests[-1] == digest.requests[0]
    assert len(merged.parts) == 2  # the stored entries, then what this run removed


def test_a_session_with_its_own_read_tools_keeps_l2_up_to_date_after_a_compaction():
    """The compaction measures its new view under its own policy, so the checks that
    extend it key reads by the same rule and L2 need not scan the next time either."""
    policy = CompactionPolicy(
        soft_threshold=1_500,
        hard_limit=10**6,
        keep_recent_messages=12,
        read_tool_names={"read_file", "cat"},
    )
    index = ViewIndex(make_counter()[0])
    view = [user("go"), *_turns(0, 30)]
    for end in range(1, len(view) + 1, 2):
        index.count(view[:end], policy)
    later = [*compact_context(view, policy=policy, index=index).messages, *_turns(100, 10)]
    for end in range(len(later) - 20, len(later) + 1, 2):
        index.count(later[:end], policy)
    index.measure(later, policy)
    assert index.facts().running_reads(later, read_rule(policy)) is not None
