"""CompactionPolicy: the issue's defaults, frozen, and validated field by field."""

from __future__ import annotations

import dataclasses

import pytest

from agent_cli.compaction import CompactionPolicy
from agent_cli.compaction.policy import with_thresholds
from agent_cli.errors import PolicyError


def test_the_defaults_are_the_documented_ones():
    policy = CompactionPolicy()
    assert (policy.soft_threshold, policy.hard_limit) == (80_000, 120_000)
    assert (
        policy.max_tool_result_tokens,
        policy.keep_recent_messages,
        policy.summary_keep_recent,
    ) == (5_000, 6, 4)
    assert policy.read_tool_names == frozenset({"read_file"})
    assert policy.read_path_key == "path"


def test_a_policy_cannot_be_changed_after_it_is_made():
    with pytest.raises(dataclasses.FrozenInstanceError):
        CompactionPolicy().soft_threshold = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    "field",
    [
        "soft_threshold",
        "hard_limit",
        "max_tool_result_tokens",
        "keep_recent_messages",
        "summary_keep_recent",
    ],
)
@pytest.mark.parametrize("value", [0, -5, 2.5, True, "10"])
def test_every_number_must_be_a_positive_integer(field, value):
    with pytest.raises(PolicyError) as caught:
        CompactionPolicy(**{field: value})
    assert caught.value.field == field
    assert isinstance(caught.value, ValueError)


def test_the_soft_threshold_must_be_below_the_hard_limit():
    with pytest.raises(PolicyError) as caught:
        CompactionPolicy(soft_threshold=100, hard_limit=100)
    assert caught.value.field == "soft_threshold"


def test_thresholds_may_be_raised_as_well_as_lowered():
    assert CompactionPolicy(soft_threshold=500_000, hard_limit=900_000).hard_limit == 900_000
    assert CompactionPolicy(soft_threshold=10, hard_limit=20).soft_threshold == 10


def test_read_tool_names_become_a_frozenset_and_must_be_names():
    policy = CompactionPolicy(read_tool_names=["read_file", "cat"])
    assert policy.read_tool_names == frozenset({"read_file", "cat"})
    for bad in ("read_file", [""], [3], 7):
        with pytest.raises(PolicyError):
            CompactionPolicy(read_tool_names=bad)  # type: ignore[arg-type]
    with pytest.raises(PolicyError):
        CompactionPolicy(read_path_key="")


def test_the_low_water_mark_defaults_to_half_the_soft_threshold():
    assert CompactionPolicy().low_water is None
    assert CompactionPolicy().low_water_mark == 40_000
    assert CompactionPolicy(soft_threshold=20_001, hard_limit=60_000).low_water_mark == 10_000
    assert CompactionPolicy(low_water=1_234).low_water_mark == 1_234


def test_the_low_water_mark_sits_halfway_between_the_reserved_tokens_and_the_soft_threshold():
    demo = CompactionPolicy(soft_threshold=3_000, hard_limit=60_000)
    assert demo.low_water_mark_over(0) == demo.low_water_mark == 1_500
    assert demo.low_water_mark_over(1_650) == 2_325  # the demo: 1,500 is under the reserve
    assert demo.low_water_mark_over(2_998) == 2_999  # a room of 2 tokens: halfway is 1
    assert demo.low_water_mark_over(5_000) == 2_999  # the reserve alone fills soft
    explicit = CompactionPolicy(soft_threshold=3_000, hard_limit=60_000, low_water=2_000)
    assert explicit.low_water_mark_over(1_650) == 2_000
    assert not explicit.is_low_water_unreachable(1_999)
    assert explicit.is_low_water_unreachable(2_000)
    assert explicit.low_water_mark_over(2_000) == 2_500  # unreachable: as if unset
    assert not demo.is_low_water_unreachable(5_000)  # unset is never "unreachable"


@pytest.mark.parametrize("value", [0, -5, 2.5, True, "10"])
def test_the_low_water_mark_must_be_a_positive_integer(value):
    with pytest.raises(PolicyError) as caught:
        CompactionPolicy(low_water=value)
    assert caught.value.field == "low_water"


@pytest.mark.parametrize("value", [80_000, 80_001, 200_000])
def test_the_low_water_mark_must_be_below_the_soft_threshold(value):
    with pytest.raises(PolicyError) as caught:
        CompactionPolicy(low_water=value)
    assert (caught.value.field, caught.value.reason) == (
        "low_water",
        "must be below soft_threshold",
    )
    assert CompactionPolicy(low_water=79_999).low_water == 79_999


def test_moving_the_soft_threshold_keeps_an_explicit_low_water_mark_in_proportion():
    policy = CompactionPolicy(soft_threshold=20_000, hard_limit=60_000, low_water=5_000)
    moved = with_thresholds(policy, 10_000, hard_limit=30_000)
    assert (moved.soft_threshold, moved.hard_limit, moved.low_water) == (10_000, 30_000, 2_500)
    just_under = CompactionPolicy(soft_threshold=1_000, hard_limit=2_000, low_water=999)
    assert with_thresholds(just_under, 1_999).low_water == 1_997  # 999 / 1,000 of it
    assert with_thresholds(CompactionPolicy(), 500).low_water is None  # the default follows
