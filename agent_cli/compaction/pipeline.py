"""compact_context: run the layers cheapest first until the view fits.

Contract:
- The history is validated first, even below the threshold; nothing given is mutated
  (not the list, the dicts or the nested blocks): layers build new dicts for what they
  change and share the rest, which is safe because no part of the core mutates a message.
- Below the soft threshold the check returns at once with a shallow copy of the list: no
  deep copy, no re-tokenizing of what the caller's `ViewIndex` followed (`view_index`).
- Otherwise L1 -> L2 -> L4 -> L3 run in that order until the budget is under the policy's
  low-water mark, so a firing buys room for many turns (`firing`: it may stop earlier,
  under the soft threshold, where the layers so far rewrote little of the prompt cache).
  The summary (when there is a summarizer) sees the older part before L3 prunes it, and
  L3 is the fallback when it fails. Once L4 has seen the older part in a run (it
  summarized it, or found nothing new to summarize), what L3 then drops lies after what
  any summary saw, so each answer of the model's among it gets a digest line as well
  (`prune.answer_entries`). Without a summarizer a `skipped_no_summarizer` report says
  L4 could not help. `force_summary` (`/compact`) runs L4 first, whatever the size,
  then the others as needed. No layer is adopted that does not shrink the view, the digest
  lines it adds included: a summary that is not smaller is reported `summary_not_smaller`
  (also for `/compact`, which must never make the context bigger).
- Whatever L2, L3 or L4 removes is named in one running digest message in the view, with
  pointers back to the transcript (`digest.layer_step`, `digest.merge`); its size counts
  in every figure.
- `applied_layers` names only the layers that changed the view; `reports` keep the rest.
- A summary after which the view is still at or over the hard limit (a long summary
  is message 0 of what L3 keeps) is not adopted: the run is made again without L4,
  whose report says `summary_too_large`, so L3 can bring the view under the limit.
- At or over the hard limit after the last layer, L1 runs once more with the tool results
  sharing the room left (many results each under the per-result budget can together be
  over the limit, and L3 keeps the interaction the model is in). Still at or over it,
  `MessageViewLimitExceeded` is raised (token figures, layer names and the largest
  message left) and the caller must not send the request.

`reserved_tokens` are tokens outside the message view that the request will also carry
(system prompt, tool schemas, rendered durable state): they count against both thresholds
and are included in every token figure reported. The low-water mark is placed above them
(`CompactionPolicy.low_water_mark_over`: a mark under the reserve could never be reached),
and the stop rule weighs the messages alone (`CompactionPolicy.without_reserve`, which
moves the thresholds and that mark down by the reserve): no layer rewrites the reserve.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agent_cli.compaction.digest.layer_step import (
    LayerStep,
    RunningDigest,
    apply_step_with_digest,
)
from agent_cli.compaction.digest.merge import count_digest
from agent_cli.compaction.digest.render import insert_digest, split_digest
from agent_cli.compaction.firing import CachedPrefix, is_run_finished
from agent_cli.compaction.layers.dedup import build_dedup_outcome
from agent_cli.compaction.layers.prune import build_prune_outcome
from agent_cli.compaction.layers.summary import Summarizer, build_summary_outcome
from agent_cli.compaction.layers.truncate import build_shared_truncation, build_truncation_outcome
from agent_cli.compaction.markers import is_digest_message
from agent_cli.compaction.message_facts import MessageFacts, build_view_facts
from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.compaction.results import (
    APPLIED,
    NO_CHANGE,
    NOTHING_NEW_TO_SUMMARIZE,
    NOTHING_TO_SUMMARIZE,
    SKIPPED_NO_SUMMARIZER,
    SUMMARY_NOT_SMALLER,
    SUMMARY_TOO_LARGE,
    CompactionResult,
    LayerOutcome,
    LayerReport,
)
from agent_cli.compaction.view_index import ViewIndex
from agent_cli.compaction_layers import layer_numbered
from agent_cli.errors import MessageViewLimitExceeded, PolicyError
from agent_cli.protocol import validate_tool_protocol
from agent_cli.tokens import TokenCounter, default_counter

Messages = list[dict[str, Any]]

SUMMARY_SEEN = (APPLIED, NOTHING_NEW_TO_SUMMARIZE, NOTHING_TO_SUMMARIZE)  # L4 saw the older part
AUTOMATIC_ORDER = (1, 2, 4, 3)  # the summary sees the older part before L3 prunes it
SUMMARY_FIRST_ORDER = (4, 1, 2, 3)  # `force_summary`: summarize whatever the size


def _build_step(
    layer: int,
    policy: CompactionPolicy,
    counter: TokenCounter,
    summarizer: Summarizer | None,
    largest_result: int,
    superseded: Mapping[str, int] | None,
    summary_seen: bool = False,
) -> LayerStep | None:
    """The step of one layer; None where L4 cannot run (no summarizer). `largest_result`
    bounds every tool_result of the run: no layer adds one or makes one larger;
    `superseded`: the reads a later read supersedes in the view the step is given, when
    known (`ViewIndex.superseded_reads`); `summary_seen`: L4 saw the older part, so L3
    names the answers it drops."""
    if layer == 1:
        return lambda view, facts, _: build_truncation_outcome(
            view, policy, counter, facts, largest_result
        )
    if layer == 2:
        return lambda view, facts, _: build_dedup_outcome(view, policy, counter, facts, superseded)
    if layer == 3:
        return lambda view, facts, tokens: build_prune_outcome(
            view, policy, counter, tokens, facts, name_answers=summary_seen
        )
    if summarizer is None:
        return None
    return lambda view, _, tokens: build_summary_outcome(view, summarizer, policy, counter, tokens)


def _build_report(layer: int, outcome: LayerOutcome, tokens_before: int) -> LayerReport:
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
    )


def _run_layers(
    view: Messages,
    tokens: int,
    reserved: int,
    policy: CompactionPolicy,
    counter: TokenCounter,
    summarizer: Summarizer | None,
    force_summary: bool,
    index: ViewIndex,
) -> tuple[Messages, list[LayerReport]]:
    """Run the layers in order (module doc) from a budget of `tokens` (view plus
    `reserved`). `index` has just measured `view`: its facts travel with the view from
    step to step."""
    stop_policy, shift = policy.without_reserve(reserved)  # the stop rule weighs messages
    digest_policy = dataclasses.replace(policy, digest_tokens=policy.digest_budget_over(reserved))
    reports: list[LayerReport] = []
    original = CachedPrefix(view, index.message_counts())
    order = SUMMARY_FIRST_ORDER if force_summary else AUTOMATIC_ORDER
    base, facts, known_reads, digest = _split_digest(view, index)
    superseded: Mapping[str, int] | None = known_reads
    changed = summary_seen = False
    for layer in order:
        step = _build_step(
            layer, policy, counter, summarizer, index.largest_result, superseded, summary_seen
        )
        if step is None:
            continue
        # a summary whose digest lines eat what it frees is a summary that is not smaller
        larger = SUMMARY_NOT_SMALLER if layer == 4 else NO_CHANGE
        outcome, digest = apply_step_with_digest(
            step,
            base,
            facts,
            digest,
            tokens - reserved,
            digest_policy,
            counter,
            larger_outcome=larger,
        )
        reports.append(_build_report(layer, outcome, tokens))
        tokens = reports[-1].tokens_after
        summary_seen = summary_seen or (layer == 4 and outcome.outcome in SUMMARY_SEEN)
        if outcome.outcome == APPLIED:
            base, changed = outcome.messages, True
            if layer != 1:  # L1 keeps every message where it was; the others do not
                superseded = None
            facts = build_view_facts(base, counter) if outcome.facts is None else outcome.facts
        assembled = _assembler(view, base, digest, changed, counter)
        if is_run_finished(stop_policy, tokens - shift, original, assembled):
            return assembled(), reports
    if summarizer is None:
        skipped = LayerOutcome(base, 0, outcome=SKIPPED_NO_SUMMARIZER)
        reports.append(_build_report(4, skipped, tokens))
    return _assembler(view, base, digest, changed, counter)(), reports


def _split_digest(
    view: Messages, index: ViewIndex
) -> tuple[Messages, list[MessageFacts], Mapping[str, int], RunningDigest]:
    """`view` (which `index` measured last) without its digest message; the facts of what
    is left and its superseded reads (by position, `ViewIndex.superseded_reads`); and the
    running digest that starts from that message (`layer_step`)."""
    base, given = split_digest(view)
    facts, superseded = index.facts(), index.superseded_reads
    if given is not None:  # (the digest holds no call)
        at = 0 if view[0] is given else 1
        facts = [*facts[:at], *facts[at + 1 :]]
        superseded = {tool_id: where - (where > at) for tool_id, where in superseded.items()}
    return base, facts, superseded, RunningDigest(given)


def _assembler(
    view: Messages, base: Messages, digest: RunningDigest, changed: bool, counter: TokenCounter
) -> Callable[[], Messages]:
    """What builds the run's view so far, once however often it is called: `view` itself
    while no step changed it, else `base` with the digest message put back
    (`render.insert_digest`)."""
    if not changed:
        return lambda: view
    return functools.cache(lambda: insert_digest(base, digest.message(counter)))


def compact_context(
    messages: Sequence[dict[str, Any]],
    durable_state: Any = None,
    *,
    policy: CompactionPolicy | None = None,
    summarizer: Summarizer | None = None,
    counter: TokenCounter | None = None,
    reserved_tokens: int = 0,
    force_summary: bool = False,
    index: ViewIndex | None = None,
) -> CompactionResult:
    """Validate the view and shrink it under the soft threshold if needed (module doc).
    `index`: the caller's index of this view (`view_index`), which then follows it; else
    the view is indexed for this call alone. Its counter is the run's."""
    policy = CompactionPolicy() if policy is None else policy
    if index is None:
        index = ViewIndex(default_counter() if counter is None else counter)
    counter = index.counter
    if type(reserved_tokens) is not int or reserved_tokens < 0:
        raise PolicyError("reserved_tokens", "must be a non-negative integer")
    tokens_before = index.measure(messages, policy) + reserved_tokens
    if tokens_before < policy.soft_threshold:
        return CompactionResult(
            list(messages), durable_state, tokens_before, tokens_before, (), (), reserved_tokens
        )
    run = functools.partial(_run_to_the_end, list(messages), tokens_before, reserved_tokens)
    view, reports, tokens_after = run(policy, counter, summarizer, force_summary, index)
    if tokens_after >= policy.hard_limit and _has_applied(reports, 4):
        view, reports, tokens_after = run(policy, counter, None, False, index)
        _report_summary_too_large(reports, tokens_after)
    applied = tuple(report.name for report in reports if report.outcome == APPLIED)
    if tokens_after >= policy.hard_limit:
        raise MessageViewLimitExceeded(
            tokens_before=tokens_before,
            tokens_after=tokens_after,
            hard_limit=policy.hard_limit,
            applied_layers=applied,
            reports=tuple(reports),
            largest_message_tokens=max(map(counter.count_message, view), default=0),
            reserved_tokens=reserved_tokens,
        )
    return CompactionResult(
        view, durable_state, tokens_before, tokens_after, applied, tuple(reports), reserved_tokens
    )


