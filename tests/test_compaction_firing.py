"""Cost-aware firing: a run compacts down to the low-water mark, and stops earlier only
where the layers so far rewrote little of the prompt cache (`compaction.firing`)."""

from __future__ import annotations

import dataclasses

from compaction_support import assistant, call_pair, make_counter, read_use, user

from agent_cli.compaction import CompactionPolicy, compact_context
from agent_cli.compaction.firing import (
    count_invalidated,
    find_first_change,
    in_message_tokens,
    is_run_finished,
    target_tokens,
)
from agent_cli.compaction.results import APPLIED

POLICY = CompactionPolicy(
    soft_threshold=1_000,
    hard_limit=2_000,
    max_tool_result_tokens=200,
    keep_recent_messages=4,
    summary_keep_recent=2,
)
STOP_UNDER_SOFT = dataclasses.replace(POLICY, low_water=999)  # the old policy


def _early_reread_history():
    """An early read of src/a.py, work in between, then the same file read again: L2 alone
    gets the view just under the soft threshold by changing message 1."""
    history = [user("Review src/a.py."), *call_pair("r0", "a" * 800, read_use("r0", "src/a.py"))]
    for number in range(6):  # L2's saving, less its digest line, ends just under soft
        history += call_pair(f"b{number}", "b" * 400)
    history += call_pair("r1", "c" * 400, read_use("r1", "src/a.py"))
    return [*history, assistant("Reviewed."), user("Next?")]


def test_a_firing_compacts_down_to_the_low_water_mark_not_just_under_the_soft_threshold():
    counter, _ = make_counter()
    history = _early_reread_history()
    old = compact_context(history, policy=STOP_UNDER_SOFT, counter=counter)
    assert old.applied_layers[-1] == "dedup_file_reads"
    assert POLICY.low_water_mark <= old.tokens_after < POLICY.soft_threshold
    new = compact_context(history, policy=POLICY, counter=counter)
    assert new.applied_layers[-1] == "prune_old_messages"
    assert new.tokens_after < POLICY.low_water_mark == 500


def test_a_layer_that_rewrites_nothing_cached_may_stop_the_run_under_the_soft_threshold():
    counter, _ = make_counter()
    history = [user("Check the logs.")]
    for number in range(6):
        history += call_pair(f"b{number}", "b" * 400)
    history += call_pair("big", "x" * 20_000)  # just arrived, so never cached
    result = compact_context(history, policy=POLICY, counter=counter)
    assert result.applied_layers == ("truncate_tool_results",)
    assert POLICY.low_water_mark <= result.tokens_after < POLICY.soft_threshold
    assert result.messages[:-1] == history[:-1]  # the cached prefix is untouched


def test_invalidated_tokens_run_from_the_first_changed_message_and_skip_the_newest():
    counter, _ = make_counter()
    history = _early_reread_history()
    changed = [history[0], user("changed"), *history[2:]]
    assert find_first_change(history, changed) == 1
    assert count_invalidated(history, changed, counter) == counter.count_messages(history[1:-1])
    assert count_invalidated(history, list(history), counter) == 0
    assert find_first_change(history, history[:3]) == 3  # a shorter view changed at its end


def test_the_rule_compares_the_rewrite_per_token_of_headroom_with_a_deep_step():
    counter, _ = make_counter()
    history = _early_reread_history()
    changed = [*history[:-6], user("changed"), *history[-5:]]
    invalidated = count_invalidated(history, changed, counter)
    assert 0 < invalidated < POLICY.soft_threshold - POLICY.low_water_mark
    # deep step: low / (soft - low) = 1 per token of headroom; shallow: invalidated / headroom
    assert is_run_finished(POLICY, 1_000 - invalidated, history, changed, counter)
    assert not is_run_finished(POLICY, 1_000 - invalidated + 1, history, changed, counter)
    assert is_run_finished(POLICY, 499, history, changed, counter)  # under the mark
    assert not is_run_finished(POLICY, 1_000, history, history, counter)  # still over soft


