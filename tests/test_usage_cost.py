"""Dollar figures from reported usage: per category, per request band, per session."""

from __future__ import annotations

import pytest

from agent_cli.events import Usage
from agent_cli.models import lookup_model
from agent_cli.usage_cost import SessionCost, format_usd, price_usage


def test_each_category_is_priced_at_its_own_rate():
    usage = Usage(
        input_tokens=1_000_000,
        output_tokens=100_000,
        cache_creation_input_tokens=200_000,
        cache_read_input_tokens=3_000_000,
    )
    cost = price_usage(usage, lookup_model("claude-sonnet-4-6"))
    assert cost is not None
    assert cost.input_usd == pytest.approx(3.00)
    assert cost.output_usd == pytest.approx(1.50)
    assert cost.cache_write_usd == pytest.approx(0.75)
    assert cost.cache_read_usd == pytest.approx(0.90)
    assert cost.total_usd == pytest.approx(6.15)


def test_a_long_prompt_on_haiku_5_5_is_priced_at_the_upper_band_for_the_whole_request():
    info = lookup_model("claude-haiku-5-5")
    short = Usage(input_tokens=100_000, output_tokens=10_000)
    long = Usage(input_tokens=60_000, output_tokens=10_000, cache_read_input_tokens=40_001)
    assert price_usage(short, info).total_usd == pytest.approx(0.01 + 0.005)
    assert price_usage(long, info).input_usd == pytest.approx(60_000 * 0.50 / 1e6)
    assert price_usage(long, info).output_usd == pytest.approx(10_000 * 2.50 / 1e6)
    assert price_usage(long, info).cache_read_usd == pytest.approx(40_001 * 0.05 / 1e6)


def test_an_unknown_model_is_not_priced():
    assert price_usage(Usage(input_tokens=10), lookup_model("claude-next-1")) is None


def test_a_session_adds_requests_and_counts_the_ones_it_could_not_price():
    cost = SessionCost()
    cost = cost.add(Usage(input_tokens=2_000, output_tokens=500), lookup_model("claude-opus-5-5"))
    cost = cost.add(Usage(cache_read_input_tokens=10_000), lookup_model("claude-opus-5-5"))
    cost = cost.add(Usage(input_tokens=7), lookup_model("mystery"))
    cost = cost.add(Usage(input_tokens=7), lookup_model("mystery"))
    assert cost.priced_requests == 2 and cost.unpriced_requests == 2
    assert cost.unpriced_models == ("mystery",) and not cost.is_complete
    assert cost.priced.input_usd == pytest.approx(2_000 * 4 / 1e6)
    assert cost.priced.output_usd == pytest.approx(500 * 20 / 1e6)
    assert cost.priced.cache_read_usd == pytest.approx(10_000 * 0.20 / 1e6)
    assert cost.priced.total_usd == pytest.approx(0.008 + 0.01 + 0.002)


def test_amounts_under_a_dollar_keep_four_decimals():
    assert (format_usd(0.01234), format_usd(12.345)) == ("$0.0123", "$12.35")