def _run_to_the_end(
    view: Messages,
    tokens: int,
    reserved: int,
    policy: CompactionPolicy,
    counter: TokenCounter,
    summarizer: Summarizer | None,
    force_summary: bool,
    index: ViewIndex,
) -> tuple[Messages, list[LayerReport], int]:
    """The layers (`_run_layers`), then, at or over the hard limit, the results sharing
    the room left (`_share_the_room`): the view, the reports and its budget figure."""
    view, reports = _run_layers(
        view, tokens, reserved, policy, counter, summarizer, force_summary, index
    )
    after = measure_output(view, counter) + reserved
    if after >= policy.hard_limit:
        view, after = _share_the_room(view, after, reserved, policy, counter, reports)
    return view, reports, after


def _has_applied(reports: Sequence[LayerReport], layer: int) -> bool:
    return any(r.layer == layer and r.outcome == APPLIED for r in reports)


def _report_summary_too_large(reports: list[LayerReport], tokens: int) -> None:
    """Say in the reports of a run made again without the summarizer why L4 did not run:
    its summary left the view at or over the hard limit (module doc)."""
    refused = LayerOutcome([], 0, outcome=SUMMARY_TOO_LARGE)
    skipped = [i for i, r in enumerate(reports) if r.outcome == SKIPPED_NO_SUMMARIZER]
    report = _build_report(4, refused, reports[skipped[0]].tokens_before if skipped else tokens)
    if skipped:
        reports[skipped[0]] = report
    else:
        reports.append(report)


