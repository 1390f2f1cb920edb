"""The low-water mark and the stop rule with a reserve: the tokens every request carries
outside the view (system prompt, tool schemas, durable block; `reserved_tokens`).

Half the soft threshold can lie under the reserve (the offline demo: 1,500 against about
1,650), and no view can get under it; the mark sits between the reserve and the soft
threshold instead, and the stop rule weighs the messages alone, since no layer rewrites
the reserve (`CompactionPolicy.low_water_mark_over`, `CompactionPolicy.without_reserve`).
"""

from __future__ import annotations

import dataclasses

from compaction_support import SMALL_POLICY, assistant, call_pair, make_counter, read_use, user

from agent_cli.compaction import CompactionPolicy, compact_context
from agent_cli.compaction.results import APPLIED

POLICY = SMALL_POLICY


def _reread(first_chars: int, between_chars: int, again_chars: int):
    """An early read of src/a.py, one call in between, the same file read again."""
    first = call_pair("r0", "a" * first_chars, read_use("r0", "src/a.py"))
    history = [user("Review src/a.py."), *first, *call_pair("b0", "b" * between_chars)]
    history += call_pair("r1", "c" * again_chars, read_use("r1", "src/a.py"))
    return [*history, assistant("Reviewed."), user("Next?")]


def test_a_reserve_over_half_the_soft_threshold_still_leaves_a_mark_the_run_can_reach():
    # system prompt, tools and durable block (700) leave 300 of the soft 1,000 for messages;
    # half of soft (500) could never be reached, so every run would prune to the floor and
    # report L4 as needed. The mark sits halfway between the reserve and soft instead.
    counter, _ = make_counter()
    history = _reread(780, 40, 40)
    result = compact_context(history, policy=POLICY, counter=counter, reserved_tokens=700)
    assert result.tokens_before == POLICY.soft_threshold
    assert result.applied_layers == ("dedup_file_reads",)  # under the mark: no L3 needed
    assert 700 < result.tokens_after < 850
    assert result.reports[-1].outcome == APPLIED  # no "L4 was needed" report
    assert POLICY.low_water_mark_over(700) == 850


def test_an_explicit_low_water_at_or_under_the_reserve_is_treated_as_unset():
    counter, _ = make_counter()
    history = _reread(780, 40, 40)
    default = compact_context(history, policy=POLICY, counter=counter, reserved_tokens=700)
    for low_water in (1, 600, 700):
        policy = dataclasses.replace(POLICY, low_water=low_water)
        result = compact_context(history, policy=policy, counter=counter, reserved_tokens=700)
        assert result.reports == default.reports
        assert result.applied_layers == ("dedup_file_reads",)
        assert policy.low_water_mark_over(700) == 850
    reachable = dataclasses.replace(POLICY, low_water=701)
    assert reachable.low_water_mark_over(700) == 701
    assert reachable.low_water_mark_over(0) == reachable.low_water_mark == 701


def test_the_stop_rule_weighs_the_messages_alone_since_no_layer_rewrites_the_reserve():
    # soft 1,000 with 600 reserved: the mark is 800, and a deep step down to it rewrites
    # the 200 message tokens it keeps (system prompt and tools stay cached in front) to buy
    # 200 of headroom. An L2 that rewrites about 390 cached tokens to buy about 155 costs
    # more per token of headroom, so the run goes on to L3 (weighing the whole 800 as
    # rewritten would have stopped it after L2).
    counter, _ = make_counter()
    history = _reread(760, 300, 200)
    result = compact_context(history, policy=POLICY, counter=counter, reserved_tokens=600)
    assert result.tokens_before == POLICY.soft_threshold
    l2 = result.reports[1]
    assert l2.name == "dedup_file_reads" and 800 < l2.tokens_after < 1_000  # under soft
    assert result.applied_layers == ("dedup_file_reads", "prune_old_messages")
    assert 600 < result.tokens_after < 800
    assert result.reports[-1].outcome == APPLIED  # under the mark: no "L4 was needed"


def test_the_policy_without_its_reserve_stays_valid_when_the_reserve_fills_soft():
    tiny = CompactionPolicy(soft_threshold=1, hard_limit=2)
    assert tiny.without_reserve(50) == (tiny, 0)
    moved, shift = POLICY.without_reserve(5_000)  # the reserve alone is over soft
    assert shift == 998
    assert (moved.soft_threshold, moved.low_water, moved.hard_limit) == (2, 1, 1_002)
    moved, shift = POLICY.without_reserve(600)
    assert (moved.soft_threshold, moved.low_water, moved.hard_limit) == (400, 200, 1_400)
    assert shift == 600
    assert POLICY.without_reserve(0) == (dataclasses.replace(POLICY, low_water=500), 0)
