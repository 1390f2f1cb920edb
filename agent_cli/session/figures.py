"""The figures a session reports: the context gauge and the preview of the next request.

Contract: plain frozen values, built by `session.stats` and shown by the REPL; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Gauge:
    """The context gauge: request tokens now against the thresholds."""

    tokens: int
    soft_threshold: int
    hard_limit: int
    estimator: str
    context_window: int = 0
    cost_usd: float | None = None  # the session so far, when it could be priced
    cost_is_partial: bool = False  # some requests could not be priced: cost_usd is a floor

    @property
    def percent_of_soft(self) -> int:
        return round(100 * self.tokens / self.soft_threshold) if self.soft_threshold else 0


@dataclass(frozen=True)
class ContextPreview:
    """What the next request would carry."""

    system_prompt: str
    durable_context: str
    message_lines: tuple[str, ...]
    project_instructions: str = ""
    project_source: str = ""
    context_window: int = 0
    request_tokens: int = 0  # the gauge's figure: what the next request would carry
