"""One tool step whose many results together overflow the view (issue 21.14).

Each result is under L1's per-result budget and L3 keeps the interaction the model is
in, so before the fix every layer passed and the request was blocked, although the next
turn (L3 pruning the step) went on. Now L1 runs once more with the results sharing the
room, and only a view that truly cannot fit is refused.
"""

from __future__ import annotations

import pytest
from compaction_support import SMALL_POLICY, assistant, make_counter, tool_result, tool_use, user
from hypothesis import given
from hypothesis import strategies as st

from agent_cli.compaction import (
    CompactionPolicy,
    MessageViewLimitExceeded,
    compact_context,
    validate_tool_protocol,
)
from agent_cli.compaction.layers.truncate import (
    MIN_SHARED_RESULT_TOKENS,
    shared_result_budget,
)

# Room for a wide step: results are cut over 2,000 tokens each, the limit is 30,000.
WIDE = CompactionPolicy(
    soft_threshold=20_000, hard_limit=30_000, max_tool_result_tokens=2_000, keep_recent_messages=4
)


def one_wide_step(results: int, result_chars: int, request: str = "Read every file.") -> list:
    """A request, one answer calling `results` tools, and the message holding their results
    (each about result_chars / 4 tokens by the test counter): the step the model is in."""
    ids = [f"toolu_{n}" for n in range(results)]
    return [
        user(request),
        assistant([tool_use(i, "read_file", {"path": f"f{n}.txt"}) for n, i in enumerate(ids)]),
        user([tool_result(i, f"line {n}\n" + "w" * result_chars) for n, i in enumerate(ids)]),
    ]


def test_results_each_under_the_budget_but_over_the_limit_together_are_cut_not_blocked():
    counter, _ = make_counter()
    view = one_wide_step(results=40, result_chars=4 * 900)  # 40 x ~900 tokens; budget 2,000
    assert counter.count_messages(view) > WIDE.hard_limit

    result = compact_context(view, policy=WIDE, counter=counter)

    assert result.tokens_after < WIDE.hard_limit
    validate_tool_protocol(result.messages)
    kept = result.messages[-1]["content"]
    assert [b["tool_use_id"] for b in kept] == [f"toolu_{n}" for n in range(40)]
    assert all("cut by context compaction" in b["content"] for b in kept)
    assert all(b["content"].startswith(f"line {n}\n") for n, b in enumerate(kept))
    assert [r.layer for r in result.reports if r.outcome == "applied"] == [1]


def test_the_share_aims_at_the_low_water_mark_so_the_next_turn_does_not_fire_again():
    counter, _ = make_counter()
    view = one_wide_step(results=40, result_chars=4 * 900)
    result = compact_context(view, policy=WIDE, counter=counter)
    assert result.tokens_after <= WIDE.low_water_mark_over(0)


def test_a_typed_message_alone_over_the_limit_is_refused_and_named_as_the_largest():
    counter, _ = make_counter()
    view = [user("x" * 4 * 2_500)]  # 2,500 tokens of the user's own words, hard limit 2,000
    with pytest.raises(MessageViewLimitExceeded) as blocked:
        compact_context(view, policy=SMALL_POLICY, counter=counter)
    assert blocked.value.largest_message_tokens >= SMALL_POLICY.hard_limit


def test_too_many_results_to_keep_even_a_head_each_are_refused():
    counter, _ = make_counter()
    results = SMALL_POLICY.hard_limit // MIN_SHARED_RESULT_TOKENS + 5
    view = one_wide_step(results=results, result_chars=4 * 190)
    with pytest.raises(MessageViewLimitExceeded) as blocked:
        compact_context(view, policy=SMALL_POLICY, counter=counter)
    assert blocked.value.tokens_after >= SMALL_POLICY.hard_limit


def test_the_largest_message_is_measured_after_the_layers_not_before():
    counter, _ = make_counter()
    big_result = [user("Read it."), *[assistant([tool_use("t0")]), user([tool_result("t0")])]]
    big_result[-1]["content"][0]["content"] = "r" * 4 * 3_000  # cut by L1 to ~200 tokens
    typed = user("y" * 4 * 2_100)  # the user's own words: kept whole, over the limit alone
    with pytest.raises(MessageViewLimitExceeded) as blocked:
        compact_context([*big_result, assistant("ok"), typed], policy=SMALL_POLICY, counter=counter)
    assert 2_100 <= blocked.value.largest_message_tokens < 3_000


@given(
    sizes=st.lists(st.integers(min_value=0, max_value=5_000), min_size=1, max_size=60),
    room=st.integers(min_value=0, max_value=100_000),
)
def test_the_shared_budget_is_the_largest_cap_that_fits(sizes, room):
    cap = shared_result_budget(sizes, room)
    if cap is None:  # nothing to cut, or not even a head each would fit
        fits_whole = sum(sizes) <= room
        too_tight = sum(min(s, MIN_SHARED_RESULT_TOKENS) for s in sizes) > room
        assert fits_whole or too_tight
        return
    assert cap >= MIN_SHARED_RESULT_TOKENS
    assert sum(min(s, cap) for s in sizes) <= room < sum(sizes)
    assert sum(min(s, cap + 1) for s in sizes) > room
