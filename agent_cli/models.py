"""What agent-cli knows about each Claude model: context window and prices.

Contract: `MODEL_TABLE` is the one table (data only); `lookup_model(model_id)` finds the
row for an id given exactly, with a date suffix (`claude-haiku-4-5-20251001`), or as an
alias that extends a known id (its date optional) with one of the tags providers use:
`-latest`, a bracketed tag (`claude-sonnet-5-5[1m]`), `@<version>` (Vertex), `:<n>` and
`-v<n>[:<n>]` (Bedrock). Bedrock's own forms are found too: the `anthropic.` provider
prefix, a cross-region inference profile's geography before it (`us.`, `eu.`, `apac.`,
`jp.`, `global.`, ...: `us.anthropic.claude-sonnet-4-5-20250929-v1:0`), and the ARN of a
foundation model or of such a profile; the prefix only routes, the model is the same.
A version or a variant that merely starts like a known one
(`claude-sonnet-5-6` against `claude-sonnet-5`, `claude-sonnet-5-mini`, `-fast`, `-batch`)
is *not* matched: guessing a neighbour's prices and window would be wrong money.
An unknown id gets `ModelInfo` with `known=False`, the safe default context window and no
prices, so the gauge still has a window and the cost is shown in tokens only.

Pure data and string work: no SDK import, no I/O. Prices are US dollars per million
tokens as Anthropic publishes them (platform.claude.com model pages and pricing page,
read 2026-12): input, output, 5-minute cache write (the `ephemeral` cache agent-cli
uses) and cache read. Haiku 5.5 is priced in two bands by prompt length; `long_prompt`
holds the band above its threshold. Update this table, and only this table, when
Anthropic changes a price or ships a model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

DEFAULT_CONTEXT_WINDOW = 200_000  # the smallest window of a current Claude model
# The model used when none is chosen: the current Sonnet, listed by the installed SDK and
# not on its deprecated list (tests/test_default_model.py fails when that changes).
DEFAULT_MODEL = "claude-sonnet-5-5"
# What can be a model id: what `/model <id>` accepts and the Models API's list may show.
MODEL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@/\[\]-]{0,199}")
_DATE_SUFFIX = re.compile(r"-\d{8}$")
# Bedrock's prefix before a Claude id: an ARN of a foundation model or a system-defined
# inference profile (application profiles have opaque ids), the profile's geography, and
# the provider. The geography is any short word: Bedrock adds new ones (`jp.`, `au.`).
_BEDROCK_PREFIX = re.compile(
    r"(?:arn:aws[a-z-]*:bedrock:[a-z0-9-]*:\d*:(?:foundation-model|inference-profile)/)?"
    r"(?:[a-z]{2,8}(?:-[a-z]{2,8})?\.)?anthropic\."
)
_ALIAS_TAG = re.compile(r"(?:-\d{8})?(?:-latest|\[[a-z0-9._]+\]|@[a-z0-9._-]+|:\d+|-v\d+(?::\d+)?)")


@dataclass(frozen=True)
class ModelPrices:
    """US dollars per million tokens, one figure per usage category."""

    input: float
    output: float
    cache_write: float  # 5-minute cache write
    cache_read: float


@dataclass(frozen=True)
class LongPromptPrices:
    """Prices that apply to a whole request whose prompt is over `threshold_tokens`."""

    threshold_tokens: int
    prices: ModelPrices


@dataclass(frozen=True)
class ModelInfo:
    """One row of the table; `known` is False for the fallback given to unknown ids."""

    model_id: str
    family: str  # "opus", "sonnet", "haiku", or "unknown"
    display_name: str
    context_window: int
    prices: ModelPrices | None
    long_prompt: LongPromptPrices | None = None
    known: bool = True


def _row(
    model_id: str,
    name: str,
    window: int,
    prices: tuple[float, float, float, float],
    long_prompt: LongPromptPrices | None = None,
) -> ModelInfo:
    family = model_id.split("-")[1]
    return ModelInfo(model_id, family, name, window, ModelPrices(*prices), long_prompt)


_M = 1_000_000
# (input, output, 5-minute cache write, cache read) in $ per million tokens.
MODEL_TABLE: tuple[ModelInfo, ...] = (
    _row("claude-opus-5-5", "Claude Opus 5.5", _M, (4.0, 20.0, 5.0, 0.20)),
    _row("claude-opus-5", "Claude Opus 5", _M, (5.0, 25.0, 6.25, 0.50)),
    _row("claude-opus-4-8", "Claude Opus 4.8", _M, (5.0, 25.0, 6.25, 0.50)),
    _row("claude-opus-4-7", "Claude Opus 4.7", _M, (5.0, 25.0, 6.25, 0.50)),
    _row("claude-opus-4-6", "Claude Opus 4.6", _M, (5.0, 25.0, 6.25, 0.50)),
    _row("claude-opus-4-5", "Claude Opus 4.5", 200_000, (5.0, 25.0, 6.25, 0.50)),
    # Sonnet 5.5 cache reads were cut from $0.20 to $0.10 on 2026-10-07.
    _row("claude-sonnet-5-5", "Claude Sonnet 5.5", _M, (2.0, 10.0, 2.50, 0.10)),
    _row("claude-sonnet-5", "Claude Sonnet 5", _M, (2.0, 10.0, 2.50, 0.20)),
    _row("claude-sonnet-4-6", "Claude Sonnet 4.6", _M, (3.0, 15.0, 3.75, 0.30)),
    _row(
        "claude-haiku-5-5",
        "Claude Haiku 5.5",
        _M,
        (0.10, 0.50, 0.125, 0.01),
        LongPromptPrices(100_000, ModelPrices(0.50, 2.50, 0.625, 0.05)),
    ),
    _row("claude-haiku-4-5", "Claude Haiku 4.5", 200_000, (1.0, 5.0, 1.25, 0.10)),
)
_BY_ID = {info.model_id: info for info in MODEL_TABLE}


# What a model id may hold, in words for an error that refuses one.
MODEL_ID_WORDS = "letters, digits and . _ - : @ / [ ] only, up to 200 characters"


def is_model_id(text: str) -> bool:
    """True when `text` can be a model id (`MODEL_ID`, whole)."""
    return MODEL_ID.fullmatch(text) is not None


def lookup_model(model_id: str) -> ModelInfo:
    """The table row for `model_id` (see the module contract), or the unknown fallback."""
    wanted = _without_bedrock_prefix((model_id or "").strip().lower())
    info = _BY_ID.get(wanted) or _BY_ID.get(_DATE_SUFFIX.sub("", wanted))
    if info is None:
        info = _match_alias(wanted)
    if info is None:
        return unknown_model(model_id)
    return info if info.model_id == model_id else _renamed(info, model_id)


def _without_bedrock_prefix(wanted: str) -> str:
    """`wanted` without the Bedrock ARN, geography and `anthropic.` it may start with."""
    found = _BEDROCK_PREFIX.match(wanted)
    return wanted[found.end() :] if found else wanted


def unknown_model(model_id: str) -> ModelInfo:
    """Safe defaults for an id the table does not know: the smallest window, no prices."""
    return ModelInfo(
        model_id, "unknown", model_id, DEFAULT_CONTEXT_WINDOW, prices=None, known=False
    )


def _match_alias(wanted: str) -> ModelInfo | None:
    """The longest table id that `wanted` extends with an alias tag (`_ALIAS_TAG`)."""
    best: ModelInfo | None = None
    for info in MODEL_TABLE:
        key = info.model_id
        if not wanted.startswith(key) or not _ALIAS_TAG.fullmatch(wanted, len(key)):
            continue
        if best is None or len(key) > len(best.model_id):
            best = info
    return best


def _renamed(info: ModelInfo, model_id: str) -> ModelInfo:
    """The row of the family member, under the id the user actually gave."""
    return replace(info, model_id=model_id)
