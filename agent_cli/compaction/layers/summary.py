"""L4: replace everything before a recent window with a summary written by the caller's model.

Contract: the window is the last `summary_keep_recent` messages, widened back until no interaction
crosses its start. What precedes it goes to `summarizer` as a deep copy (never the durable state)
and comes back as one user message starting with `SUMMARY_HEADER` and marked with `SUMMARY_KEY`;
when the window starts with a user message, an acknowledgement keeps roles alternating. When all
before the window is the previous summary (and its acknowledgement), the summarizer is not called
(`NOTHING_NEW_TO_SUMMARIZE`). It fails safe: a summarizer that raises, returns no text or text UTF-8
cannot carry (a lone surrogate: no request could hold the view), or a view that would not be smaller,
gives the view back unchanged with 0 saved and an outcome saying why; one that raised, with what it
raised (`LayerOutcome.failure`: the caller words the cause).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from agent_cli.compaction.markers import (
    ACKNOWLEDGEMENT,
    SUMMARY_HEADER,
    is_acknowledgement,
    is_summary_message,
    mark_summary,
)
from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.compaction.results import (
    NOTHING_NEW_TO_SUMMARIZE,
    NOTHING_TO_SUMMARIZE,
    SUMMARY_BLANK,
    SUMMARY_FAILED,
    SUMMARY_NOT_SMALLER,
    SUMMARY_NOT_UNICODE,
    LayerOutcome,
    measure_savings,
    run_layer_alone,
)
from agent_cli.protocol import collect_tool_ids
from agent_cli.tokens import TokenCounter

Summarizer = Callable[[list[dict[str, Any]]], str]


def find_summary_boundary(messages: Sequence[dict[str, Any]], keep_recent: int) -> int:
    """Where the recent window starts (module doc)."""
    start = max(len(messages) - keep_recent, 0)
    unanswered = set(collect_tool_ids(messages[start:], "tool_result"))
    unanswered.difference_update(collect_tool_ids(messages[start:], "tool_use"))
    while unanswered and start > 0:
        start -= 1
        unanswered.difference_update(collect_tool_ids(messages[start : start + 1], "tool_use"))
        unanswered.update(collect_tool_ids(messages[start : start + 1], "tool_result"))
    return start


def build_summary_messages(summary: str, recent: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The summary message, plus an acknowledgement when `recent` starts with a user message."""
    head = [mark_summary({"role": "user", "content": f"{SUMMARY_HEADER}\n{summary}"})]
    if recent and recent[0].get("role") == "user":
        head.append({"role": "assistant", "content": ACKNOWLEDGEMENT})
    return head


def holds_only_previous_summary(old: Sequence[dict[str, Any]]) -> bool:
    """True when `old` is an L4 summary, alone or with its acknowledgement."""
    if not old or not is_summary_message(old[0]):
        return False
    rest = old[1:]
    return not rest or (len(rest) == 1 and is_acknowledgement(rest[0]))


def has_older_messages_to_summarize(messages: Sequence[dict[str, Any]], keep_recent: int) -> bool:
    """True when a summary asked for now (`/compact`) would have something to replace:
    messages before the recent window that are not just the previous summary. Right after
    a summary it is False: the window `/compact` keeps is what the summary kept."""
    start = find_summary_boundary(messages, keep_recent)
    return start > 0 and not holds_only_previous_summary(messages[:start])


def _unchanged(
    messages: Sequence[dict[str, Any]], outcome: str, failure: Exception | None = None
) -> LayerOutcome:
    return LayerOutcome(list(messages), 0, outcome=outcome, failure=failure)


def _call_summarizer(summarizer: Summarizer, old: Sequence[dict[str, Any]]) -> str | Exception:
    """The summarizer's text, stripped; what it raised when it did (interrupts propagate)."""
    try:
        text = summarizer(copy.deepcopy(list(old)))
    except Exception as failure:
        return failure
    return text.strip() if isinstance(text, str) else ""


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def build_summary_outcome(
    messages: Sequence[dict[str, Any]],
    summarizer: Summarizer,
    policy: CompactionPolicy,
    counter: TokenCounter,
    view_tokens: int | None = None,
) -> LayerOutcome:
    """Apply L4 to a valid view (`view_tokens`: its count, if known)."""
    start = find_summary_boundary(messages, policy.summary_keep_recent)
    if start == 0:
        return _unchanged(messages, NOTHING_TO_SUMMARIZE)
    old, recent = messages[:start], list(messages[start:])
    if holds_only_previous_summary(old):
        return _unchanged(messages, NOTHING_NEW_TO_SUMMARIZE)
    summary = _call_summarizer(summarizer, old)
    if isinstance(summary, Exception):
        return _unchanged(messages, SUMMARY_FAILED, summary)
    if not summary:
        return _unchanged(messages, SUMMARY_BLANK)
    if not _is_utf8(summary):
        return _unchanged(messages, SUMMARY_NOT_UNICODE)
    view = build_summary_messages(summary, recent) + recent
    saved = measure_savings(messages, view, counter, view_tokens)
    if saved <= 0:
        return _unchanged(messages, SUMMARY_NOT_SMALLER)
    return LayerOutcome(
        view,
        saved,
        removed_tool_use_ids=tuple(collect_tool_ids(old, "tool_use")),
        messages_removed=start,
    )


def generate_summary(
    messages: Sequence[dict[str, Any]],
    summarizer: Summarizer,
    policy: CompactionPolicy | None = None,
    counter: TokenCounter | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """L4: summarize all but the recent window; (new view, tokens saved). Raises ToolProtocolError
    for an invalid history, never for a failing summary."""
    return run_layer_alone(
        lambda view, chosen, tokens: build_summary_outcome(view, summarizer, chosen, tokens),
        messages,
        policy,
        counter,
    )
