"""Running one layer step so that what it removes goes into the running digest.

Contract: a run keeps its digest beside the view, never in it (`RunningDigest`): layers never see,
count or remove it. `apply_step_with_digest` runs the step on the view without its digest and merges
what it removed (`what_left`, `merge`); the outcome's saving includes the digest's change, and the
step's budget includes the digest. A step that changed nothing gives back the view itself; a step
that removed nothing keeps the same digest message (so the cached prefix stays). A removal whose
trace would cost more than it frees is not made (`larger_outcome`). The digest message is built
once, when the run hands its view back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from agent_cli.compaction.digest.entries import Digest, DigestLine, digest_from_message
from agent_cli.compaction.digest.merge import (
    FittedDigest,
    build_counted_message,
    count_digest,
    count_rendered_message,
    fit_digest,
)
from agent_cli.compaction.digest.removed_items import RequestEntry
from agent_cli.compaction.digest.render import render_digest
from agent_cli.compaction.digest.what_left import collect_removed
from agent_cli.compaction.message_facts import MessageFacts, build_view_facts
from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.compaction.results import APPLIED, NO_CHANGE, LayerOutcome
from agent_cli.tokens import MESSAGE_OVERHEAD_TOKENS, TokenCounter

Messages = list[dict[str, Any]]
Facts = list[MessageFacts]
# (view, its messages' facts, its own tokens) -> outcome
LayerStep = Callable[[Messages, Facts, int], LayerOutcome]


class RunningDigest(NamedTuple):
    """The digest between steps: the message the view came with (`given`) and, once a step merged
    into it, the fitted digest with a message holding only its text and count (`weighed`)."""

    given: dict[str, Any] | None = None
    fitted: FittedDigest | None = None
    weighed: dict[str, Any] | None = None

    @classmethod
    def merged(
        cls, given: dict[str, Any] | None, fitted: FittedDigest, counter: TokenCounter
    ) -> RunningDigest:
        text = render_digest(fitted.digest)
        weighed = counter.carry_count({"role": "user", "content": text}, text, fitted.line_tokens)
        return cls(given, fitted, weighed)

    def tokens(self, counter: TokenCounter) -> int:
        """Its tokens as every figure counts the digest message."""
        message = self.given if self.weighed is None else self.weighed
        return 0 if message is None else count_digest(message, counter)

    def message(self, counter: TokenCounter) -> dict[str, Any] | None:
        """The digest message the run's view holds, or None."""
        if self.fitted is None or self.weighed is None:
            return self.given
        return build_counted_message(self.fitted, counter, self.weighed["content"])

    def earlier(self, counter: TokenCounter) -> tuple[Digest, int | None]:
        """The digest to merge into and its budget tokens when known: this run's as merged; a given
        one parsed, its tokens known only where its text is that digest rendered."""
        if self.fitted is None or self.weighed is None:
            digest = digest_from_message(self.given)
            if self.given is None or self.given.get("content") != render_digest(digest):
                return digest, None
            return digest, _rendered_tokens(self.given, counter)
        return self.fitted.digest, _rendered_tokens(self.weighed, counter)


def _rendered_tokens(message: dict[str, Any], counter: TokenCounter) -> int:
    """Budget tokens of a digest message whose text is its digest rendered: from the count its text
    carries, else counted."""
    carried = counter.carried_count(message, message["content"])
    if carried is None:
        return count_rendered_message(message, counter)
    return MESSAGE_OVERHEAD_TOKENS + carried


def apply_step_with_digest(
    step: LayerStep,
    view: Messages,
    facts: Facts,
    digest: RunningDigest,
    view_tokens: int,
    policy: CompactionPolicy,
    counter: TokenCounter,
    larger_outcome: str = NO_CHANGE,
) -> tuple[LayerOutcome, RunningDigest]:
    """Run `step` on `view` (facts `facts`) and merge what it removed into `digest` (module doc);
    the outcome carries its view's facts."""
    digest_tokens = digest.tokens(counter)
    outcome = step(view, facts, view_tokens - digest_tokens)
    if outcome.outcome != APPLIED:
        return dataclasses.replace(outcome, messages=view, facts=facts, tokens_saved=0), digest
    requests, interactions = _removed_by(outcome, view, facts)
    saved = outcome.tokens_saved  # a view's count is the sum of its messages' counts
    merged = digest
    if requests or interactions:
        earlier, rendered = digest.earlier(counter)
        fitted = fit_digest(
            earlier,
            requests,
            interactions,
            policy.digest_tokens,
            counter,
            rendered,
            secrets=policy.secret_forms,
        )
        merged = RunningDigest.merged(digest.given, fitted, counter)
        saved += digest_tokens - merged.tokens(counter)
        if saved <= 0:  # its trace costs more than it frees
            return LayerOutcome(view, 0, outcome=larger_outcome, facts=facts), digest
    after_facts = outcome.facts
    if after_facts is None:  # (L4's new view: its few messages' facts are built here)
        after_facts = build_view_facts(outcome.messages, counter)
    return dataclasses.replace(outcome, tokens_saved=saved, facts=after_facts), merged


def _removed_by(
    outcome: LayerOutcome, base: Messages, facts: Facts
) -> tuple[Sequence[RequestEntry], Sequence[DigestLine]]:
    """What the step took out of `base`: as the layer reports it, else found by comparing the views."""
    if outcome.removed is not None:
        return outcome.removed
    if outcome.messages_removed or outcome.removed_tool_use_ids:
        return collect_removed(base, outcome.messages, facts)
    return [], []
