"""Dollars from the usage the API reported: per request, per category, per session.

Contract: `price_usage(usage, info)` prices one request's `Usage` with the table row of
the model that served it, per category (input, output, cache write, cache read), or
returns None when the row has no prices. A model with a long-prompt band (Haiku 5.5)
is priced with that band for the whole request when the request's prompt (input plus
cache writes plus cache reads) is over the band's threshold, as Anthropic bills it.
`SessionCost` adds requests up and keeps count of the ones it could not price, so a
total is never shown as complete when part of it is unknown.

Pure: numbers in, numbers out. The figures are what the published prices make of the
API's own token counts, not an invoice (no batch, regional or fast-mode pricing).
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_cli.events import Usage
from agent_cli.models import ModelInfo, ModelPrices

PER_MILLION = 1_000_000


@dataclass(frozen=True)
class CostBreakdown:
    """US dollars per usage category."""

    input_usd: float = 0.0
    output_usd: float = 0.0
    cache_write_usd: float = 0.0
    cache_read_usd: float = 0.0

    @property
    def total_usd(self) -> float:
        return self.input_usd + self.output_usd + self.cache_write_usd + self.cache_read_usd

    def plus(self, other: CostBreakdown) -> CostBreakdown:
        return CostBreakdown(
            self.input_usd + other.input_usd,
            self.output_usd + other.output_usd,
            self.cache_write_usd + other.cache_write_usd,
            self.cache_read_usd + other.cache_read_usd,
        )


@dataclass(frozen=True)
class SessionCost:
    """The priced part of a session, and what could not be priced (model ids)."""

    priced: CostBreakdown = CostBreakdown()
    priced_requests: int = 0
    unpriced_requests: int = 0
    unpriced_models: tuple[str, ...] = ()

    @property
    def is_complete(self) -> bool:
        """Every request was priced; otherwise the total is a floor (the toolbar says so)."""
        return self.unpriced_requests == 0

    def add(self, usage: Usage, info: ModelInfo) -> SessionCost:
        """This cost with one more request, served by the model `info` describes."""
        cost = price_usage(usage, info)
        if cost is None:
            models = self.unpriced_models
            if info.model_id not in models:
                models = (*models, info.model_id)
            return SessionCost(
                self.priced, self.priced_requests, self.unpriced_requests + 1, models
            )
        return SessionCost(
            self.priced.plus(cost),
            self.priced_requests + 1,
            self.unpriced_requests,
            self.unpriced_models,
        )


def prices_for_request(usage: Usage, info: ModelInfo) -> ModelPrices | None:
    """The prices that apply to this request: the long-prompt band when it is over."""
    band = info.long_prompt
    if band is not None and usage.prompt_tokens > band.threshold_tokens:
        return band.prices
    return info.prices


def price_usage(usage: Usage, info: ModelInfo) -> CostBreakdown | None:
    """One request in dollars per category; None when the model has no prices."""
    prices = prices_for_request(usage, info)
    if prices is None:
        return None
    return CostBreakdown(
        input_usd=usage.input_tokens * prices.input / PER_MILLION,
        output_usd=usage.output_tokens * prices.output / PER_MILLION,
        cache_write_usd=usage.cache_creation_input_tokens * prices.cache_write / PER_MILLION,
        cache_read_usd=usage.cache_read_input_tokens * prices.cache_read / PER_MILLION,
    )


def format_usd(amount: float) -> str:
    """`$0.0123` below a dollar (cents and a bit more), `$12.34` above."""
    return f"${amount:,.4f}" if amount < 1 else f"${amount:,.2f}"
