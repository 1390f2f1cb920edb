"""Running one layer step so that what it removes leaves a trace in the running digest.

Contract: a compaction run keeps its digest beside the view, never in it, from its first
step to its last (`RunningDigest`: the digest message the view came with, and the digest
this run's steps merged): layers never see, count or remove it.
`apply_step_with_digest(step, view, facts, digest, view_tokens, policy, counter)` runs the
layer on `view` (without its digest) and adds what the layer removed to the digest
(`what_left`, `merge`). The outcome's saving includes the digest's change, so every figure
counts it; `view_tokens` and the step's budget include the digest too. A step that changed
nothing gives back `view` itself; a step that removed nothing keeps the digest as it was
(the same message, so the cached prefix is not disturbed by a re-rendered digest). A
removal whose trace would cost more tokens than it frees is not made (its outcome is
`larger_outcome`, `no_change` unless the caller names another, as the summary does):
compaction never grows the view to remove something. A layer says what it removed
(`messages_removed`, `removed_tool_use_ids`); a step that removed neither is not compared
with the view it came from. The digest message is built once, when the run hands its
view back (`RunningDigest.message`); between steps it is weighed from its text alone.
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
    """The digest of a run between its steps (module doc): the digest message the view came
    with (`given`, None without one) and, once a step of this run added to it, the merged
    digest (`fitted`) with a message holding only its text and count (`weighed`), which
    counts what the full message counts."""

    given: dict[str, Any] | None = None
    fitted: FittedDigest | None = None
    weighed: dict[str, Any] | None = None

    @classmethod
    def merged(
        cls, given: dict[str, Any] | None, fitted: FittedDigest, counter: TokenCounter
    ) -> RunningDigest:
        """The running digest once a step merged `fitted` into it."""
        text = render_digest(fitted.digest)
        weighed = counter.carry_count({"role": "user", "content": text}, text, fitted.line_tokens)
        return cls(given, fitted, weighed)

    def tokens(self, counter: TokenCounter) -> int:
        """Its tokens as every figure counts the digest message (`count_digest`)."""
        message = self.given if self.weighed is None else self.weighed
        return 0 if message is None else count_digest(message, counter)

    def message(self, counter: TokenCounter) -> dict[str, Any] | None:
        """The digest message the run's view holds (None when there is none)."""
        if self.fitted is None or self.weighed is None:
            return self.given
        return build_counted_message(self.fitted, counter, self.weighed["content"])

    def earlier(self, counter: TokenCounter) -> tuple[Digest, int | None]:
        """The digest to merge into, and its tokens as the budget counts them when known:
        one merged by this run is taken as merged; one from before the run is parsed, and
        counted the same way where its text is the parsed digest rendered (a merge wrote
        it), else None and the merge renders its entries to count them (its text may have
        been written otherwise: a resumed view)."""
        if self.fitted is None or self.weighed is None:
            given, digest = self.given, digest_from_message(self.given)
            text = None if given is None else given.get("content")
            if given is None or not isinstance(text, str) or text != render_digest(digest):
                return digest, None
            return digest, _rendered_tokens(given, counter)
        return self.fitted.digest, _rendered_tokens(self.weighed, counter)


def _rendered_tokens(message: dict[str, Any], counter: TokenCounter) -> int:
    """Tokens of a digest message whose text is its digest rendered, as the budget counts
    them: its lines' count, which its text carries (`build_counted_message`), else counted
    off its text."""
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
    *,
    larger_outcome: str = NO_CHANGE,
) -> tuple[LayerOutcome, RunningDigest]:
    """Run `step` on `view` (whose messages' facts are `facts`) and merge what it removed
    into `digest` (module doc); the outcome carries the facts of its view."""
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
    """What the step took out of `base` (whose messages' facts are `facts`): as the layer
    reports it, else found by comparing the views when it removed any (module doc)."""
    if outcome.removed is not None:
        return outcome.removed
    if outcome.messages_removed or outcome.removed_tool_use_ids:
        return collect_removed(base, outcome.messages, facts)
    return [], []
