"""compact_context: validation first, the cheap path, layer order, reports and the hard limit."""

from __future__ import annotations

import copy

import pytest
from compaction_support import (
    SMALL_POLICY,
    assistant,
    build_long_history,
    call_pair,
    make_counter,
    read_use,
    tool_result,
    tool_use,
    user,
)

from agent_cli.compaction import (
    CompactionPolicy,
    CompactionResult,
    MessageViewLimitExceeded,
    ToolProtocolError,
    compact_context,
    compact_if_needed,
    validate_tool_protocol,
)
from agent_cli.errors import PolicyError

SMALL = SMALL_POLICY


def _summarize(old_messages):
    return "Earlier: the user asked for a tidy repository and many commands ran."


def _reads_history(rounds: int, result_chars: int = 400):
    """The same file read `rounds` times: L1 cannot help, L2 can."""
    history = [user("Review src/a.py.")]
    for number in range(rounds):
        history += call_pair(f"r{number}", "a" * result_chars, read_use(f"r{number}", "src/a.py"))
    return [*history, assistant("Reviewed."), user("Next?")]


def test_a_view_below_the_soft_threshold_comes_back_at_once():
    counter, _ = make_counter()
    history = build_long_history(3)
    state = object()
    result = compact_context(history, state, policy=SMALL, counter=counter)
    assert isinstance(result, CompactionResult)
    assert result.messages == history and result.messages is not history
    assert all(new is old for new, old in zip(result.messages, history, strict=True))
    assert result.durable_state is state
    assert (result.applied_layers, result.reports, result.is_compacted) == ((), (), False)
    assert result.tokens_before == result.tokens_after == counter.count_messages(history)


def test_an_invalid_history_is_refused_even_below_the_threshold():
    with pytest.raises(ToolProtocolError):
        compact_context([user("go"), assistant([tool_use("a")]), user("nothing")])


def test_the_first_layer_that_is_enough_is_the_last_to_run():
    counter, _ = make_counter()
    history = [user("go"), *call_pair("a", "x" * 20_000), assistant("ok"), user("next")]
    result = compact_context(history, policy=SMALL, counter=counter)
    assert result.applied_layers == ("truncate_tool_results",)
    assert result.reports[0].results_truncated == 1
    assert result.tokens_after < SMALL.soft_threshold


def test_layers_run_in_order_until_the_view_fits():
    counter, _ = make_counter()
    history = _reads_history(30)  # 30 reads of ~100 tokens: L2 leaves one
    result = compact_context(history, policy=SMALL, counter=counter)
    assert result.applied_layers == ("dedup_file_reads",)  # only the layers that changed it
    assert [r.name for r in result.reports] == ["truncate_tool_results", "dedup_file_reads"]
    assert result.reports[0].outcome == "no_change"
    assert result.reports[1].interactions_removed == 29
    assert set(validate_tool_protocol(result.messages)) == {"r29"}


def test_pruning_runs_when_truncation_and_dedup_are_not_enough():
    counter, _ = make_counter()
    history = build_long_history(40)
    result = compact_context(history, policy=SMALL, counter=counter)
    assert result.applied_layers == ("prune_old_messages",)
    assert [r.outcome for r in result.reports] == ["no_change", "no_change", "applied"]
    assert result.messages[0] is history[0]
    assert result.reports[2].removed_tool_use_ids[:2] == ("toolu_0", "toolu_1")


def test_the_summary_runs_before_pruning_and_only_with_a_summarizer():
    counter, _ = make_counter()
    policy = CompactionPolicy(  # low water just under soft: the run stops after the summary
        soft_threshold=300,
        hard_limit=5_000,
        keep_recent_messages=6,
        summary_keep_recent=2,
        low_water=299,
    )
    history = [user("go " * 400), *build_long_history(6)[1:]]
    summarized = compact_context(history, policy=policy, summarizer=_summarize, counter=counter)
    assert summarized.applied_layers == ("generate_summary",)
    assert [r.layer for r in summarized.reports] == [1, 2, 4]
    assert summarized.reports[-1].outcome == "applied"
    assert summarized.tokens_after < policy.soft_threshold
    unsummarized = compact_context(history, policy=policy, counter=counter)
    assert unsummarized.reports[-1].outcome == "skipped_no_summarizer"
    assert "generate_summary" not in unsummarized.applied_layers
    assert unsummarized.tokens_after >= policy.soft_threshold


def test_reports_chain_their_token_figures():
    counter, _ = make_counter()
    result = compact_context(build_long_history(40), policy=SMALL, counter=counter)
    figures = [(report.tokens_before, report.tokens_after) for report in result.reports]
    assert figures[0][0] == result.tokens_before
    assert all(
        after == next_before
        for (_, after), (next_before, _) in zip(figures, figures[1:], strict=False)
    )
    assert figures[-1][1] == result.tokens_after == counter.count_messages(result.messages)
    assert [report.layer for report in result.reports] == [1, 2, 3]


