"""tool_use / tool_result pairing: the one place that validates it and removes pairs.

Contract (what the Messages API needs, checked over the whole history):
- every tool_use stands in an assistant message and has a unique `id` in the API's
  grammar (`^[a-zA-Z0-9_-]+$`, at most `MAX_TOOL_USE_ID_CHARS` characters);
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

import hashlib
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
    MALFORMED_ID,
    MALFORMED_MESSAGE,
    MAX_TOOL_USE_ID_CHARS,
    MISSING_RESULT,
    RESULT_BEFORE_USE,
    RESULT_OUTSIDE_USER,
    UNKNOWN_ID,
    USE_OUTSIDE_ASSISTANT,
    Interaction,
    ProtocolScan,
    is_valid_tool_use_id,
    validate_tool_protocol,
)

__all__ = [
    "DUPLICATE_ID",
    "DUPLICATE_RESULT",
    "EMPTY_ID",
    "EMPTY_NAME",
    "MALFORMED_ID",
    "MALFORMED_MESSAGE",
    "MAX_TOOL_USE_ID_CHARS",
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
    "find_answer_id_problem",
    "find_reused_tool_use_id",
    "is_valid_tool_use_id",
    "iter_tool_blocks",
    "locate_interactions",
    "remove_tool_interactions",
    "rename_malformed_tool_ids",
    "renamed_tool_use_id",
    "strip_interactions",
    "validate_tool_protocol",
]

EMPTY_NAME = "empty_name"  # a tool_use whose `name` is not a non-empty string
RENAMED_ID_PREFIX = "toolu_renamed_"
_ID_KEYS = {"tool_use": "id", "tool_result": "tool_use_id"}


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


def find_answer_id_problem(
    response: dict[str, Any], history: Sequence[dict[str, Any]]
) -> str | None:
    """Why the tool calls of a model's answer cannot join `history`, or None if they can.

    The reason is a `ToolProtocolError` code: EMPTY_ID or MALFORMED_ID (an id outside the
    API's grammar or over `MAX_TOOL_USE_ID_CHARS`), DUPLICATE_ID (an id repeated within
    the answer or already in `history`), or EMPTY_NAME. Such an answer must be neither
    run nor recorded: once in the history, every later request would be refused.
    """
    uses = [block for block in iter_tool_blocks(response) if block.get("type") == "tool_use"]
    for block in uses:
        tool_id = block.get("id")
        if not isinstance(tool_id, str) or not tool_id:
            return EMPTY_ID
        if not is_valid_tool_use_id(tool_id):
            return MALFORMED_ID
        name = block.get("name")
        if not isinstance(name, str) or not name:
            return EMPTY_NAME
    if find_reused_tool_use_id(response, history) is not None:
        return DUPLICATE_ID
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


def rename_malformed_tool_ids(
    messages: Sequence[dict[str, Any]],
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The history with every string tool id the API would refuse (empty, outside its
    grammar, too long) renamed on both the tool_use and its tool_results; and the map of
    old id -> new id.

    For a history recorded before answers were checked (`find_answer_id_problem`): the
    calls and results stay, under ids the API takes. The new id is derived from the old
    one alone (`renamed_tool_use_id`), so every rebuild of the same transcript renames
    alike and a result recorded under a new id still pairs with its call. Ids that are
    not strings are left for validation to refuse. Never mutates; unchanged messages
    are shared.
    """
    renames: dict[str, str] = {}
    renamed: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list) or not any(_has_malformed_id(b) for b in content):
            renamed.append(message)
            continue
        blocks = [_with_renamed_id(block, renames) for block in content]
        renamed.append({**message, "content": blocks})
    return renamed, renames


def renamed_tool_use_id(old_id: str) -> str:
    """A valid id standing for `old_id`: a fixed prefix and 24 hex digits of its sha256."""
    digest = hashlib.sha256(old_id.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{RENAMED_ID_PREFIX}{digest[:24]}"


def _has_malformed_id(block: Any) -> bool:
    kind = block.get("type") if isinstance(block, dict) else None
    key = _ID_KEYS.get(kind) if isinstance(kind, str) else None
    if key is None:
        return False
    value = block.get(key)
    return isinstance(value, str) and not is_valid_tool_use_id(value)


def _with_renamed_id(block: Any, renames: dict[str, str]) -> Any:
    if not _has_malformed_id(block):
        return block
    key = _ID_KEYS[block["type"]]
    old_id = block[key]
    new_id = renames.setdefault(old_id, renamed_tool_use_id(old_id))
    return {**block, key: new_id}
