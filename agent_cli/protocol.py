"""tool_use / tool_result pairing: the one place that validates it and removes pairs.

Contract (what the Messages API needs, checked over the whole history):
- every tool_use stands in an assistant message and has a non-empty, unique `id`;
- every tool_result stands in a user message and answers, through `tool_use_id`, exactly
  one tool_use of an EARLIER message. The API is stricter (the result must be in the very
  next message, first in its content); that placement rule belongs to the request builder,
  which sees the final view. Compaction only removes whole interactions, drops messages
  only when they are left empty and keeps the recent tail contiguous, so a view whose
  results sit in the next message keeps them there.
- several tool_use blocks in one message and several results in one message (parallel
  calls) are normal.

Violations raise `ToolProtocolError` with a reason code, the id and the message index; no
message text is ever kept. Removal is atomic: both halves of an interaction go together,
other blocks of the same messages stay, and a message left with no content is dropped.
Nothing here mutates its input; unchanged messages are shared, changed ones are new dicts.

Validation lives in `agent_cli.protocol_validation`, removal in `agent_cli.protocol_removal`;
this module keeps the small queries and the repair of a dangling call, and every public
name of the three stays importable from here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from agent_cli.protocol_removal import (
    apply_changes,
    locate_interactions,
    remove_tool_interactions,
    strip_interactions,
)
from agent_cli.protocol_validation import (
    DUPLICATE_ID,
    DUPLICATE_RESULT,
    EMPTY_ID,
    MALFORMED_MESSAGE,
    MISSING_RESULT,
    RESULT_BEFORE_USE,
    RESULT_OUTSIDE_USER,
    UNKNOWN_ID,
    USE_OUTSIDE_ASSISTANT,
    Interaction,
    ProtocolScan,
    validate_tool_protocol,
)

__all__ = [
    "DUPLICATE_ID",
    "DUPLICATE_RESULT",
    "EMPTY_ID",
    "MALFORMED_MESSAGE",
    "MISSING_RESULT",
    "RESULT_BEFORE_USE",
    "RESULT_OUTSIDE_USER",
    "UNKNOWN_ID",
    "USE_OUTSIDE_ASSISTANT",
    "Interaction",
    "ProtocolScan",
    "answer_dangling_tool_uses",
    "apply_changes",
    "collect_tool_ids",
    "find_reused_tool_use_id",
    "iter_tool_blocks",
    "locate_interactions",
    "remove_tool_interactions",
    "strip_interactions",
    "validate_tool_protocol",
]


def iter_tool_blocks(message: Any) -> Iterable[dict[str, Any]]:
    """The tool_use and tool_result blocks of a message, in order."""
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return ()
    return [
        block
        for block in content
        if isinstance(block, dict) and block.get("type") in ("tool_use", "tool_result")
    ]


def collect_tool_ids(messages: Sequence[dict[str, Any]], kind: str) -> list[str]:
    """Ids of the `kind` ("tool_use" or "tool_result") blocks of `messages`, in order."""
    key = "id" if kind == "tool_use" else "tool_use_id"
    ids: list[str] = []
    append = ids.append  # one plain loop: L3 runs this over every message it drops
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == kind and key in block:
                append(block[key])
    return ids


def find_reused_tool_use_id(
    response: dict[str, Any], history: Sequence[dict[str, Any]]
) -> str | None:
    """The first tool_use id of `response` that repeats one of its own or one already in
    `history`, or None. Such a response must not be recorded: the API refuses a history
    with a repeated id, so recording it would make the session unsendable for good."""
    seen = set(collect_tool_ids(history, "tool_use"))
    for tool_use_id in collect_tool_ids([response], "tool_use"):
        if tool_use_id in seen:
            return tool_use_id
        seen.add(tool_use_id)
    return None


def answer_dangling_tool_uses(
    messages: Sequence[dict[str, Any]], text: str
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Repair a history that ends inside a tool call (a crash while the tool ran).

    When the last message is an assistant message whose tool_use blocks have no results,
    returns the history plus a new user message answering each of them with an error
    result carrying `text`, and that message (so the caller can record it). Any other
    history comes back unchanged with None. Never mutates its input.
    """
    history = list(messages)
    if not history or history[-1].get("role") != "assistant":
        return history, None
    uses = [block for block in iter_tool_blocks(history[-1]) if block.get("type") == "tool_use"]
    if not uses:
        return history, None
    answers = {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": block.get("id"),
                "content": text,
                "is_error": True,
            }
            for block in uses
        ],
    }
    return [*history, answers], answers