def test_a_view_still_over_the_hard_limit_raises_without_message_text():
    counter, _ = make_counter()
    secret = "token=sk-very-secret "
    history = [user("go"), assistant("ok"), user(secret * 2_000)]
    with pytest.raises(MessageViewLimitExceeded) as caught:
        compact_context(history, policy=SMALL, summarizer=_summarize, counter=counter)
    error = caught.value
    assert error.tokens_after >= SMALL.hard_limit == error.hard_limit
    assert error.applied_layers == ()  # no layer could change this view
    assert [(report.name, report.outcome) for report in error.reports] == [
        ("truncate_tool_results", "no_change"),
        ("dedup_file_reads", "no_change"),
        ("generate_summary", "summary_not_smaller"),
        ("prune_old_messages", "no_change"),
    ]
    assert error.reports[-1].tokens_after == error.tokens_after
    assert "sk-very-secret" not in str(error)


def test_reserved_tokens_count_against_both_thresholds():
    counter, _ = make_counter()
    history = build_long_history(3)
    view_tokens = counter.count_messages(history)
    result = compact_context(
        history, policy=SMALL, counter=counter, reserved_tokens=SMALL.soft_threshold - view_tokens
    )
    assert result.tokens_before == SMALL.soft_threshold
    assert result.reserved_tokens == SMALL.soft_threshold - view_tokens
    with pytest.raises(MessageViewLimitExceeded):
        compact_context(history, policy=SMALL, counter=counter, reserved_tokens=SMALL.hard_limit)
    with pytest.raises(PolicyError):
        compact_context(history, counter=counter, reserved_tokens=-1)


def test_a_full_run_never_mutates_what_it_was_given():
    counter, _ = make_counter()
    history = [user("go " * 400), *build_long_history(30, result_chars=3_000)[1:]]
    before = copy.deepcopy(history)
    state = {"facts": ["kept"]}
    result = compact_context(history, state, policy=SMALL, summarizer=_summarize, counter=counter)
    assert history == before
    assert result.durable_state is state and state == {"facts": ["kept"]}


def test_appended_messages_are_counted_on_the_next_check():
    counter, _ = make_counter()
    history = build_long_history(3)
    first = compact_context(history, policy=SMALL, counter=counter).tokens_before
    longer = [*history, assistant("more"), user("x" * 400)]
    second = compact_context(longer, policy=SMALL, counter=counter).tokens_before
    assert second == first + counter.count_messages(longer[-2:])


def test_a_replaced_message_in_a_checked_view_is_seen():
    counter, _ = make_counter()
    history = build_long_history(3)
    compact_context(history, policy=SMALL, counter=counter)
    changed = list(history)
    changed[2] = user([tool_result("toolu_0", "y" * 40_000)])
    result = compact_context(changed, policy=SMALL, counter=counter)
    assert result.applied_layers == ("truncate_tool_results",)


def test_an_invalid_message_appended_to_a_checked_view_is_refused():
    counter, _ = make_counter()
    history = build_long_history(3)
    compact_context(history, policy=SMALL, counter=counter)
    with pytest.raises(ToolProtocolError):
        compact_context([*history, user([tool_result("toolu_0")])], policy=SMALL, counter=counter)


def test_compact_if_needed_returns_only_the_messages():
    counter, _ = make_counter()
    history = build_long_history(40)
    messages = compact_if_needed(history, policy=SMALL, counter=counter)
    assert messages == compact_context(history, policy=SMALL, counter=counter).messages


def test_a_message_edited_in_place_after_a_check_is_measured_again() -> None:
    from agent_cli.compaction import CompactionPolicy, compact_context
    from agent_cli.tokens import TokenCounter

    counter = TokenCounter()
    messages = [
        {"role": "user", "content": "short question"},
        {"role": "assistant", "content": "short answer"},
        {"role": "user", "content": "and another"},
    ]
    policy = CompactionPolicy(soft_threshold=1_000, hard_limit=100_000, keep_recent_messages=1)
    first = compact_context(messages, policy=policy, counter=counter)
    assert first.applied_layers == ()
    messages[1]["content"] = "long answer " * 2_000  # the same dict, changed in place
    second = compact_context(messages, policy=policy, counter=counter)
    assert second.tokens_before > first.tokens_before + 1_000
    assert second.applied_layers  # the change was seen, so compaction ran


def test_a_view_exactly_at_the_hard_limit_is_refused_and_one_token_under_is_sent():
    """The hard limit is the first figure that may not be sent ("at or above"), not the
    last that may: a view that no layer can shrink, measured, then held against a limit
    equal to its size and against one a token larger."""
    counter, _ = make_counter()
    history = [user("Explain the build. " * 40), assistant("It runs make. " * 40)]
    size = counter.count_messages(history)

    def policy_with_hard_limit(hard: int) -> CompactionPolicy:
        return CompactionPolicy(soft_threshold=size - 10, hard_limit=hard, keep_recent_messages=4)

    with pytest.raises(MessageViewLimitExceeded) as caught:
        compact_context(history, policy=policy_with_hard_limit(size), counter=counter)
    assert caught.value.tokens_after == size == caught.value.hard_limit
    sent = compact_context(history, policy=policy_with_hard_limit(size + 1), counter=counter)
    assert sent.tokens_after == size and sent.messages == history
    reserved = 25  # what the request carries outside the view counts toward the limit too
    with pytest.raises(MessageViewLimitExceeded):
        compact_context(
            history,
            policy=policy_with_hard_limit(size + reserved),
            counter=counter,
            reserved_tokens=reserved,
        )
