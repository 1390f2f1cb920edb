"""What the per-turn check keeps of each message, taken by the layers.

A session checks its view every turn, so by the time it compacts, its `ViewIndex`
knows each message's facts: reads keyed for L2, answered calls with their digest
entries and block counts, and L1's cut of a message whose result is over the budget.
These tests hold a run that takes them to the run a fresh index gives (the same view,
figures, reports and digest), also after an earlier compaction left a digest, and show
that what was kept is taken and never outlives a change of what it depends on.
"""

from __future__ import annotations

import dataclasses
from copy import deepcopy
from typing import Any

import pytest
from compaction_support import assistant, make_counter, read_use, text, tool_result, user

import agent_cli.compaction.digest.removed_items as removed_items
import agent_cli.compaction.layers.truncate as truncate
import agent_cli.compaction.view_index as view_index
from agent_cli.compaction import CompactionPolicy, ViewIndex, compact_context
from agent_cli.compaction.digest.entries import Digest, digest_from_message
from agent_cli.compaction.digest.removed_items import RequestEntry
from agent_cli.compaction.digest.render import build_digest_message
from agent_cli.compaction.markers import SOURCE_KEY, is_digest_message
from agent_cli.frozen import freeze, is_frozen
from agent_cli.secret_forms import SecretForms
from agent_cli.tokens import COUNT_KEY, TokenCounter

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


def _session(frozen: bool, checked: bool) -> list[tuple[Any, ...]]:
    """Two compactions of a session, the second with the first's digest in its view:
    with `checked`, the index followed the view turn by turn; else each compaction
    starts from a fresh index on a fresh counter."""
    index = ViewIndex(make_counter()[0])
    view = [user("Please tidy src/."), *_turns(0, 30)]
    outcomes = []
    for more in (30, 30):
        view = [freeze(m) for m in view] if frozen else view
        if checked:
            _check_turn_by_turn(view, index)
        else:
            index = ViewIndex(make_counter()[0])
        outcomes.append(_outcome(view, index))
        view = [*outcomes[-1][0], *_turns(100, more)]
    return outcomes


@pytest.mark.parametrize("frozen", [True, False])
def test_a_run_on_what_the_checks_kept_is_the_run_a_fresh_index_gives(frozen):
    """A session's view checked turn by turn compacts to the very outcome a fresh index
    gives: also the second time, when the view holds the digest of the first."""
    kept = _session(frozen, True)
    assert kept == _session(frozen, False)
    assert any(is_digest_message(m) for m in kept[0][0][:2])
    for _, _, _, reports in kept:
        applied = {r.name for r in reports if r.outcome == "applied"}
        assert {"truncate_tool_results", "dedup_file_reads"} <= applied


def test_l1_takes_the_cut_the_check_recorded(monkeypatch):
    """The check cuts a frozen message's long result once, as it records the message;
    the compaction takes that cut instead of cutting again, and the cut message is
    frozen, so every run may share it."""
    view = [freeze(m) for m in [user("go"), *_turns(0, 8)]]
    index = ViewIndex(make_counter()[0])
    index.measure(view, POLICY)
    calls: list[Any] = []
    real = truncate.cut_message
    monkeypatch.setattr(truncate, "cut_message", lambda *args: calls.append(args) or real(*args))
    cut = truncate.build_truncation_outcome(view, POLICY, index.counter, index.facts())
    compact_context(view, policy=POLICY, index=index)
    assert calls == []
    assert cut.results_truncated > 0
    changed = [m for m, old in zip(cut.messages, view, strict=True) if m is not old]
    assert len(changed) == cut.results_truncated and all(is_frozen(m) for m in changed)


def test_a_cut_recorded_under_another_budget_is_not_taken():
    """The cut depends on the per-result budget: L1 under another budget than the check's
    cuts to its own, as it does on a fresh index, and the whole run follows."""
    view = [freeze(m) for m in [user("go"), *_turns(0, 8)]]
    index = ViewIndex(make_counter()[0])
    index.measure(view, POLICY)
    smaller = CompactionPolicy(**{**_settings(POLICY), "max_tool_result_tokens": 120})
    fresh = ViewIndex(make_counter()[0])
    fresh.measure(view, smaller)
    cut = truncate.build_truncation_outcome(view, smaller, index.counter, index.facts())
    fresh_cut = truncate.build_truncation_outcome(view, smaller, fresh.counter, fresh.facts())
    assert cut.results_truncated > 0
    assert cut.messages == fresh_cut.messages and cut.tokens_saved == fresh_cut.tokens_saved
    kept = compact_context(view, policy=smaller, index=index)
    again = compact_context(view, policy=smaller, index=ViewIndex(make_counter()[0]))
    assert kept.messages == again.messages and kept.tokens_after == again.tokens_after


def test_a_cut_recorded_under_other_secret_forms_is_not_taken(monkeypatch):
    """A cut keeps the session's secrets whole where it ends, so it depends on the secret
    forms too: L1 with forms the check did not know cuts again, as a fresh index does
    (the index is rebuilt when a compaction's forms differ; L1 checks them itself)."""
    view = [freeze(m) for m in [user("go"), *_turns(0, 8)]]
    index = ViewIndex(make_counter()[0])
    index.measure(view, POLICY)
    forms = SecretForms.from_values(["file 3\nfile 3"])
    guarded = dataclasses.replace(POLICY, secret_forms=forms)
    calls: list[Any] = []
    real = truncate.cut_message
    monkeypatch.setattr(truncate, "cut_message", lambda *args: calls.append(args) or real(*args))
    cut = truncate.build_truncation_outcome(view, guarded, index.counter, index.facts())
    assert cut.results_truncated > 0 and len(calls) == cut.results_truncated
    assert all(args[-1] is forms for args in calls)
    fresh = ViewIndex(make_counter()[0])
    fresh.measure(view, guarded)
    again = truncate.build_truncation_outcome(view, guarded, fresh.counter, fresh.facts())
    assert cut.messages == again.messages and cut.tokens_saved == again.tokens_saved


