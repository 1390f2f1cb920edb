"""compact_context: run the layers cheapest first until the view fits.

Contract:
- The history is validated first, even below the threshold. Nothing given is mutated: layers build
  new dicts for what they change and share the rest.
- Below the soft threshold the view comes back as a shallow copy of the list.
- Otherwise L1 -> L2 -> L4 -> L3 run until the budget is under the low-water mark (`firing` may stop
  earlier, under the soft threshold). L4 sees the older part before L3 prunes it; L3 is the fallback
  when it fails, and once L4 saw the older part, each model answer L3 drops gets a digest line.
  Without a summarizer a `skipped_no_summarizer` report says L4 could not help. `force_summary`
  (`/compact`) runs L4 first, whatever the size.
- No layer is adopted that does not shrink the view, its digest lines included (a summary:
  `summary_not_smaller`). A summary that leaves the view at or over the hard limit is not adopted:
  the run is made again without L4 (`summary_too_large`).
- What L2, L3 or L4 removes is named in one running digest message, with pointers (`digest`); its
  size counts in every figure.
- `applied_layers` names only the layers that changed the view; `reports` keep the rest.
- At or over the hard limit after the last layer, L1 runs once more with the results sharing the
  room left, down to the floor `MIN_SHARED_RESULT_TOKENS` each (every cap measured), then L3 keeps
  only message 0 and the step the model is in (`hard_limit`); still at or over it,
  `MessageViewLimitExceeded` is raised and the request must not be sent. Its
  `largest_message_tokens` is the largest message with its results cut to that floor.

`reserved_tokens` (system prompt, tool schemas, durable state) count against both thresholds and in
every figure; the low-water mark is placed above them and the stop rule weighs the messages alone
(`CompactionPolicy.without_reserve`).
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
from agent_cli.compaction.digest.render import insert_digest, split_digest
from agent_cli.compaction.firing import CachedPrefix, is_run_finished
from agent_cli.compaction.hard_limit import fit_under_the_hard_limit, largest_message_at_floor
from agent_cli.compaction.layers.dedup import build_dedup_outcome
from agent_cli.compaction.layers.prune import build_prune_outcome
from agent_cli.compaction.layers.summary import Summarizer, build_summary_outcome
from agent_cli.compaction.layers.truncate import build_truncation_outcome
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
    build_layer_report,
)
from agent_cli.compaction.view_index import ViewIndex
from agent_cli.errors import MessageViewLimitExceeded, PolicyError
from agent_cli.image_notes import left_out_excess, view_images
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
    """The step of one layer, or None for L4 without a summarizer. `largest_result` bounds every
    tool_result of the run; `superseded`: the view's superseded reads when known; `summary_seen`: L3
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


