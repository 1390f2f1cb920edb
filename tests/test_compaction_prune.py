"""L3 prune_old_messages: message 0 and the recent tail stay, interactions go whole."""

from __future__ import annotations

import copy

import pytest
from compaction_support import (
    assistant,
    build_long_history,
    call_pair,
    make_counter,
    text,
    tool_result,
    tool_use,
    user,
)

from agent_cli.compaction import (
    CompactionPolicy,
    ToolProtocolError,
    compact_context,
    prune_old_messages,
    validate_tool_protocol,
)
from agent_cli.compaction.markers import is_digest_message


def _keep(count):
    return CompactionPolicy(keep_recent_messages=count)


def test_message_zero_and_the_last_messages_are_kept():
    counter, _ = make_counter()
    history = build_long_history(10)  # 1 + 20 + 2 messages
    view, saved = prune_old_messages(history, _keep(4), counter)
    assert view == [history[0], *history[-4:]]
    assert view[0] is history[0]
    assert saved == counter.count_messages(history) - counter.count_messages(view)


def test_a_tool_use_is_removed_together_with_its_result_across_the_cut():
    history = [user("go"), *call_pair("a"), *call_pair("b"), assistant("done"), user("next")]
    view, _ = prune_old_messages(history, _keep(3))  # keeps [user(result b), done, next]
    assert view == [history[0], history[5], history[6]]
    assert validate_tool_protocol(view) == {}


@pytest.mark.parametrize("keep", [1, 2])
def test_the_step_the_model_is_in_stays_whole_however_few_messages_are_kept(keep):
    """Seventh attack: with `--keep-recent 1`, L3 kept only the results the model was
    about to read; their calls crossed the cut and both left, so the model ran the command
    again (a deploy ran twice)."""
    history = [user("go"), *call_pair("a"), assistant("done"), user("deploy"), *call_pair("b")]
    view, _ = prune_old_messages(history, _keep(keep))
    assert view[-2:] == history[-2:]
    assert set(validate_tool_protocol(view)) == {"b"}


def test_text_in_a_mixed_message_at_the_cut_stays():
    history = [
        user("go"),
        assistant([tool_use("a")]),
        user([tool_result("a"), text("and remember the tests")]),
        assistant("ok"),
        user("next"),
    ]
    view, _ = prune_old_messages(history, _keep(3))
    assert view[1] == user([text("and remember the tests")])
    assert validate_tool_protocol(view) == {}


def test_parallel_calls_kept_in_the_tail_stay_paired():
    history = [
        user("go"),
        *call_pair("old"),
        assistant("thinking"),
        user("continue"),
        assistant([tool_use("a"), tool_use("b")]),
        user([tool_result("b"), tool_result("a")]),
    ]
    view, _ = prune_old_messages(history, _keep(3))
    assert set(validate_tool_protocol(view)) == {"a", "b"}


def test_the_result_starts_with_a_user_message():
    history = [
        assistant("I start oddly"),
        user("hello"),
        *call_pair("a"),
        assistant("fine"),
        user("next"),
    ]
    view, _ = prune_old_messages(history, _keep(4))
    assert view[0]["role"] == "user"
    validate_tool_protocol(view)


def test_a_leading_assistant_message_goes_with_its_interactions():
    history = [
        assistant([tool_use("a")]),
        user([tool_result("a"), text("see")]),
        assistant("ok"),
        user("next"),
    ]
    view, _ = prune_old_messages(history, _keep(3))
    assert view == [user([text("see")]), assistant("ok"), user("next")]


def test_a_short_history_is_left_as_it_is():
    history = build_long_history(1)
    view, saved = prune_old_messages(history, _keep(6))
    assert (view, saved) == (history, 0)


def test_pruning_never_mutates_and_refuses_an_invalid_history():
    history = build_long_history(8)
    before = copy.deepcopy(history)
    prune_old_messages(history, _keep(2))
    assert history == before
    with pytest.raises(ToolProtocolError):
        prune_old_messages([user("go"), assistant([tool_use("a")]), user("no")])


def test_a_view_opening_with_the_assistant_keeps_its_tail_from_the_nearest_user_message():
    history = [assistant("hello"), user("first"), assistant("a"), user("second"), assistant("b")]
    view, saved = prune_old_messages(history, _keep(1))
    assert view == history[3:]
    assert saved > 0


def test_a_view_with_no_user_message_to_start_from_is_not_emptied():
    history = [assistant("only the assistant spoke")]
    view, saved = prune_old_messages(history, _keep(1))
    assert (view, saved) == (history, 0)


def test_a_request_kept_at_message_zero_is_not_named_gone_when_the_same_dict_stood_between():
    """A view may hold one dict twice: message 0 and again in the dropped middle. The
    text is still in the view, so the digest names no lost request and the run is what
    pruning alone gives."""
    first = user("Please tidy the repository.")
    view = [first, assistant("x" * 400), first, assistant("y" * 400), user("next")]
    policy = CompactionPolicy(soft_threshold=100, hard_limit=1_000, keep_recent_messages=1)
    counter, _ = make_counter()
    result = compact_context(view, policy=policy, counter=counter)
    assert result.messages == [first, view[-1]]
    assert not any(is_digest_message(message) for message in result.messages)
