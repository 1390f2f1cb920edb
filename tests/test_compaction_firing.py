"""Cost-aware firing: a run compacts down to the low-water mark, and stops earlier only
where the layers so far rewrote little of the prompt cache (`compaction.firing`)."""

from __future__ import annotations

import dataclasses

from compaction_support import SMALL_POLICY, assistant, call_pair, make_counter, read_use, user

from agent_cli.compaction import ViewIndex, compact_context
from agent_cli.compaction.firing import CachedPrefix, find_first_change, is_run_finished

POLICY = SMALL_POLICY
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
    prefix = CachedPrefix(history, list(map(counter.count_message, history)))
    assert find_first_change(history, changed) == 1
    assert prefix.count_invalidated(changed) == counter.count_messages(history[1:-1])
    assert prefix.count_invalidated(list(history)) == 0
    assert find_first_change(history, history[:3]) == 3  # a shorter view changed at its end


def test_the_rule_compares_the_rewrite_per_token_of_headroom_with_a_deep_step():
    counter, _ = make_counter()
    history = _early_reread_history()
    changed = [*history[:-6], user("changed"), *history[-5:]]
    prefix = CachedPrefix(history, list(map(counter.count_message, history)))
    invalidated = prefix.count_invalidated(changed)
    assert 0 < invalidated < POLICY.soft_threshold - POLICY.low_water_mark
    # deep step: low / (soft - low) = 1 per token of headroom; shallow: invalidated / headroom
    assert is_run_finished(POLICY, 1_000 - invalidated, prefix, lambda: changed)
    assert not is_run_finished(POLICY, 1_000 - invalidated + 1, prefix, lambda: changed)
    assert is_run_finished(POLICY, 499, prefix, lambda: changed)  # under the mark
    assert not is_run_finished(POLICY, 1_000, prefix, lambda: history)  # still over soft


def test_the_invalidated_prefix_is_weighed_by_the_counts_it_was_given():
    """A run weighs the prefix it would rewrite by its index's counts of the view
    (`ViewIndex.message_counts`), never by counting the messages again."""
    counter, _ = make_counter()
    history = _early_reread_history()
    index = ViewIndex(counter)
    index.measure(history)
    assert index.message_counts() == [counter.count_message(m) for m in history]
    prefix = CachedPrefix(history, [10**6 + n for n in range(len(history))])
    views = [
        [history[0], user("changed"), *history[2:]],
        [*history[:-6], user("changed"), *history[-5:]],
        [*history[:3], *history[5:]],
        list(history),
    ]
    for view in views:
        start = find_first_change(history, view)
        given = sum(10**6 + n for n in range(start, len(history) - 1))
        assert prefix.count_invalidated(view) == given
    assert is_run_finished(POLICY, 499, prefix, lambda: views[0])
