"""A step's results that fit only when cut to the shared floor (20th outside attack).

The newest user message holds the results of one answer's parallel calls, together over
the hard limit though each is under the per-result budget. The shared pass charged each
result its whole cap, found the cap under `MIN_SHARED_RESULT_TOKENS` and gave up, while a
cut at the floor measures less than its cap and fits; and the refusal said "compacting
cannot help" of a message that the floor cut brings far under the limit. These tests pin
the shape: the floor is tried and measured, L3 drops what lies before the step when only
that makes room, and "cannot help" is said only of a message over the limit even with
its results at the floor.
"""

from __future__ import annotations

import pytest
from compaction_support import assistant, make_counter, read_use, tool_result, user
from hypothesis import example, given
from hypothesis import strategies as st

from agent_cli.compaction import (
    CompactionPolicy,
    MessageViewLimitExceeded,
    compact_context,
    validate_tool_protocol,
)
from agent_cli.compaction.layers.truncate import (
    MIN_SHARED_RESULT_TOKENS,
    cut_to_the_floor,
    shared_result_budget,
    shared_result_caps,
)
from agent_cli.compaction.markers import is_digest_message
from agent_cli.compaction.message_facts import build_view_facts
from agent_cli.events import RequestBlocked
from agent_cli.repl.compact_lines import format_blocked

# The tester's figures in estimator units: soft 2,000 / hard 4,000 calibrated, a quarter of
# the soft threshold per result.
TIGHT = CompactionPolicy(
    soft_threshold=1_870, hard_limit=3_740, max_tool_result_tokens=467, keep_recent_messages=6
)
INTRODUCTION = "I can read, list, grep, run, write and edit files. " * 15  # ~190 tokens
CANNOT_HELP = "so compacting cannot help"


def numbered_lines(file: int, tokens: int) -> str:
    """About `tokens` tokens (by the test counter) of a read's numbered lines."""
    lines = [f"{n:6d}\tdef f{n}(): return {file * 1000 + n}  # {'x' * 20}" for n in range(1, 400)]
    return "\n".join(lines)[: tokens * 4]


def parallel_reads(reads: int, result_tokens: int = 400, first: str = "first request") -> list:
    """A first exchange, then a request, one answer reading `reads` files at once and the
    message holding their results (each `result_tokens`, under TIGHT's budget)."""
    ids = [f"toolu_read_{n}" for n in range(reads)]
    return [
        user(first),
        assistant(INTRODUCTION),
        user("Read every big file."),
        assistant([read_use(i, f"big{n}.py") for n, i in enumerate(ids)]),
        user([tool_result(i, numbered_lines(n, result_tokens)) for n, i in enumerate(ids)]),
    ]


def reserve_for_cap(view: list, counter, cap: float) -> int:
    """The reserve that leaves the results room for `cap` tokens each under the hard limit,
    by the shared pass's own arithmetic."""
    sizes = [s for found in build_view_facts(view, counter) for s in found.result_tokens]
    fixed = counter.count_messages(view) - sum(sizes)
    return int(TIGHT.hard_limit - 1 - fixed - cap * len(sizes))


def assert_every_result_kept_and_cut(messages: list, reads: int) -> None:
    validate_tool_protocol(messages)
    results = messages[-1]["content"]
    assert [b["tool_use_id"] for b in results] == [f"toolu_read_{n}" for n in range(reads)]
    assert all("cut by context compaction" in b["content"] for b in results)
    assert all(b["content"].startswith(f"{1:6d}\tdef f1()") for b in results)  # heads kept


def test_results_whose_shared_cap_counts_under_the_floor_are_cut_to_it_when_that_fits():
    counter, _ = make_counter()
    view = parallel_reads(10)
    reserved = reserve_for_cap(view, counter, cap=MIN_SHARED_RESULT_TOKENS - 10)
    sizes = [s for found in build_view_facts(view, counter) for s in found.result_tokens]
    room = TIGHT.hard_limit - 1 - (counter.count_messages(view) + reserved - sum(sizes))
    assert counter.count_message(view[-1]) + reserved > TIGHT.hard_limit
    assert shared_result_budget(sizes, room) is None  # the arithmetic alone gave up here

    result = compact_context(view, policy=TIGHT, counter=counter, reserved_tokens=reserved)

    assert result.tokens_after < TIGHT.hard_limit
    assert result.tokens_after == counter.count_messages(result.messages) + reserved
    assert_every_result_kept_and_cut(result.messages, 10)
    assert result.messages[:4] == view[:4]  # cutting the results was enough: nothing pruned
    assert [r.layer for r in result.reports if r.outcome == "applied"] == [1]


