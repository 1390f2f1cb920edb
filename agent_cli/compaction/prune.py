"""L3: keep the user's first message and the recent tail, drop what lies between.

Contract: message 0 (the user's original request, in their own words) and the last
`keep_recent_messages` messages are kept. An interaction with a half outside what is kept
leaves as a whole (both halves), text in a mixed message stays, and a message left empty
is dropped. The result starts with a user message: leading non-user messages go too,
with their interactions. Two user messages may end up next to each other; the Messages
API accepts that (it joins consecutive same-role turns), and merging them here would
rewrite the messages the policy promises to keep.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.compaction.results import NO_CHANGE, LayerOutcome
from agent_cli.compaction.savings import measure_savings
from agent_cli.protocol import (
    Interaction,
    iter_tool_blocks,
    remove_tool_interactions,
    validate_tool_protocol,
)
from agent_cli.tokens import TokenCounter, default_counter


def _ids_in(message: dict[str, Any]) -> set[str]:
    return {block.get("id") if block["type"] == "tool_use" else block.get("tool_use_id")
            for block in iter_tool_blocks(message)}


def _drop_leading_non_user(view: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], set[str]]:
    """Drop messages until the view starts with a user one, with their interactions."""
    removed: set[str] = set()
    while view and view[0].get("role") != "user":
        ids = _ids_in(view[0])
        removed |= ids
        view = remove_tool_interactions(view[1:], ids)
    return view, removed


def find_pruned_interactions(interactions: Mapping[str, Interaction],
                             kept_indices: set[int]) -> list[str]:
    """Ids of interactions with at least one half outside `kept_indices`."""
    return [tool_id for tool_id, pair in interactions.items()
            if pair.tool_use_message not in kept_indices
            or pair.tool_result_message not in kept_indices]


def build_prune_outcome(messages: Sequence[dict[str, Any]], policy: CompactionPolicy,
                        counter: TokenCounter,
                        interactions: Mapping[str, Interaction]) -> LayerOutcome:
    """Apply L3 to a validated view (its `interactions` given) and say what it did."""
    count = len(messages)
    if count == 0:
        return LayerOutcome([], 0, outcome=NO_CHANGE)
    tail_start = max(count - policy.keep_recent_messages, 1)
    kept_indices = {0, *range(tail_start, count)}
    if len(kept_indices) == count and messages and messages[0].get("role") == "user":
        return LayerOutcome(list(messages), 0, outcome=NO_CHANGE)
    doomed = find_pruned_interactions(interactions, kept_indices)
    kept = [messages[index] for index in sorted(kept_indices)]
    view, also_doomed = _drop_leading_non_user(remove_tool_interactions(kept, doomed))
    removed_ids = tuple(doomed) + tuple(sorted(also_doomed - set(doomed)))
    return LayerOutcome(view, measure_savings(messages, view, counter),
                        removed_tool_use_ids=removed_ids,
                        messages_removed=count - len(view))


def prune_old_messages(messages: Sequence[dict[str, Any]],
                       policy: CompactionPolicy | None = None,
                       counter: TokenCounter | None = None) -> tuple[list[dict[str, Any]], int]:
    """L3: keep message 0 and the recent tail; return (new view, tokens saved).

    Raises ToolProtocolError for an invalid history.
    """
    interactions = validate_tool_protocol(messages)
    outcome = build_prune_outcome(messages, policy or CompactionPolicy(),
                                  counter or default_counter(), interactions)
    return outcome.messages, outcome.tokens_saved