def _run_layers(
    view: Messages,
    tokens: int,
    reserved: int,
    policy: CompactionPolicy,
    counter: TokenCounter,
    summarizer: Summarizer | None,
    force_summary: bool,
    index: ViewIndex,
) -> tuple[Messages, list[LayerReport], int]:
    """Run the layers in order (module doc) from a budget of `tokens` (view plus `reserved`),
    then, at or over the hard limit, the results sharing the room left and L3 down to the step
    (`fit_under_the_hard_limit`): the view, the reports and its budget figure. `index` has just
    measured `view`."""
    stop_policy, shift = policy.without_reserve(reserved)  # the stop rule weighs messages
    digest_policy = dataclasses.replace(policy, digest_tokens=policy.digest_budget_over(reserved))
    reports: list[LayerReport] = []
    original = CachedPrefix(view, index.message_counts())
    order = SUMMARY_FIRST_ORDER if force_summary else AUTOMATIC_ORDER
    base, facts, superseded, digest = _split_digest(view, index)
    changed = summary_seen = False
    images = index.holds_images  # (no layer adds one: a view without any skips their notes)
    excess = _notes_excess(base, counter) if images else 0
    for layer in order:
        step = _build_step(
            layer, policy, counter, summarizer, index.largest_result, superseded, summary_seen
        )
        if step is None:
            continue
        # a summary whose digest lines eat what it frees is a summary that is not smaller
        larger = SUMMARY_NOT_SMALLER if layer == 4 else NO_CHANGE
        outcome, digest = apply_step_with_digest(
            step, base, facts, digest, tokens - reserved, digest_policy, counter, larger
        )
        report = build_layer_report(layer, outcome, tokens)
        if images and outcome.outcome == APPLIED:  # which images are left out may change
            excess, shift_by = _notes_excess(outcome.messages, counter), excess
            report = dataclasses.replace(
                report, tokens_after=report.tokens_after + excess - shift_by
            )
        reports.append(report)
        tokens = reports[-1].tokens_after
        summary_seen = summary_seen or (layer == 4 and outcome.outcome in SUMMARY_SEEN)
        if outcome.outcome == APPLIED:
            base, changed = outcome.messages, True
            if layer != 1:  # L1 keeps every message where it was; the others do not
                superseded = None
            facts = build_view_facts(base, counter) if outcome.facts is None else outcome.facts
        assembled = _assembler(view, base, digest, changed, counter)
        if is_run_finished(stop_policy, tokens - shift, original, assembled):
            break
    else:
        if summarizer is None:
            skipped = LayerOutcome(base, 0, outcome=SKIPPED_NO_SUMMARIZER)
            reports.append(build_layer_report(4, skipped, tokens))
    kept = (base, facts, digest)
    view, after = fit_under_the_hard_limit(
        assembled(), kept, reserved, summary_seen, digest_policy, counter, reports, images
    )
    return view, reports, after


def _notes_excess(messages: Messages, counter: TokenCounter) -> int:
    """What the notes of the images a request of `messages` leaves out weigh beyond those
    images (`image_notes.left_out_excess`): a layer that removes or keeps images changes
    which ones are left out, so each applied layer's figure is corrected by the change."""
    return left_out_excess(view_images(messages), counter.count_text)


def _split_digest(
    view: Messages, index: ViewIndex
) -> tuple[Messages, list[MessageFacts], Mapping[str, int] | None, RunningDigest]:
    """`view` without its digest message, the facts and superseded reads of what is left (positions
    shifted past the digest), and the running digest."""
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
    """Builds the run's view, at most once: `view` itself while no step changed it, else `base` with
    the digest message put back."""
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
    """Validate the view and shrink it under the soft threshold if needed (module doc). `index`: the
    caller's index of this view, which then follows it (its counter is the run's); else a fresh one.
    """
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
    run = functools.partial(_run_layers, list(messages), tokens_before, reserved_tokens)
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
            largest_message_tokens=largest_message_at_floor(view, policy, counter),
            reserved_tokens=reserved_tokens,
        )
    return CompactionResult(
        view, durable_state, tokens_before, tokens_after, applied, tuple(reports), reserved_tokens
    )


def _has_applied(reports: Sequence[LayerReport], layer: int) -> bool:
    return any(r.layer == layer and r.outcome == APPLIED for r in reports)


def _report_summary_too_large(reports: list[LayerReport], tokens: int) -> None:
    """Record `summary_too_large` in the reports of the run made again without L4 (in place of its
    `skipped_no_summarizer` report)."""
    at = next(
        (i for i, r in enumerate(reports) if r.outcome == SKIPPED_NO_SUMMARIZER), len(reports)
    )
    before = reports[at].tokens_before if at < len(reports) else tokens
    refused = build_layer_report(4, LayerOutcome([], 0, outcome=SUMMARY_TOO_LARGE), before)
    reports[at : at + 1] = [refused]  # in place of the skipped report, else appended


def compact_if_needed(
    messages: Sequence[dict[str, Any]],
    durable_state: Any = None,
    *,
    policy: CompactionPolicy | None = None,
    summarizer: Summarizer | None = None,
    counter: TokenCounter | None = None,
    reserved_tokens: int = 0,
) -> Messages:
    """`compact_context(...).messages`."""
    return compact_context(
        messages,
        durable_state,
        policy=policy,
        summarizer=summarizer,
        counter=counter,
        reserved_tokens=reserved_tokens,
    ).messages
