"""CompactionPolicy: the issue's defaults, frozen, and validated field by field."""

from __future__ import annotations

import dataclasses

import pytest

from agent_cli.compaction import CompactionPolicy
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
