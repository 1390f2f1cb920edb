"""What compaction returns: one report per layer and the overall result.

Token figures are budget figures: the view plus the caller's `reserved_tokens`, comparable with the
policy's thresholds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_cli.compaction.digest.entries import DigestLine
from agent_cli.compaction.digest.removed_items import RequestEntry
from agent_cli.compaction.message_facts import MessageFacts
from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.compaction_layers import layer_numbered
from agent_cli.protocol import validate_tool_protocol
from agent_cli.tokens import TokenCounter, default_counter

# Layer outcome codes, so the REPL and the session can say what happened and why.
APPLIED = "applied"  # the layer changed the view
NO_CHANGE = "no_change"  # nothing for this layer to do
SKIPPED_NO_SUMMARIZER = "skipped_no_summarizer"  # L4 was needed but no summarizer was given
NOTHING_TO_SUMMARIZE = "nothing_to_summarize"  # the recent window covers the whole view
# before the recent window: only the previous summary (and its acknowledgement)
NOTHING_NEW_TO_SUMMARIZE = "nothing_new_to_summarize"
SUMMARY_FAILED = "summary_failed"  # the summarizer raised
SUMMARY_BLANK = "summary_blank"  # the summarizer returned no text
SUMMARY_NOT_UNICODE = "summary_not_unicode"  # its text held a lone surrogate: no request carries it
SUMMARY_NOT_SMALLER = "summary_not_smaller"  # the summarized view would not be smaller
SUMMARY_TOO_LARGE = "summary_too_large"  # the summarized view stayed over the hard limit


@dataclass(frozen=True)
class LayerOutcome:
    """What one layer did to a view (internal)."""

    messages: list[dict[str, Any]]
    tokens_saved: int
    removed_tool_use_ids: tuple[str, ...] = ()
    messages_removed: int = 0
    results_truncated: int = 0
    outcome: str = APPLIED
    # (requests, lines) that left, when the layer knows them; None: found by comparing
    removed: tuple[list[RequestEntry], Sequence[DigestLine]] | None = None
    # the facts of each of `messages`, when the layer knows them
    facts: list[MessageFacts] | None = None
    # what the summarizer raised (`SUMMARY_FAILED`): its cause, for the caller to word
    failure: Exception | None = field(default=None, compare=False)


@dataclass(frozen=True)
class LayerReport:
    """One layer's run. `messages_removed` counts input messages dropped or folded into a summary;
    `removed_tool_use_ids` the interactions that left (both halves); `failure` what the summarizer
    raised when L4 failed (`SUMMARY_FAILED`), so the caller can say why."""

    name: str
    layer: int
    tokens_before: int
    tokens_after: int
    interactions_removed: int
    messages_removed: int
    results_truncated: int
    removed_tool_use_ids: tuple[str, ...] = ()
    outcome: str = APPLIED
    failure: Exception | None = field(default=None, compare=False)

    @property
    def tokens_saved(self) -> int:
        return self.tokens_before - self.tokens_after


def build_layer_report(layer: int, outcome: LayerOutcome, tokens_before: int) -> LayerReport:
    """The report of `outcome`, layer `layer`, run from a budget of `tokens_before`."""
    return LayerReport(
        name=layer_numbered(layer).function,
        layer=layer,
        tokens_before=tokens_before,
        tokens_after=tokens_before - outcome.tokens_saved,
        interactions_removed=len(outcome.removed_tool_use_ids),
        messages_removed=outcome.messages_removed,
        results_truncated=outcome.results_truncated,
        removed_tool_use_ids=outcome.removed_tool_use_ids,
        outcome=outcome.outcome,
        failure=outcome.failure,
    )


@dataclass(frozen=True)
class CompactionResult:
    """The compacted view, the very `durable_state` passed in, and how the view got there:
    `applied_layers` in order, one report per layer that ran (plus `skipped_no_summarizer` when L4
    was needed but could not run)."""

    messages: list[dict[str, Any]]
    durable_state: Any
    tokens_before: int
    tokens_after: int
    applied_layers: tuple[str, ...]
    reports: tuple[LayerReport, ...]
    reserved_tokens: int = 0

    @property
    def is_compacted(self) -> bool:
        return bool(self.applied_layers)


def run_layer_alone(
    build: Callable[[Sequence[dict[str, Any]], CompactionPolicy, TokenCounter], LayerOutcome],
    messages: Sequence[dict[str, Any]],
    policy: CompactionPolicy | None,
    counter: TokenCounter | None,
) -> tuple[list[dict[str, Any]], int]:
    """A public layer function: validate `messages` (ToolProtocolError), run `build` with the
    default policy and counter where none is given; (new view, tokens saved)."""
    validate_tool_protocol(messages)
    outcome = build(messages, policy or CompactionPolicy(), counter or default_counter())
    return outcome.messages, outcome.tokens_saved


def measure_savings(
    before: Sequence[dict[str, Any]],
    after: Sequence[dict[str, Any]],
    counter: TokenCounter,
    before_tokens: int | None = None,
) -> int:
    """Tokens of `before` minus tokens of `after`, counting only the messages that differ by
    identity (as a multiset); `before_tokens`: the count of `before`, when known."""
    if before_tokens is not None and len(after) * 4 < len(before):
        return before_tokens - counter.count_messages(after)
    before_ids, after_ids = set(map(id, before)), set(map(id, after))
    if len(before_ids) < len(before) or len(after_ids) < len(after):
        return _measure_with_repeats(before, after, counter)
    gone = [message for message in before if id(message) not in after_ids]
    came = [message for message in after if id(message) not in before_ids]
    return counter.count_messages(gone) - counter.count_messages(came)


def _measure_with_repeats(
    before: Sequence[dict[str, Any]], after: Sequence[dict[str, Any]], counter: TokenCounter
) -> int:
    balance = Counter(map(id, before))
    balance.subtract(Counter(map(id, after)))
    by_id = {id(message): message for message in (*before, *after)}
    return sum(counter.count_message(by_id[key]) * times for key, times in balance.items() if times)