def _reread_under_a_large_reserve():
    """A view of 300 tokens whose early read L2 can drop, sent with 700 reserved tokens."""
    history = [user("Review src/a.py."), *call_pair("r0", "a" * 780, read_use("r0", "src/a.py"))]
    history += call_pair("b0", "b" * 40)
    history += call_pair("r1", "c" * 40, read_use("r1", "src/a.py"))
    return [*history, assistant("Reviewed."), user("Next?")]


def test_a_reserve_over_half_the_soft_threshold_still_leaves_a_mark_the_run_can_reach():
    # system prompt, tools and durable block (700) leave 300 of the soft 1,000 for messages;
    # half of soft (500) could never be reached, so every run would prune to the floor and
    # report L4 as needed. The mark sits halfway between the reserve and soft instead.
    counter, _ = make_counter()
    history = _reread_under_a_large_reserve()
    result = compact_context(history, policy=POLICY, counter=counter, reserved_tokens=700)
    assert result.tokens_before == POLICY.soft_threshold
    assert result.applied_layers == ("dedup_file_reads",)  # under the mark: no L3 needed
    assert 700 < result.tokens_after < 850
    assert result.reports[-1].outcome == APPLIED  # no "L4 was needed" report
    assert target_tokens(POLICY, 700) == 850


def test_an_explicit_low_water_at_or_under_the_reserve_is_treated_as_unset():
    counter, _ = make_counter()
    history = _reread_under_a_large_reserve()
    default = compact_context(history, policy=POLICY, counter=counter, reserved_tokens=700)
    for low_water in (1, 600, 700):
        policy = dataclasses.replace(POLICY, low_water=low_water)
        result = compact_context(history, policy=policy, counter=counter, reserved_tokens=700)
        assert result.reports == default.reports
        assert result.applied_layers == ("dedup_file_reads",)
        assert target_tokens(policy, 700) == 850
    reachable = dataclasses.replace(POLICY, low_water=701)
    assert target_tokens(reachable, 700) == 701
    assert target_tokens(reachable) == reachable.low_water_mark == 701


def test_the_stop_rule_weighs_the_messages_alone_since_no_layer_rewrites_the_reserve():
    # soft 1,000 with 600 reserved: the mark is 800, and a deep step down to it rewrites
    # the 200 message tokens it keeps (system prompt and tools stay cached in front) to buy
    # 200 of headroom. An L2 that rewrites 386 cached tokens to buy 156 costs more per
    # token of headroom, so the run goes on to L3 (weighing the whole 800 as rewritten
    # would have stopped it after L2).
    counter, _ = make_counter()
    history = [user("Review src/a.py."), *call_pair("r0", "a" * 760, read_use("r0", "src/a.py"))]
    history += call_pair("b0", "b" * 300)
    history += call_pair("r1", "c" * 200, read_use("r1", "src/a.py"))
    history += [assistant("Reviewed."), user("Next?")]
    result = compact_context(history, policy=POLICY, counter=counter, reserved_tokens=600)
    assert result.tokens_before == POLICY.soft_threshold
    l2 = result.reports[1]
    assert (l2.name, l2.tokens_after) == ("dedup_file_reads", 844)  # under soft, over 800
    assert result.applied_layers == ("dedup_file_reads", "prune_old_messages")
    assert 600 < result.tokens_after < 800
    assert result.reports[-1].outcome == APPLIED  # under the mark: no "L4 was needed"


def test_the_stop_rule_keeps_a_valid_budget_when_the_reserve_fills_the_soft_threshold():
    tiny = CompactionPolicy(soft_threshold=1, hard_limit=2)
    assert in_message_tokens(tiny, 50) == (tiny, 0)
    moved, shift = in_message_tokens(POLICY, 5_000)  # the reserve alone is over soft
    assert shift == 998
    assert (moved.soft_threshold, moved.low_water, moved.hard_limit) == (2, 1, 1_002)
    moved, shift = in_message_tokens(POLICY, 600)
    assert (shift, moved.soft_threshold, moved.low_water, moved.hard_limit) == (
        600,
        400,
        200,
        1_400,
    )
