"""The session's compaction step, run before every request and by `/compact`.

Contract: `compact_view` compacts `session.view` against the calibrated policy (forced,
i.e. `/compact [focus]`: the summary runs first, whatever the size, with the focus in its
instructions, then a soft threshold low enough that something goes; while the loop guard
holds: only the hard limit), records the compaction before adopting its view (write-ahead: a store error
propagates and the uncompacted view is never sent), and yields what the REPL shows:
notices for failed layers, one `CompactionFired` with a line per layer that fired, or a
`CompactionSkipped` saying why nothing was done. `MessageViewLimitExceeded` propagates,
after the notices of the layers that failed (a summary that failed says so).
Every token figure it yields is in request tokens (calibrated). An explicit low-water mark
at or under the reserved tokens is replaced by the default one
(`CompactionPolicy.low_water_mark_over`); a notice says so once per session.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from agent_cli.compaction import CompactionPolicy, compact_context, count_view
from agent_cli.compaction.firing import find_first_change
from agent_cli.compaction.policy import with_thresholds
from agent_cli.compaction.results import APPLIED
from agent_cli.errors import MessageViewLimitExceeded
from agent_cli.events import (
    CompactionFired,
    CompactionRecord,
    CompactionSkipped,
    LayerLine,
    Notice,
    SessionEvent,
)
from agent_cli.provider.summary_reuse import CachedPrefix
from agent_cli.session import describe
from agent_cli.session.budget import calibrated_policy, to_request_tokens

if TYPE_CHECKING:
    from agent_cli.session.core import Session

MIN_FORCED_SOFT = 256


def compact_view(
    session: Session, reserved: int, *, forced: bool, focus: str | None
) -> Iterator[SessionEvent]:
    """Compact the session's view if needed (or `forced`); see the module contract."""
    policy = calibrated_policy(session.policy, session.calibration)
    tokens = reserved + count_view(session.view, session.counter, session.policy)
    yield from _unreachable_low_water_notice(session, policy, reserved)
    if forced:
        policy = _forced_policy(policy, tokens)
    elif tokens >= policy.soft_threshold and session.guard.is_holding(
        tokens, policy.soft_threshold, policy.hard_limit
    ):
        policy = _guarded_policy(policy)  # said once, when the guard began to hold
    summarizer = None
    if forced or tokens >= policy.soft_threshold:  # below it no layer runs: skip the set-up
        summarizer = session.provider.build_summarizer(focus)
        offer_cached_prefix(session, summarizer)
    try:
        result = compact_context(
            session.view,
            session.durable_state,
            policy=policy,
            summarizer=summarizer,
            counter=session.counter,
            reserved_tokens=reserved,
            force_summary=forced,
        )
    except MessageViewLimitExceeded as blocked:  # say first why the layers could not help
        yield from describe.failed_layer_notices(blocked.reports)
        raise
    finally:  # a summary request was paid for even if the view still cannot fit
        session.log.append_summary_usage(getattr(summarizer, "reported_usage", ()))
    yield from describe.failed_layer_notices(result.reports)
    fired = [r for r in result.reports if r.outcome == APPLIED]
    if fired:
        yield from _adopt(session, result, fired, policy, forced, focus)
    elif forced:
        yield CompactionSkipped("nothing_to_compact", _shown(session, tokens))
    elif describe.has_failed_layer(result.reports) and session.guard.note_compaction(
        tokens, tokens, policy.soft_threshold
    ):  # else each request pays a futile L4
        yield CompactionSkipped("loop_guard", _shown(session, tokens))


def offer_cached_prefix(session: Session, summarizer: Any) -> None:
    """Let a model summarizer reuse what the last request wrote to the prompt cache, when
    the view still starts with that request's messages (`provider.summary_reuse`)."""
    offer = getattr(summarizer, "use_cached_prefix", None)
    if offer is None:
        return
    sent, view = session.sent_view, session.view
    cached = len(sent) if sent and find_first_change(sent, view) == len(sent) else 0
    tools = tuple(session.toolbox.schemas())
    instructions = session.project_instructions.text
    offer(CachedPrefix(session.system_prompt, tools, tuple(view), cached, instructions))


def _unreachable_low_water_notice(
    session: Session, policy: CompactionPolicy, reserved: int
) -> Iterator[SessionEvent]:
    """Say once per session that an explicit low-water mark at or under the reserved
    tokens is replaced by the default mark (`CompactionPolicy.low_water_mark_over`)."""
    if session.low_water_noticed or not policy.is_low_water_unreachable(reserved):
        return
    session.low_water_noticed = True
    low, fixed = _shown(session, policy.low_water or 0), _shown(session, reserved)
    aim = _shown(session, policy.low_water_mark_over(reserved))
    yield Notice(
        "warning",
        "low_water_under_reserve",
        f"The low-water mark ({low:,} tokens) is not above what every request carries "
        f"besides the conversation ({fixed:,} tokens: system prompt, tool schemas, durable "
        f"block), so compaction could never get under it. Compacting down to {aim:,} "
        f"instead, halfway to the soft threshold; set --low-water (config low_water) "
        f"above {fixed:,} to choose the mark.",
    )


def _shown(session: Session, tokens: int) -> int:
    return to_request_tokens(tokens, session.calibration)


def _adopt(
    session: Session,
    result: Any,
    fired: list[Any],
    policy: CompactionPolicy,
    forced: bool,
    focus: str | None,
) -> Iterator[SessionEvent]:
    entry = CompactionRecord(
        at=session.clock().isoformat(),
        layers=tuple(f"L{r.layer}" for r in fired),
        tokens_before=_shown(session, result.tokens_before),
        tokens_after=_shown(session, result.tokens_after),
        forced=forced,
    )
    removed = [i for r in fired for i in r.removed_tool_use_ids]
    # write-ahead; a StoreError propagates: the uncompacted view must not be sent
    session.conversation.adopt_compaction(entry, removed, result.messages)
    held = not forced and session.guard.note_compaction(
        result.tokens_before, result.tokens_after, policy.soft_threshold
    )
    yield CompactionFired(
        tuple(_layer_line(session, r) for r in fired),
        entry.tokens_before,
        entry.tokens_after,
        session.policy.soft_threshold,
        session.policy.hard_limit,
        forced=forced,
        focus=" ".join((focus or "").split()) or None,
    )
    if held:
        yield CompactionSkipped("loop_guard", entry.tokens_after)


def _layer_line(session: Session, report: Any) -> LayerLine:
    code = f"L{report.layer}"
    return LayerLine(
        layer=code,
        name=describe.layer_name(code),
        tokens_before=_shown(session, report.tokens_before),
        tokens_after=_shown(session, report.tokens_after),
        results_truncated=report.results_truncated,
        interactions_removed=report.interactions_removed,
        messages_removed=report.messages_removed,
    )


def _forced_policy(policy: CompactionPolicy, view_tokens: int) -> CompactionPolicy:
    soft = max(MIN_FORCED_SOFT, min(policy.soft_threshold, view_tokens // 4))
    return with_thresholds(policy, min(soft, policy.hard_limit - 1))


def _guarded_policy(policy: CompactionPolicy) -> CompactionPolicy:
    """While the guard holds, only the hard limit matters: soft moves just under it."""
    return with_thresholds(policy, policy.hard_limit - 1)