def _share_the_room(
    view: Messages,
    tokens: int,
    reserved: int,
    policy: CompactionPolicy,
    counter: TokenCounter,
    reports: list[LayerReport],
) -> tuple[Messages, int]:
    """Before blocking: L1 again with the tool results sharing the room
    (`build_shared_truncation`), aiming at the run's low-water mark, else just under the
    hard limit. Appends its L1 report when it brings the view under the hard limit; else
    the view is kept."""
    for target in (policy.low_water_mark_over(reserved), policy.hard_limit - 1):
        outcome = build_shared_truncation(view, policy, counter, tokens, target)
        if outcome.outcome != APPLIED:
            continue
        after = measure_output(outcome.messages, counter) + reserved
        if after < policy.hard_limit:
            shared = dataclasses.replace(outcome, tokens_saved=tokens - after)
            reports.append(_build_report(1, shared, tokens))
            return outcome.messages, after
    return view, tokens


def measure_output(view: Sequence[dict[str, Any]], counter: TokenCounter) -> int:
    """Validate a view the layers made and return its tokens (the digest message by the
    count it carries: `count_digest`, which keeps it out of the counter's memo). Not
    indexed: the owner of the view indexes what it adopts."""
    validate_tool_protocol(view)
    return sum(
        count_digest(message, counter)
        if is_digest_message(message)
        else counter.count_message(message)
        for message in view
    )


def compact_if_needed(
    messages: Sequence[dict[str, Any]],
    durable_state: Any = None,
    *,
    policy: CompactionPolicy | None = None,
    summarizer: Summarizer | None = None,
    counter: TokenCounter | None = None,
    reserved_tokens: int = 0,
) -> Messages:
    """compact_context for callers that only want the messages."""
    return compact_context(
        messages,
        durable_state,
        policy=policy,
        summarizer=summarizer,
        counter=counter,
        reserved_tokens=reserved_tokens,
    ).messages
