"""The session's cost in dollars: each request's reported usage priced with the model
that served it, per category, adding up in `stats`, the toolbar gauge and after resume.

Requests go through the real SDK to the strict fake Messages API, which reports
cache writes and reads the way the API's prefix cache does.
"""

from __future__ import annotations

import pytest
from fake_anthropic import Reply, start_fake_server, text_block
from session_support import ScriptedProvider, drain, make_session, transcript_records

from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.usage_cost import format_usd

API_KEY = "sk-ant-test-COSTS"
# $ per million tokens: input, output, 5-minute cache write, cache read (Anthropic's list)
PRICES = {
    "claude-sonnet-5-5": (2.0, 10.0, 2.50, 0.10),
    "claude-opus-5-5": (4.0, 20.0, 5.00, 0.20),
}
FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)
CATEGORIES = ("input", "output", "cache_write", "cache_read")


def _expected_by_category(records: list[dict]) -> dict[str, float]:
    """Each usage record priced by hand with the model it names, summed per category."""
    totals = dict.fromkeys(CATEGORIES, 0.0)
    for record in records:
        if record["kind"] != "usage":
            continue
        payload = record["payload"]
        for category, field, price in zip(
            CATEGORIES, FIELDS, PRICES[payload["model"]], strict=True
        ):
            totals[category] += payload[field] * price / 1_000_000
    return totals


def test_cost_per_category_adds_up_over_requests_and_models_and_survives_resume(tmp_path):
    (tmp_path / "AGENTS.md").write_text("Rules of the house. " * 400)  # a cacheable prefix
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(*[Reply([text_block(f"answer {i} " * 30)]) for i in range(4)])
        provider = AnthropicProvider(API_KEY, "claude-sonnet-5-5", base_url=server.base_url)
        session = make_session(tmp_path, provider)
        drain(session.run_turn("first"))
        drain(session.run_turn("second"))
        session.switch_model("claude-opus-5-5")
        drain(session.run_turn("third"))
        stats, gauge = session.stats(), session.gauge()
        records = transcript_records(session)
        session.close()
        resumed = make_session(
            tmp_path,
            AnthropicProvider(API_KEY, "claude-sonnet-5-5", base_url=server.base_url),
            resume=session.session_id,
        )
        resumed_stats = resumed.stats()
        resumed.close()

    usages = [r["payload"] for r in records if r["kind"] == "usage"]
    assert [u["model"] for u in usages] == ["claude-sonnet-5-5"] * 2 + ["claude-opus-5-5"]
    assert sum(u["cache_read_input_tokens"] for u in usages) > 0  # the cache was read
    assert sum(u["cache_creation_input_tokens"] for u in usages) > 0
    expected = _expected_by_category(records)
    for category in CATEGORIES:
        assert stats.cost_by_category[category] == pytest.approx(expected[category])
        assert resumed_stats.cost_by_category[category] == pytest.approx(expected[category])
    assert gauge.cost_usd == pytest.approx(sum(expected.values()))
    assert stats.unpriced_requests == 0 and stats.model_in_table


def test_an_unknown_model_shows_tokens_only_and_says_so(tmp_path):
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(Reply([text_block("hi")]))
        provider = AnthropicProvider(API_KEY, "claude-unlisted-1", base_url=server.base_url)
        session = make_session(tmp_path, provider)
        drain(session.run_turn("hello"))
        stats, gauge = session.stats(), session.gauge()
        session.close()
    assert stats.cost_by_category == {} and gauge.cost_usd is None
    assert stats.unpriced_requests == 1 and stats.unpriced_models == ("claude-unlisted-1",)
    assert not stats.model_in_table and stats.context_window == 200_000
    assert stats.total_usage.prompt_tokens > 0  # the tokens are still there


def test_the_toolbar_marks_the_cost_as_a_floor_once_a_request_could_not_be_priced(tmp_path):
    from agent_cli.repl.prompt import format_gauge

    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(Reply([text_block("priced")]), Reply([text_block("not priced")]))
        provider = AnthropicProvider(API_KEY, "claude-sonnet-5-5", base_url=server.base_url)
        session = make_session(tmp_path, provider)
        drain(session.run_turn("first"))
        whole = session.gauge()
        session.switch_model("claude-unlisted-1")
        drain(session.run_turn("second"))
        floor = session.gauge()
        session.close()
    assert not whole.cost_is_partial and floor.cost_is_partial
    assert floor.cost_usd == pytest.approx(whole.cost_usd)
    assert f" · {format_usd(whole.cost_usd)} · " in format_gauge(whole)
    assert f" · ≥{format_usd(floor.cost_usd)} · " in format_gauge(floor)