def _settings(policy: CompactionPolicy) -> dict[str, Any]:
    return {
        "soft_threshold": policy.soft_threshold,
        "hard_limit": policy.hard_limit,
        "keep_recent_messages": policy.keep_recent_messages,
        "max_tool_result_tokens": policy.max_tool_result_tokens,
    }


def test_the_digest_carries_the_count_of_its_lines_and_counts_the_same_anywhere():
    """The digest message carries its lines' count: a fresh counter counts it the same
    as the counter that wrote it, and a digest whose text was changed is counted again."""
    view = [freeze(m) for m in [user("go"), *_turns(0, 30)]]
    counter = make_counter()[0]
    result = compact_context(view, policy=POLICY, index=ViewIndex(counter))
    digest = next(m for m in result.messages if is_digest_message(m))
    assert COUNT_KEY in digest
    fresh = make_counter()[0]
    counted: list[str] = []
    real_count_text = fresh.count_text
    fresh.count_text = lambda text: counted.append(text) or real_count_text(text)  # type: ignore[method-assign]
    assert fresh.count_message(digest) == counter.count_message(digest)
    assert digest["content"] not in counted  # taken from the count it carries
    edited = {**digest, "content": digest["content"] + " and one more line"}
    fresh = make_counter()[0]
    assert fresh.count_message(edited) == 4 + fresh.count_text(edited["content"])


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
    digest = Digest(requests=(RequestEntry("first", "transcript:s1:1", number=1),))
    stored = {**build_digest_message(digest), "content": "x " * 3_000}
    policy = CompactionPolicy(soft_threshold=1_000, hard_limit=10**6, keep_recent_messages=2)
    view = [user("go"), stored, *_turns(0, 3)]
    result = compact_context(view, policy=policy, counter=make_counter()[0])
    merged = digest_from_message(next(m for m in result.messages if is_digest_message(m)))
    assert merged.requests[-1] == digest.requests[0]
    assert len(merged.parts) == 2  # the stored entries, then what this run removed


def test_a_session_with_its_own_read_tools_keeps_its_facts_after_a_compaction():
    """The compaction measures its new view under its own policy, so the checks that
    extend it key reads by the same rule: the next compaction equals a fresh one."""
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
    kept = compact_context(later, policy=policy, index=index)
    fresh = compact_context(later, policy=policy, index=ViewIndex(make_counter()[0]))
    assert kept.messages == fresh.messages and kept.reports == fresh.reports


def test_a_call_whose_result_l1_cut_leaves_the_entry_the_check_wrote(monkeypatch):
    """The check writes, beside L1's cut, each cut call's digest entry as it reads with
    the cut result; a compaction that then removes those calls takes the entries as
    they are: no line is written during the run, and the outcome is a fresh index's."""
    view = [freeze(m) for m in [user("go"), *_turns(0, 30)]]
    index = ViewIndex(make_counter()[0])
    index.measure(view, POLICY)
    written: list[Any] = []
    real = removed_items.describe_interaction
    monkeypatch.setattr(
        removed_items, "describe_interaction", lambda *args: written.append(args) or real(*args)
    )
    result = compact_context(view, policy=POLICY, index=index)
    assert written == []
    assert any(r.results_truncated for r in result.reports)
    fresh = compact_context(view, policy=POLICY, index=ViewIndex(make_counter()[0]))
    assert fresh.messages == result.messages


def test_a_run_under_another_budget_does_not_index_the_view_again(monkeypatch):
    """The session compacts under a calibrated policy whose per-result budget may differ
    from the per-turn check's: the index is extended, not rebuilt (the recorded cuts
    are not taken, L1 cuts to the run's budget), and the outcome is a fresh index's."""
    view = [freeze(m) for m in [user("go"), *_turns(0, 30)]]
    index = ViewIndex(make_counter()[0])
    index.measure(view[:-2], POLICY)
    built: list[Any] = []
    real = view_index.build_message_facts
    monkeypatch.setattr(
        view_index, "build_message_facts", lambda *args: built.append(args) or real(*args)
    )
    calibrated = CompactionPolicy(**{**_settings(POLICY), "max_tool_result_tokens": 150})
    kept = compact_context(view, policy=calibrated, index=index)
    assert len(built) == 2  # the turn appended since the check, nothing before it
    monkeypatch.undo()
    fresh = compact_context(view, policy=calibrated, index=ViewIndex(make_counter()[0]))
    assert kept.messages == fresh.messages and kept.reports == fresh.reports


def test_l1_saves_what_the_view_loses_where_the_cut_estimate_would_be_refused():
    """Output far sparser than one token in 32 characters (a padded table): the cut's
    estimate from the result's density is one a counter refuses, so the cut is counted,
    and L1's reported saving is what the view measures."""
    padded = "".join(f"row {n}" + " " * 3_000 + "\n" for n in range(200))
    view = [
        user("go"),
        assistant([read_use("t1", "table.txt")]),
        user([tool_result("t1", padded)]),
    ]
    policy = CompactionPolicy(soft_threshold=100, hard_limit=10**6, max_tool_result_tokens=60)
    outcome = truncate.build_truncation_outcome(view, policy, TokenCounter())  # cl100k
    assert outcome.results_truncated == 1
    fresh = TokenCounter()
    measured = fresh.count_messages(view) - fresh.count_messages(outcome.messages)
    assert outcome.tokens_saved == measured
