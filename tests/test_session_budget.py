"""The budget helpers: calibration, the policy the core applies, and the loop guard."""

from __future__ import annotations

from agent_cli.compaction import CompactionPolicy
from agent_cli.session.budget import (
    SHORT_OF_AIM,
    LoopGuard,
    calibrated_policy,
    calibration_ratio,
    fit_to_window,
    to_request_tokens,
    uncounted_excess,
    wire_characters,
    worthwhile_summary_tokens,
)


def test_calibration_is_the_ratio_of_api_tokens_to_estimated_tokens_clamped() -> None:
    assert calibration_ratio(1_200, 1_000) == 1.2
    assert calibration_ratio(10_000, 1_000) == 3.0
    assert calibration_ratio(100, 1_000) == 0.5
    assert calibration_ratio(0, 1_000) is None
    assert calibration_ratio(1_000, 0) is None


def test_thresholds_are_divided_by_the_calibration_so_they_hold_in_api_tokens() -> None:
    policy = calibrated_policy(CompactionPolicy(soft_threshold=80_000, hard_limit=120_000), 1.25)
    assert (policy.soft_threshold, policy.hard_limit) == (64_000, 96_000)
    assert to_request_tokens(64_000, 1.25) == 80_000


def test_one_tool_result_may_keep_at_most_a_quarter_of_the_soft_threshold() -> None:
    small = calibrated_policy(CompactionPolicy(soft_threshold=3_000, hard_limit=50_000), None)
    assert small.max_tool_result_tokens == 750
    large = calibrated_policy(CompactionPolicy(), None)
    assert large.max_tool_result_tokens == 5_000


def test_the_calibrated_policy_always_keeps_soft_below_hard() -> None:
    policy = calibrated_policy(CompactionPolicy(soft_threshold=300, hard_limit=301), 3.0)
    assert 0 < policy.soft_threshold < policy.hard_limit


def test_thresholds_past_the_window_are_lowered_to_fit_it_beside_the_answer() -> None:
    """Seventh attack: thresholds set for a 1M-token window were kept on a 200k one."""
    as_set = CompactionPolicy(soft_threshold=400_000, hard_limit=600_000, low_water=300_000)
    fitted = fit_to_window(as_set, 200_000, 8_192)
    assert fitted.hard_limit == 191_808 and fitted.soft_threshold == 127_872
    assert fitted.low_water == round(300_000 * 127_872 / 400_000)  # its proportion to soft
    assert fit_to_window(as_set, 1_000_000, 8_192) is as_set
    assert fit_to_window(as_set, 0, 8_192) is as_set  # a window not known: as set
    tiny = fit_to_window(CompactionPolicy(soft_threshold=3_000, hard_limit=5_000), 100, 8_192)
    assert 0 < tiny.soft_threshold < tiny.hard_limit


def test_the_loop_guard_holds_after_a_compaction_that_freed_too_little() -> None:
    guard = LoopGuard()
    assert guard.note_compaction(before=10_000, after=9_990, soft_threshold=8_000)
    assert guard.is_holding(10_000, soft_threshold=8_000, hard_limit=20_000)
    assert not guard.is_holding(20_000, soft_threshold=8_000, hard_limit=20_000)  # hard limit
    assert not guard.is_holding(9_990 + 400, soft_threshold=8_000, hard_limit=20_000)  # regrew
    assert guard.held_at is None