def test_free_space_is_the_window_less_what_the_next_request_carries(tmp_path):
    session = make_session(tmp_path, ScriptedProvider())
    drain(session.run_turn("hello there"))
    stats, gauge = session.stats(), session.gauge()
    session.close()
    assert stats.context_window == 200_000
    assert stats.context_free == 200_000 - gauge.tokens


def test_the_stats_panel_shows_dollars_per_category_and_what_was_not_priced():
    from repl_fakes import make_console, make_stats

    from agent_cli.repl.stats_panel import build_stats_panel

    stats = make_stats(
        provider="anthropic",
        model="claude-next-1",
        model_in_table=False,
        cost_by_category={
            "input": 0.01,
            "output": 0.02,
            "cache_write": 0.003,
            "cache_read": 0.0004,
        },
        unpriced_requests=2,
        unpriced_models=("claude-next-1",),
    )
    console = make_console(width=200)
    console.print(build_stats_panel(stats))
    shown = " ".join(console.export_text().split())
    assert "cost $0.0334 · input $0.0100 · output $0.0200 · cache write $0.0030" in shown
    assert "cache read $0.0004 · 2 requests not priced (claude-next-1: not in the model" in shown
    assert "not in agent-cli's model table: context window assumed 200,000" in shown
    assert "free 186,050 of the 200,000-token window (93%)" in shown


def test_the_toolbar_shows_the_session_cost_only_when_it_could_be_priced():
    from agent_cli.repl.prompt import format_gauge
    from agent_cli.session import Gauge

    priced = Gauge(12_345, 80_000, 120_000, "est", context_window=1_000_000, cost_usd=0.0123)
    unpriced = Gauge(12_345, 80_000, 120_000, "est", context_window=200_000, cost_usd=None)
    assert "(15%) · $0.0123 · estimator: est" in format_gauge(priced)
    assert "$" not in format_gauge(unpriced)


def test_scripted_usage_is_priced_to_the_cent_per_category(tmp_path):
    """The fake reports usage scripted by the test (its `usage_for` hook), so the expected
    dollars follow from round numbers and the published prices alone."""
    from fake_anthropic_stream import count_output_tokens

    replies = [Reply([text_block("a" * 4_000)]), Reply([text_block("b" * 8_000)])]
    scripted = [
        {
            "input_tokens": 1_000,
            "cache_creation_input_tokens": 200_000,
            "cache_read_input_tokens": 0,
        },
        {
            "input_tokens": 500,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 3_000_000,
        },
    ]
    with start_fake_server(api_key=API_KEY) as server:
        server.usage_for = lambda body: scripted.pop(0)
        server.enqueue(*replies)
        provider = AnthropicProvider(API_KEY, "claude-sonnet-5-5", base_url=server.base_url)
        session = make_session(tmp_path, provider)
        drain(session.run_turn("first"))
        session.switch_model("claude-opus-5-5")
        drain(session.run_turn("second"))
        stats = session.stats()
        session.close()
    out_1, out_2 = (count_output_tokens(reply) for reply in replies)
    assert stats.cost_by_category["input"] == pytest.approx(1_000 * 2 / 1e6 + 500 * 4 / 1e6)
    assert stats.cost_by_category["output"] == pytest.approx(out_1 * 10 / 1e6 + out_2 * 20 / 1e6)
    assert stats.cost_by_category["cache_write"] == pytest.approx(0.50)  # 200k at $2.50
    assert stats.cost_by_category["cache_read"] == pytest.approx(0.60)  # 3M at $0.20


def test_usage_is_recorded_and_priced_with_the_model_the_provider_points_at_now(tmp_path):
    """The log asks the provider for the model (no copy to keep in step): a provider
    pointed elsewhere by any path has its next request priced with the new model."""
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(Reply([text_block("one")]), Reply([text_block("two")]))
        provider = AnthropicProvider(API_KEY, "claude-sonnet-5-5", base_url=server.base_url)
        session = make_session(tmp_path, provider)
        drain(session.run_turn("first"))
        provider.model = "claude-opus-5-5"
        drain(session.run_turn("second"))
        records = transcript_records(session)
        stats = session.stats()
        session.close()
    usages = [r["payload"]["model"] for r in records if r["kind"] == "usage"]
    assert usages == ["claude-sonnet-5-5", "claude-opus-5-5"]
    expected = _expected_by_category(records)
    assert stats.cost_by_category["input"] == pytest.approx(expected["input"])
