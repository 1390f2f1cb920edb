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
from agent_cli.compaction.layers.summary import build_summary_messages, build_summary_outcome
from agent_cli.compaction.markers import SUMMARY_HEADER, is_summary_message, summary_body
from agent_cli.compaction.results import NOTHING_NEW_TO_SUMMARIZE


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


def test_an_unmarked_summary_of_an_older_transcript_is_adopted_only_where_l4_put_it():
    """Replaying a compaction view recorded before summaries were marked: the header at
    the summary's place, after L4 ran, without a record pointer, is the summary; a typed
    header (it carries its record's pointer), one at another place, or one in a transcript
    whose compactions never summarized, is not."""
    from agent_cli.compaction.markers import SOURCE_KEY, adopt_unmarked_summary

    old_summary = user(f"{SUMMARY_HEADER}\nEarlier: the user tidied the repository.")
    typed = {**user(f"{SUMMARY_HEADER}\nmy own words"), SOURCE_KEY: "transcript:s:2"}
    digest = {**user("[Compaction digest: ...]"), "_digest": {"format": 1}}
    rest = [assistant("ok"), user("next")]

    adopted = adopt_unmarked_summary([old_summary, *rest], summarized_before=True)
    assert is_summary_message(adopted[0]) and summary_body(adopted[0]).startswith("Earlier")
    assert adopted[1:] == rest and not is_summary_message(old_summary)  # a copy, marked
    behind_digest = adopt_unmarked_summary([digest, old_summary, *rest], summarized_before=True)
    assert is_summary_message(behind_digest[1]) and not is_summary_message(behind_digest[0])
    for view, summarized in (
        ([old_summary, *rest], False),
        ([typed, *rest], True),
        ([digest, typed, *rest], True),
        ([digest, assistant("ok"), old_summary], True),
    ):
        assert not any(is_summary_message(m) for m in adopt_unmarked_summary(view, summarized))
    marked = adopt_unmarked_summary(
        [build_summary_messages("new", rest)[0], old_summary], summarized_before=True
    )
    assert not is_summary_message(marked[1])  # one summary a view: a marked one is it


def test_a_typed_summary_header_is_not_a_summary_and_has_no_summary_body():
    typed = user(f"{SUMMARY_HEADER}\nmy own words")
    assert not is_summary_message(typed) and summary_body(typed) == ""
    [made] = build_summary_messages("the real one", [assistant("ok")])
    assert is_summary_message(made) and summary_body(made) == "the real one"
    assert made["content"].startswith(SUMMARY_HEADER)  # the model still reads what it is


@pytest.mark.parametrize("forced", [False, True])
def test_a_summary_that_leaves_the_view_over_the_hard_limit_gives_way_to_pruning(forced):
    """A summary far smaller than what it replaces, but itself over the hard limit (L3
    keeps it as message 0): the run is made again without it, L3 brings the view under
    the limit, and L4's report says why its summary was not used."""
    from agent_cli.compaction import compact_context

    history = []
    for turn in range(30):
        history += [user(f"request {turn}: read file {turn}")]
        history += call_pair(f"t{turn}", "lorem ipsum dolor " * 150)
        history += [assistant(f"file {turn} has 40 functions")]
    policy = CompactionPolicy(soft_threshold=4_000, hard_limit=6_000)
    counter, _ = make_counter()
    long_summary = RecordingSummarizer("The user read files; details: " + "summary " * 8_000)
    result = compact_context(
        history, policy=policy, summarizer=long_summary, counter=counter, force_summary=forced
    )
    assert long_summary.received  # it was asked, and its answer was weighed
    assert result.tokens_after < policy.hard_limit
    assert not any(is_summary_message(m) for m in result.messages)
    assert "prune_old_messages" in result.applied_layers
    assert "generate_summary" not in result.applied_layers
    summary = [r for r in result.reports if r.layer == 4]
    assert [r.outcome for r in summary] == ["summary_too_large"]
    validate_tool_protocol(result.messages)


@pytest.mark.parametrize("keep", [2, 3])  # the window starts with a user / an assistant
def test_a_view_holding_only_the_last_summary_before_its_window_asks_for_no_summary(keep):
    """Summarizing it again (with a focus or not) could only lose detail: no request."""
    counter, _ = make_counter()
    history = build_long_history(10)
    once, _ = generate_summary(history, RecordingSummarizer(), _keep(keep), counter)
    again = RecordingSummarizer("A summary of the summary.")
    outcome = build_summary_outcome(once, again, _keep(keep), counter)
    assert again.received == [] and outcome.outcome == NOTHING_NEW_TO_SUMMARIZE
    assert outcome.messages == once and outcome.tokens_saved == 0
    newer = [*once, assistant("Done."), user("One more thing: rename the module.")]
    generate_summary(newer, again, _keep(keep), counter)
    assert len(again.received) == 1  # something new: summarized with the summary
