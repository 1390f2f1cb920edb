"""L3: keep the user's first message and the recent tail, drop what lies between.

Contract: message 0 (the user's original request, in their own words) and the last
`keep_recent_messages` messages are kept. An interaction with a half outside what is kept
leaves as a whole (both halves), text in a mixed message stays, and a message left empty
is dropped. The result starts with a user message: leading non-user messages go too,
with their interactions. Two user messages may end up next to each other; the Messages
API accepts that (it joins consecutive same-role turns), and merging them here would
rewrite the messages the policy promises to keep.

On a valid view the work is proportional to what is kept plus the tool_use blocks of
what is dropped: an interaction crosses the cut exactly when only one of its halves is
among the kept messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.compaction.results import NO_CHANGE, LayerOutcome
from agent_cli.compaction.savings import measure_savings
from agent_cli.protocol import collect_tool_ids, remove_tool_interactions, validate_tool_protocol
from agent_cli.tokens import TokenCounter, default_counter


def _drop_leading_non_user(view: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """Drop messages until the view starts with a user one, with their interactions."""
    removed: list[str] = []
    while view and view[0].get("role") != "user":
        ids = collect_tool_ids(view[:1], "tool_use") + collect_tool_ids(view[:1], "tool_result")
        removed += ids
        view = remove_tool_interactions(view[1:], ids)
    return view, removed


def build_prune_outcome(messages: Sequence[dict[str, Any]], policy: CompactionPolicy,
                        counter: TokenCounter, view_tokens: int | None = None) -> LayerOutcome:
    """Apply L3 to a valid view and say what it did (`view_tokens`: its count, if known)."""
    count = len(messages)
    tail_start = max(count - policy.keep_recent_messages, 1)
    if count == 0 or (tail_start == 1 and messages[0].get("role") == "user"):
        return LayerOutcome(list(messages), 0, outcome=NO_CHANGE)
    kept = [messages[0], *messages[tail_start:]]
    uses, results = collect_tool_ids(kept, "tool_use"), collect_tool_ids(kept, "tool_result")
    crossing = set(uses).symmetric_difference(results)
    view, leading = _drop_leading_non_user(remove_tool_interactions(kept, crossing))
    dropped_uses = collect_tool_ids(messages[1:tail_start], "tool_use")
    removed_ids = dropped_uses + [tool_id for tool_id in uses if tool_id in crossing] + [
        tool_id for tool_id in leading if tool_id not in crossing]
    return LayerOutcome(view, measure_savings(messages, view, counter, view_tokens),
                        removed_tool_use_ids=tuple(dict.fromkeys(removed_ids)),
                        messages_removed=count - len(view))


def prune_old_messages(messages: Sequence[dict[str, Any]],
                       policy: CompactionPolicy | None = None,
                       counter: TokenCounter | None = None) -> tuple[list[dict[str, Any]], int]:
    """L3: keep message 0 and the recent tail; return (new view, tokens saved).

    Raises ToolProtocolError for an invalid history.
    """
    validate_tool_protocol(messages)
    outcome = build_prune_outcome(messages, policy or CompactionPolicy(),
                                  counter or default_counter())
    return outcome.messages, outcome.tokens_saved
