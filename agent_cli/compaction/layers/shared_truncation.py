"""The last step before a request would be blocked: tool results share the room left.

L1 cuts each result over `max_tool_result_tokens` on its own and L3 never removes the
interaction the model is still in, so one tool step with many results each under the
per-result budget (40 reads of 4,000 tokens) can pass the hard limit with no layer able
to help. This step lowers the per-result budget just enough that the results, cut by
L1's own truncation, fit the room under the target with everything else as it is. Pure.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from agent_cli.compaction.layers.truncate import MARKER_ALLOWANCE_TOKENS, build_truncation_outcome
from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.compaction.results import NO_CHANGE, LayerOutcome
from agent_cli.tokens import TokenCounter

# A cut result keeps a head, the marker and a tail: less than this is no longer useful.
MIN_SHARED_RESULT_TOKENS = 3 * MARKER_ALLOWANCE_TOKENS


def shared_result_budget(sizes: Sequence[int], room: int) -> int | None:
    """The largest per-result cap `c` with `sum(min(size, c)) <= room` (small results stay
    whole, the big ones share what is left), or None when even `MIN_SHARED_RESULT_TOKENS`
    each would not fit, or when every result fits whole."""
    left = room
    ordered = sorted(sizes)
    for taken, size in enumerate(ordered):
        sharing = len(ordered) - taken
        if size * sharing > left:
            cap = left // sharing
            return cap if cap >= MIN_SHARED_RESULT_TOKENS else None
        left -= size
    return None


def result_sizes(messages: Sequence[dict[str, Any]], counter: TokenCounter) -> list[int]:
    """The token count of every tool_result's content in the user messages of the view."""
    return [
        counter.count_result_content(block)
        for message in messages
        if message.get("role") == "user" and isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]


def build_shared_truncation(
    messages: Sequence[dict[str, Any]],
    policy: CompactionPolicy,
    counter: TokenCounter,
    tokens: int,
    target: int,
) -> LayerOutcome:
    """L1 with the per-result budget lowered so that the view (`tokens` now, reserve
    included) gets under `target`; NO_CHANGE when no such budget exists."""
    sizes = result_sizes(messages, counter)
    room = target - (tokens - sum(sizes))
    cap = shared_result_budget(sizes, room)
    if cap is None or cap >= policy.max_tool_result_tokens:
        return LayerOutcome(list(messages), 0, outcome=NO_CHANGE)
    shared = dataclasses.replace(policy, max_tool_result_tokens=cap)
    return build_truncation_outcome(messages, shared, counter)