def test_a_deep_run_short_of_its_aim_waits_for_the_room_a_run_reaching_it_buys() -> None:
    """A summary run that left 6,500 of 8,000 tokens, aiming for 4,000 (a long summary):
    compacting again at 8,000 would pay for a summary each turn; the guard waits until
    the view has grown by soft - aim = 4,000 tokens, as a run that reached its aim allows."""
    guard = LoopGuard()
    assert guard.note_compaction(12_000, 6_500, 8_000, deep_aim=4_000) == SHORT_OF_AIM
    assert guard.retry_at(8_000) == 10_500
    assert guard.is_holding(8_100, soft_threshold=8_000, hard_limit=16_000)
    assert guard.is_holding(10_499, soft_threshold=8_000, hard_limit=16_000)
    assert not guard.is_holding(10_500, soft_threshold=8_000, hard_limit=16_000)
    assert guard.held_at is None and guard.aim is None
    # at the hard limit it always runs; a light run (no aim given) never holds for this
    assert guard.note_compaction(12_000, 6_500, 8_000, deep_aim=4_000)
    assert not guard.is_holding(16_000, soft_threshold=8_000, hard_limit=16_000)
    assert not LoopGuard().note_compaction(12_000, 6_500, 8_000)
    assert not LoopGuard().note_compaction(12_000, 3_900, 8_000, deep_aim=4_000)


def test_uncounted_content_is_weighed_at_its_characters_where_they_say_more() -> None:
    """Estimator units: 4,000 characters are 1,000 request tokens; at a calibration of
    1.25 that is 800 estimated tokens, 300 over an estimate of 500; none when the
    estimate says more."""
    assert uncounted_excess(500, 4_000, 1.25) == 300
    assert uncounted_excess(500, 4_000, None) == 500
    assert uncounted_excess(1_200, 4_000, 1.0) == 0


def test_the_loop_guard_stays_open_after_a_compaction_that_worked() -> None:
    guard = LoopGuard()
    assert not guard.note_compaction(before=10_000, after=5_000, soft_threshold=8_000)
    assert not guard.is_holding(9_000, soft_threshold=8_000, hard_limit=20_000)


def test_content_is_weighed_as_the_wire_carries_it() -> None:
    """Private keys (counts, pointers) are never sent; an image or a document is billed
    by its size, not by the characters of its base64."""
    plain = [{"type": "text", "text": "hello"}]
    kept = [{"type": "text", "text": "hello", "_tokens": ["cl100k", 1, 5], "_source": "x"}]
    assert wire_characters(kept) == wire_characters(plain) > len("hello")
    image = {"type": "image", "source": {"type": "base64", "data": "A" * 200_000}}
    assert wire_characters([image]) < 10
    assert wire_characters("日本") == len('"\\u65e5\\u672c"')  # as JSON escapes it


def test_the_guard_remembers_a_compaction_that_made_no_room_past_its_hold() -> None:
    """Over the soft threshold or freeing too little, a compaction made no room; the hold
    ends on regrowth but the mark stays, until a compaction makes room or `/compact`."""
    guard = LoopGuard()
    guard.note_compaction(before=95_000, after=91_000, soft_threshold=80_000)
    assert guard.made_no_room
    assert not guard.is_holding(96_000, soft_threshold=80_000, hard_limit=120_000)  # regrew
    assert guard.made_no_room and guard.held_at is None
    guard.note_compaction(before=96_000, after=50_000, soft_threshold=80_000)
    assert not guard.made_no_room
    guard.note_compaction(before=10_000, after=9_990, soft_threshold=20_000)  # freed little
    assert guard.made_no_room
    guard.release()
    assert not guard.made_no_room
    short = LoopGuard()
    short.note_compaction(12_000, 6_500, 8_000, deep_aim=4_000)  # has its own rule
    assert not short.made_no_room


def test_a_worthwhile_summary_replaces_a_quarter_of_the_conversations_room() -> None:
    """A quarter of the soft threshold, or of what the hard limit leaves above the fixed
    part when that is less (the tester's 88,000 of schemas under 120,000: 8,000)."""
    policy = CompactionPolicy(soft_threshold=80_000, hard_limit=120_000)
    assert worthwhile_summary_tokens(policy, reserved_tokens=2_000) == 20_000
    assert worthwhile_summary_tokens(policy, reserved_tokens=88_000) == 8_000
    assert worthwhile_summary_tokens(policy, reserved_tokens=119_999) == 1
