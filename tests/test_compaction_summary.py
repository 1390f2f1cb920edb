"""L4 generate_summary: a marked summary before an unsplit recent window; safe failure."""

from __future__ import annotations

import copy

import pytest
from compaction_support import (
    assistant,
    build_long_history,
    call_pair,
    make_counter,
    tool_result,
    tool_use,
    user,
)

from agent_cli.compaction import (
    CompactionPolicy,
    ToolProtocolError,
    generate_summary,
    validate_tool_protocol,
)
from agent_cli.compaction.markers import SUMMARY_HEADER, is_summary_message, summary_body


def _keep(count):
    return CompactionPolicy(summary_keep_recent=count)


class RecordingSummarizer:
    def __init__(self, answer="The user asked to tidy the repository; ten calls ran."):
        self.answer = answer
        self.received = []

    def __call__(self, old_messages):
        self.received.append(old_messages)
        return self.answer


def _raising(old_messages):
    raise RuntimeError("model unavailable")


def test_old_messages_become_one_marked_summary_message():
    counter, _ = make_counter()
    history = build_long_history(10)
    summarizer = RecordingSummarizer()
    view, saved = generate_summary(history, summarizer, _keep(2), counter)
    assert is_summary_message(view[0])
    assert view[0]["content"].startswith(SUMMARY_HEADER)
    assert summary_body(view[0]) == summarizer.answer
    assert view[1:] == history[-2:]
    assert summarizer.received == [history[:-2]]
    assert saved == counter.count_messages(history) - counter.count_messages(view)


def test_an_acknowledgement_follows_only_when_the_window_starts_with_a_user():
    history = build_long_history(4)  # ends with ..., user(result), assistant, user
    starts_with_assistant, _ = generate_summary(history, RecordingSummarizer(), _keep(2))
    assert [m["role"] for m in starts_with_assistant] == ["user", "assistant", "user"]
    starts_with_user, _ = generate_summary(history, RecordingSummarizer(), _keep(1))
    assert [m["role"] for m in starts_with_user] == ["user", "assistant", "user"]
    assert starts_with_user[-1] is history[-1]
    assert starts_with_assistant[1] is history[-2]


def test_the_window_widens_so_no_interaction_is_split():
    history = [
        user("go"),
        assistant("plan " * 200),
        user("ok"),
        assistant([tool_use("a"), tool_use("b")]),
        user([tool_result("a", "x" * 400), tool_result("b", "y" * 400)]),
    ]
    view, _ = generate_summary(history, RecordingSummarizer("short"), _keep(1))
    assert view[1:] == history[3:]
    assert set(validate_tool_protocol(view)) == {"a", "b"}


@pytest.mark.parametrize(
    "summarizer", [_raising, RecordingSummarizer("   "), RecordingSummarizer(None)]
)
def test_a_failing_or_blank_summary_leaves_the_view_unchanged(summarizer):
    history = build_long_history(10)
    view, saved = generate_summary(history, summarizer, _keep(3))
    assert (view, saved) == (history, 0)


def test_a_summary_that_would_not_shrink_the_view_is_refused():
    history = build_long_history(2, result_chars=10)
    view, saved = generate_summary(history, RecordingSummarizer("z" * 5_000), _keep(2))
    assert (view, saved) == (history, 0)


def test_nothing_is_summarized_when_the_window_covers_everything():
    history = [user("go"), *call_pair("a")]
    summarizer = RecordingSummarizer()
    view, saved = generate_summary(history, summarizer, _keep(3))
    assert (view, saved, summarizer.received) == (history, 0, [])


def test_the_summarizer_gets_a_copy_it_cannot_damage_the_history_through():
    history = build_long_history(6)
    before = copy.deepcopy(history)

    def vandal(old_messages):
        old_messages[0]["content"] = "overwritten"
        old_messages.clear()
        return "summary"

    generate_summary(history, vandal, _keep(2))
    assert history == before


def test_an_invalid_history_is_refused_before_the_summarizer_runs():
    summarizer = RecordingSummarizer()
    with pytest.raises(ToolProtocolError):
        generate_summary([user("go"), assistant([tool_use("a")])], summarizer)
    assert summarizer.received == []


def test_a_summary_that_frees_exactly_nothing_is_refused_and_one_token_less_is_kept():
    """Not smaller includes the same size: a summary costing exactly what it
    replaces would rewrite the cached prefix for no room. The summary's length is found by
    measuring, so the test holds whatever the header's size."""
    from agent_cli.compaction.summary import build_summary_messages

    counter, _ = make_counter()
    recent = [assistant("Done: the build passes now.")]
    history = [user("Please fix the failing build. " * 30), *recent]
    replaced = counter.count_message(history[0])

    def summary_cost(text: str) -> int:
        return counter.count_messages(build_summary_messages(text, recent))

    same_size = next(
        "s" * length for length in range(1, 2_000) if summary_cost("s" * length) == replaced
    )
    view, saved = generate_summary(history, RecordingSummarizer(same_size), _keep(1), counter)
    assert saved == 0 and view == history and not is_summary_message(view[0])
    one_token_less = same_size[:-4]  # the counter here counts a token per four characters
    assert summary_cost(one_token_less) == replaced - 1
    view, saved = generate_summary(history, RecordingSummarizer(one_token_less), _keep(1), counter)
    assert saved == 1 and is_summary_message(view[0])
