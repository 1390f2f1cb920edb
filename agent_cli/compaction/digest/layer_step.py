"""Running one layer step so that what it removes leaves a trace in the running digest.

Contract: `apply_step_with_digest(step, view, facts, view_tokens, policy, counter)` takes the
digest message out of `view`, runs the layer on the rest (layers never see, count or
remove the digest), adds what the layer removed to the digest (`what_left`, `merge`) and
puts it back. The outcome's view and saving include the digest, so every figure counts
it. A step that changed nothing gives back `view` itself; a step that removed nothing
keeps the digest message as it was (the same object, so the cached prefix is not
disturbed by a re-rendered digest). A removal whose trace would cost more tokens than it
frees is not made (its outcome is `larger_outcome`, `no_change` unless the caller names
another, as the summary does): compaction never grows the view to remove something. A
layer says what it removed (`messages_removed`, `removed_tool_use_ids`); a step that
removed neither is not compared with the view it came from.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from agent_cli.compaction.digest.entries import Digest, digest_from_message
from agent_cli.compaction.digest.merge import (
    build_counted_message,
    count_digest,
    count_rendered_message,
    fit_digest,
)
from agent_cli.compaction.digest.removed_items import RemovedInteraction, RemovedRequest
from agent_cli.compaction.digest.render import insert_digest, split_digest
from agent_cli.compaction.digest.what_left import collect_removed
from agent_cli.compaction.message_facts import MessageFacts, build_message_facts, build_view_facts
from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.compaction.results import APPLIED, NO_CHANGE, LayerOutcome
from agent_cli.tokens import MESSAGE_OVERHEAD_TOKENS, TokenCounter

Messages = list[dict[str, Any]]
Facts = list[MessageFacts]
# (view, its messages' facts, its own tokens) -> outcome
LayerStep = Callable[[Messages, Facts, int], LayerOutcome]


def apply_step_with_digest(
    step: LayerStep,
    view: Messages,
    facts: Facts,
    view_tokens: int,
    policy: CompactionPolicy,
    counter: TokenCounter,
    *,
    larger_outcome: str = NO_CHANGE,
) -> LayerOutcome:
    """Run `step` on `view` minus its digest and merge what it removed (module doc).
    `facts` are those of each message of `view`; the outcome carries those of its view."""
    base, digest_message = split_digest(view)
    base_facts, digest_facts = facts, None
    if digest_message is not None:
        at = 0 if view[0] is digest_message else 1
        base_facts, digest_facts = [*facts[:at], *facts[at + 1 :]], facts[at]
    digest_tokens = count_digest(digest_message, counter) if digest_message else 0
    outcome = step(base, base_facts, view_tokens - digest_tokens)
    if outcome.outcome != APPLIED:
        return dataclasses.replace(outcome, messages=view, facts=facts, tokens_saved=0)
    requests, interactions = _removed_by(outcome, base, base_facts)
    saved = outcome.tokens_saved  # a view's count is the sum of its messages' counts
    if requests or interactions:
        earlier, rendered = _earlier_digest(digest_message, digest_facts, counter)
        fitted = fit_digest(
            earlier,
            requests,
            interactions,
            policy.digest_tokens,
            counter,
            rendered,
            secrets=policy.secret_forms,
        )
        digest_message = build_counted_message(fitted, counter)
        # the next step of this run takes the digest as built, not parsed again
        digest_facts = build_message_facts(digest_message, counter)._replace(digest=fitted.digest)
        saved += digest_tokens - count_digest(digest_message, counter)
        if saved <= 0:  # its trace costs more than it frees
            return LayerOutcome(view, 0, outcome=larger_outcome, facts=facts)
    after = insert_digest(outcome.messages, digest_message)
    after_facts = outcome.facts
    if after_facts is None:  # (L4's new view: its few messages' facts are built here)
        after_facts = build_view_facts(outcome.messages, counter)
    if digest_message is not None and digest_facts is not None:
        at = 0 if after[0] is digest_message else 1
        after_facts = [*after_facts[:at], digest_facts, *after_facts[at:]]
    return dataclasses.replace(outcome, messages=after, tokens_saved=saved, facts=after_facts)


def _earlier_digest(
    message: dict[str, Any] | None, facts: MessageFacts | None, counter: TokenCounter
) -> tuple[Digest, int | None]:
    """The digest `message` holds, and its tokens as the budget counts them when known.
    One built by an earlier step of this run (its `facts` carry it) is taken as built,
    with the count its message carries (its lines', `build_counted_message`; counted off
    its text when that count is refused); one from before the run is parsed, and the
    merge renders its entries to count them (its text may have been written otherwise:
    a resumed view)."""
    known = None if facts is None else facts.digest
    if known is None or message is None:
        return digest_from_message(message), None
    carried = counter.carried_count(message, message.get("content"))
    if carried is None:
        return known, count_rendered_message(message, counter)
    return known, MESSAGE_OVERHEAD_TOKENS + carried


def _removed_by(
    outcome: LayerOutcome, base: Messages, facts: Facts
) -> tuple[list[RemovedRequest], list[RemovedInteraction]]:
    """What the step took out of `base` (whose messages' facts are `facts`): as the layer
    reports it, else found by comparing the views when it removed any (module doc)."""
    if outcome.removed is not None:
        return outcome.removed
    if outcome.messages_removed or outcome.removed_tool_use_ids:
        return collect_removed(base, outcome.messages, facts)
    return [], []
