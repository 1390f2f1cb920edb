"""Properties over generated valid histories and policies, for the pipeline and each layer."""

from __future__ import annotations

import copy

from compaction_support import make_counter, policies, valid_histories
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from agent_cli.compaction import (
    CompactionPolicy,
    MessageViewLimitExceeded,
    compact_context,
    count_view,
    dedup_file_reads,
    generate_summary,
    prune_old_messages,
    truncate_tool_results,
    validate_tool_protocol,
)
from agent_cli.frozen import freeze

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _good(old_messages):
    return "Summary of the earlier conversation."


def _raising(old_messages):
    raise RuntimeError("summarizer down")


def _blank(old_messages):
    return ""


def _verbose(old_messages):
    return "very long summary " * 2_000


summarizers = st.sampled_from([None, _good, _raising, _blank, _verbose])


@SETTINGS
@given(
    history=valid_histories(),
    settings_=policies(),
    summarizer=summarizers,
    reserved=st.integers(0, 200),
)
def test_compaction_output_is_valid_and_the_input_untouched(
    history, settings_, summarizer, reserved
):
    counter, _ = make_counter()
    policy = CompactionPolicy(**settings_)
    before = copy.deepcopy(history)
    state = object()
    try:
        result = compact_context(
            history,
            state,
            policy=policy,
            summarizer=summarizer,
            counter=counter,
            reserved_tokens=reserved,
        )
    except MessageViewLimitExceeded as error:
        event("over the hard limit")
        assert history == before
        assert error.tokens_after >= policy.hard_limit
        assert len(error.reports) >= 3  # L1-L3 always run before this can happen
        assert all(r.outcome == "applied" for r in error.reports if r.name in error.applied_layers)
        assert set(error.applied_layers) == {
            r.name for r in error.reports if r.outcome == "applied"
        }
        return
    event(f"layers run: {len(result.reports)}")
    assert history == before
    assert result.durable_state is state
    validate_tool_protocol(result.messages)
    assert result.tokens_after == counter.count_messages(result.messages) + reserved
    assert result.tokens_after < policy.hard_limit
    if result.tokens_after >= policy.soft_threshold:
        # Every layer was tried; the last one says why. Where the view would otherwise be
        # blocked, L1 runs once more with the results sharing the room left (a fifth report,
        # L1's again), and when that is not enough L3 keeps only message 0 and the step,
        # then the results share the room again (`hard_limit`): each extra report applied
        # and freed something.
        layers = result.reports[:4]
        assert len(layers) == 4
        assert layers[-1].outcome != "applied" or layers[-1].tokens_saved > 0
        extra = [(r.layer, r.outcome) for r in result.reports[4:]]
        assert extra in ([], [(1, "applied")], [(3, "applied")], [(3, "applied"), (1, "applied")])
        assert all(r.tokens_saved > 0 for r in result.reports[4:])
    if result.messages:
        assert result.messages[0]["role"] == "user"


@SETTINGS
@given(history=valid_histories(), settings_=policies())
def test_every_deterministic_layer_keeps_the_protocol_and_reports_true_savings(history, settings_):
    counter, _ = make_counter()
    policy = CompactionPolicy(**settings_)
    before = copy.deepcopy(history)
    for layer in (truncate_tool_results, dedup_file_reads, prune_old_messages):
        view, saved = layer(history, policy, counter)
        assert history == before
        validate_tool_protocol(view)
        assert saved == counter.count_messages(history) - counter.count_messages(view)
        assert saved >= 0


@SETTINGS
@given(
    history=valid_histories(),
    settings_=policies(),
    summarizer=st.sampled_from([_good, _raising, _blank, _verbose]),
)
def test_the_summary_layer_keeps_the_protocol_or_changes_nothing(history, settings_, summarizer):
    counter, _ = make_counter()
    policy = CompactionPolicy(**settings_)
    before = copy.deepcopy(history)
    view, saved = generate_summary(history, summarizer, policy, counter)
    assert history == before
    validate_tool_protocol(view)
    if saved == 0:
        assert view == history
    else:
        assert saved == counter.count_messages(history) - counter.count_messages(view) > 0


@SETTINGS
@given(history=valid_histories(), settings_=policies())
def test_pruning_keeps_the_first_request_and_the_recent_tail(history, settings_):
    policy = CompactionPolicy(**settings_)
    view, _ = prune_old_messages(history, policy)
    assert view[0] is history[0]
    tail = history[max(len(history) - policy.keep_recent_messages, 1) :]
    untouched = [
        message
        for message in tail
        if not isinstance(message["content"], list)
        or all(block["type"] == "text" for block in message["content"])
    ]
    assert all(any(kept is message for kept in view) for message in untouched)


@SETTINGS
@given(
    history=valid_histories(),
    settings_=policies(),
    summarizer=st.sampled_from([None, _good, _raising, _blank]),
    split=st.floats(0, 1),
)
def test_a_frozen_history_compacts_exactly_as_the_same_plain_one(
    history, settings_, summarizer, split
):
    """The session keeps frozen messages; the core must treat them as the plain ones,
    also when a prefix of the view was measured before."""
    policy = CompactionPolicy(**settings_)
    frozen = [freeze(message) for message in history]
    plain_counter, _ = make_counter()
    frozen_counter, _ = make_counter()
    cut = int(len(history) * split)  # the prefix may be invalid: count_view never raises
    assert count_view(history[:cut], plain_counter) == count_view(frozen[:cut], frozen_counter)
    outcomes = []
    for view, counter in ((history, plain_counter), (frozen, frozen_counter)):
        try:
            result = compact_context(view, policy=policy, summarizer=summarizer, counter=counter)
            outcomes.append((result.messages, result.tokens_before, result.tokens_after))
        except MessageViewLimitExceeded as error:
            outcomes.append(("blocked", error.tokens_before, error.tokens_after))
    assert outcomes[0] == outcomes[1]


@given(history=valid_histories(), settings_=policies())
def test_pruning_names_each_call_that_left_once_oldest_first(history, settings_):
    """L3 reports exactly the calls its view no longer holds, each once, in view order."""
    from agent_cli.compaction.layers.prune import build_prune_outcome
    from agent_cli.protocol import collect_tool_ids

    outcome = build_prune_outcome(history, CompactionPolicy(**settings_), make_counter()[0])
    still_there = set(collect_tool_ids(outcome.messages, "tool_use"))
    left = [i for i in collect_tool_ids(history, "tool_use") if i not in still_there]
    assert list(outcome.removed_tool_use_ids) == left