def test_a_step_that_fits_at_the_floor_only_without_the_messages_before_it_drops_them():
    counter, _ = make_counter()
    view = parallel_reads(10)
    at_floor = counter.count_messages(cut_to_the_floor(view, TIGHT, counter))
    reserved = TIGHT.hard_limit - at_floor + 20  # over even at the floor, by 20 tokens
    assert counter.count_message(view[1]) > 150  # what L3 may drop makes the room

    result = compact_context(view, policy=TIGHT, counter=counter, reserved_tokens=reserved)

    assert result.tokens_after < TIGHT.hard_limit
    assert_every_result_kept_and_cut(result.messages, 10)
    assert result.messages[0] == view[0]
    assert INTRODUCTION not in str(result.messages)
    digest = next(m["content"] for m in result.messages if is_digest_message(m))
    assert "Read every big file." in digest  # the user's request is named, not lost
    pruned = [r for r in result.reports if r.layer == 3 and r.outcome == "applied"]
    assert len(pruned) == 1 and pruned[0].messages_removed == 2


def blocked_lines(error: MessageViewLimitExceeded) -> list[str]:
    event = RequestBlocked(
        tokens_before=error.tokens_before,
        tokens_after=error.tokens_after,
        hard_limit=error.hard_limit,
        applied_layers=(),
        largest_message_tokens=error.largest_message_tokens,
        reserved_tokens=error.reserved_tokens,
    )
    return format_blocked(event)


def test_cannot_help_is_not_said_of_results_that_the_floor_brings_under_the_limit():
    counter, _ = make_counter()
    # the user's own words (kept whole) and the results cannot fit together, even cut
    view = parallel_reads(10, first="y" * 4 * 2_600)
    assert counter.count_message(view[-1]) >= TIGHT.hard_limit  # alone over, as it stands
    with pytest.raises(MessageViewLimitExceeded) as blocked:
        compact_context(view, policy=TIGHT, counter=counter, reserved_tokens=500)

    assert blocked.value.largest_message_tokens < TIGHT.hard_limit
    assert not any(CANNOT_HELP in line for line in blocked_lines(blocked.value))


def test_cannot_help_is_still_said_when_the_results_at_the_floor_are_over_the_limit():
    counter, _ = make_counter()
    view = parallel_reads(45)  # 45 results of ~400 tokens: ~100 each even at the floor
    with pytest.raises(MessageViewLimitExceeded) as blocked:
        compact_context(view, policy=TIGHT, counter=counter, reserved_tokens=500)

    floor_cut = cut_to_the_floor(view, TIGHT, counter)[-1]
    assert blocked.value.largest_message_tokens == counter.count_message(floor_cut)
    assert blocked.value.largest_message_tokens >= TIGHT.hard_limit
    lines = blocked_lines(blocked.value)
    assert CANNOT_HELP in lines[1]


@given(
    sizes=st.lists(st.integers(min_value=0, max_value=3_000), min_size=1, max_size=40),
    rooms=st.lists(st.integers(min_value=-1_000, max_value=60_000), max_size=3),
    budget=st.integers(min_value=MIN_SHARED_RESULT_TOKENS, max_value=5_000),
)
# a room whose cap is the floor itself put the floor first, before a larger cap
@example(sizes=[121, 122], rooms=[240, 242], budget=122)
def test_the_shared_caps_end_at_the_floor_and_stay_under_the_budget(sizes, rooms, budget):
    caps = shared_result_caps(sizes, rooms, budget)
    if all(size <= MIN_SHARED_RESULT_TOKENS for size in sizes):
        assert caps == []  # nothing a cut could shrink
        return
    assert len(set(caps)) == len(caps)
    assert all(MIN_SHARED_RESULT_TOKENS <= cap < budget for cap in caps)
    if budget > MIN_SHARED_RESULT_TOKENS:
        assert caps[-1] == MIN_SHARED_RESULT_TOKENS  # the floor is always tried, last
    for room in rooms:  # each room's own cap is tried, when there is one under the budget
        cap = shared_result_budget(sizes, room)
        assert cap is None or cap >= budget or cap in caps
