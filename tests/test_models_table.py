"""The model table: lookup by exact id, dated id and alias; safe defaults for the rest."""

from __future__ import annotations

import pytest

from agent_cli.models import (
    DEFAULT_CONTEXT_WINDOW,
    MODEL_TABLE,
    lookup_model,
)


def test_an_exact_id_finds_its_row():
    info = lookup_model("claude-sonnet-5-5")
    assert info.known and info.family == "sonnet"
    assert info.context_window == 1_000_000
    assert info.prices is not None and (info.prices.input, info.prices.output) == (2.0, 10.0)


def test_a_dated_id_finds_the_row_of_its_model_and_keeps_its_own_name():
    info = lookup_model("claude-haiku-4-5-20251001")
    assert info.known and info.model_id == "claude-haiku-4-5-20251001"
    assert info.display_name == "Claude Haiku 4.5" and info.context_window == 200_000


@pytest.mark.parametrize(
    ("alias", "row"),
    [
        ("claude-opus-5-5-latest", "claude-opus-5-5"),
        ("claude-sonnet-5-5[1m]", "claude-sonnet-5-5"),
        ("claude-sonnet-5-latest", "claude-sonnet-5"),
        ("CLAUDE-OPUS-4-8", "claude-opus-4-8"),
        ("claude-opus-4-5@20251101", "claude-opus-4-5"),
        ("claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5"),
        ("claude-sonnet-4-6:0", "claude-sonnet-4-6"),
    ],
)
def test_an_alias_that_extends_a_known_id_with_a_tag_finds_that_row(alias, row):
    info = lookup_model(alias)
    assert info.known and info.display_name == lookup_model(row).display_name
    assert info.prices == lookup_model(row).prices


# Bedrock's ids as it documents them (platform.claude.com "Model IDs and versions", AWS
# "Supported cross-Region inference profiles"): the `anthropic.` provider, a geography
# before it for a cross-region inference profile, `-v1:0` after a dated id, `-v1` or
# nothing after a dateless one, and the ARN of a foundation model or a profile.
@pytest.mark.parametrize(
    ("model_id", "row"),
    [
        ("anthropic.claude-sonnet-5-5-20261001-v1:0", "claude-sonnet-5-5"),
        ("us.anthropic.claude-sonnet-5-5-20261001-v1:0", "claude-sonnet-5-5"),
        ("eu.anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5"),
        ("apac.anthropic.claude-opus-5-5-20261001-v1:0", "claude-opus-5-5"),
        ("global.anthropic.claude-sonnet-4-6", "claude-sonnet-4-6"),
        ("jp.anthropic.claude-haiku-5-5-v1:0", "claude-haiku-5-5"),
        ("us-gov.anthropic.claude-sonnet-5-20260630-v1:0", "claude-sonnet-5"),
        ("anthropic.claude-opus-4-6-v1", "claude-opus-4-6"),
        (
            "arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-opus-5-v1:0",
            "claude-opus-5",
        ),
        (
            "arn:aws:bedrock:us-east-1:123456789012:inference-profile/"
            "us.anthropic.claude-sonnet-5-5-20261001-v1:0",
            "claude-sonnet-5-5",
        ),
        ("claude-sonnet-5-5@20261001", "claude-sonnet-5-5"),  # Vertex
    ],
)
def test_bedrock_and_vertex_ids_find_the_row_of_their_model_under_their_own_name(model_id, row):
    info = lookup_model(model_id)
    assert info.known and info.model_id == model_id
    assert info.display_name == lookup_model(row).display_name
    assert info.prices == lookup_model(row).prices
    assert info.context_window == lookup_model(row).context_window


@pytest.mark.parametrize(
    "model_id",
    [
        "anthropic.claude-sonnet-5-mini-v1:0",  # a variant, under Bedrock's prefix
        "us.anthropic.claude-sonnet-5-6-20261001-v1:0",  # a newer version
        "anthropic.claude-sonnet-5-5-v1:0:28k",  # a provisioned size: another window
        "us.claude-sonnet-5-5",  # a geography without the provider is no Bedrock id
        "anthropic.claude-sonnet-5-5-fast",
        "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123xyz",
    ],
)
def test_bedrock_forms_of_an_unknown_model_stay_unknown(model_id):
    info = lookup_model(model_id)
    assert not info.known and info.prices is None


@pytest.mark.parametrize(
    "model_id",
    [
        "claude-sonnet-5-6",
        "claude-opus-5-9-latest",
        "gpt-4o",
        "",
        # variants named like a known model (an outside attack): not its prices or window
        "claude-sonnet-5-mini",
        "claude-opus-5-fast",
        "claude-haiku-4-5-batch",
        "claude-sonnet-5-5-latest-preview",
    ],
)
def test_an_unknown_or_merely_similar_id_gets_safe_defaults_and_no_prices(model_id):
    info = lookup_model(model_id)
    assert not info.known and info.prices is None
    assert info.context_window == DEFAULT_CONTEXT_WINDOW


def test_the_longest_matching_id_wins_over_a_shorter_neighbour():
    # claude-sonnet-5-5 starts with claude-sonnet-5: the newer row must win
    assert lookup_model("claude-sonnet-5-5-latest").prices.cache_read == 0.10
    assert lookup_model("claude-sonnet-5-20260630").prices.cache_read == 0.20


def test_every_row_has_whole_prices_and_a_window_and_cache_reads_cost_less_than_input():
    assert len({info.model_id for info in MODEL_TABLE}) == len(MODEL_TABLE)
    for info in MODEL_TABLE:
        assert info.family in {"opus", "sonnet", "haiku"}
        assert info.context_window >= DEFAULT_CONTEXT_WINDOW
        prices = info.prices
        assert prices is not None
        assert prices.cache_read < prices.input < prices.cache_write < prices.output
