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
"""

from __future__ import annotations

from collections.abc import Collection, Container, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from agent_cli.errors import ToolProtocolError

# Reason codes carried by ToolProtocolError.
MALFORMED_MESSAGE = "malformed_message"
EMPTY_ID = "empty_id"
DUPLICATE_ID = "duplicate_id"
DUPLICATE_RESULT = "duplicate_result"
USE_OUTSIDE_ASSISTANT = "tool_use_outside_assistant"
RESULT_OUTSIDE_USER = "tool_result_outside_user"
RESULT_BEFORE_USE = "result_before_use"
UNKNOWN_ID = "unknown_id"
MISSING_RESULT = "missing_result"


class Interaction(NamedTuple):
    """Where one tool call lives: the index of its tool_use and of its tool_result message."""

    tool_use_message: int
    tool_result_message: int


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
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            ids += [
                block[key]
                for block in content
                if isinstance(block, dict) and block.get("type") == kind and key in block
            ]
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


class ProtocolScan:
    """An incremental validator: feed messages in order, then `finish()`.

    It lets a caller that validated a prefix check only what was appended since:
    `ProtocolScan(known=ids)` continues after a prefix that ended with every call
    answered, `ids` being the tool_use ids of that prefix (only tested with `in`).
    `interactions` holds the calls answered in what was fed, in answer order.
    """

    def __init__(self, known: Container[str] | None = None) -> None:
        self._known: Container[str] = known if known is not None else frozenset()
        self.interactions: dict[str, Interaction] = {}
        self._open_uses: dict[str, int] = {}  # id -> index of its tool_use message
        self._early_results: dict[str, int] = {}  # id -> index of a result with no use yet

    def _is_seen(self, tool_id: str) -> bool:
        return tool_id in self._known or tool_id in self.interactions

    def feed(self, messages: Sequence[Any], start_index: int = 0) -> None:
        """Check `messages`, the first of which sits at `start_index` of the history."""
        for index, message in enumerate(messages, start_index):
            role = message.get("role") if isinstance(message, dict) else None
            if role != "user" and role != "assistant":
                raise ToolProtocolError(MALFORMED_MESSAGE, message_index=index)
            content = message.get("content")
            if not isinstance(content, list):
                continue
            for block in content:
                kind = block.get("type") if isinstance(block, dict) else None
                if kind == "tool_use":
                    self._feed_use(block, role, index)
                elif kind == "tool_result":
                    self._feed_result(block, role, index)

    def _feed_use(self, block: dict[str, Any], role: str, index: int) -> None:
        tool_id = block.get("id")
        if not isinstance(tool_id, str) or not tool_id:
            raise ToolProtocolError(EMPTY_ID, message_index=index)
        if role != "assistant":
            raise ToolProtocolError(USE_OUTSIDE_ASSISTANT, tool_use_id=tool_id, message_index=index)
        if tool_id in self._early_results:
            raise ToolProtocolError(
                RESULT_BEFORE_USE, tool_use_id=tool_id, message_index=self._early_results[tool_id]
            )
        if self._is_seen(tool_id) or tool_id in self._open_uses:
            raise ToolProtocolError(DUPLICATE_ID, tool_use_id=tool_id, message_index=index)
        self._open_uses[tool_id] = index

    def _feed_result(self, block: dict[str, Any], role: str, index: int) -> None:
        tool_id = block.get("tool_use_id")
        if not isinstance(tool_id, str) or not tool_id:
            raise ToolProtocolError(EMPTY_ID, message_index=index)
        if role != "user":
            raise ToolProtocolError(RESULT_OUTSIDE_USER, tool_use_id=tool_id, message_index=index)
        if self._is_seen(tool_id) or tool_id in self._early_results:
            raise ToolProtocolError(DUPLICATE_RESULT, tool_use_id=tool_id, message_index=index)
        use_index = self._open_uses.pop(tool_id, None)
        if use_index is None:
            self._early_results[tool_id] = index  # unknown, unless its use comes later
        else:
            self.interactions[tool_id] = Interaction(use_index, index)

    def finish(self) -> dict[str, Interaction]:
        """Raise for calls left unanswered or results never matched; return the map."""
        if self._open_uses:
            tool_id, index = next(iter(self._open_uses.items()))
            raise ToolProtocolError(MISSING_RESULT, tool_use_id=tool_id, message_index=index)
        if self._early_results:
            tool_id, index = next(iter(self._early_results.items()))
            raise ToolProtocolError(UNKNOWN_ID, tool_use_id=tool_id, message_index=index)
        return self.interactions


def validate_tool_protocol(messages: Sequence[Any]) -> dict[str, Interaction]:
    """Check the pairing of the whole history; return tool_use id -> Interaction.

    Raises ToolProtocolError (a ValueError) for missing, unknown, duplicate, empty or
    out-of-order ids and for tool blocks under the wrong role.
    """
    scan = ProtocolScan()
    scan.feed(messages)
    return scan.finish()


def _without_blocks(message: dict[str, Any], ids: Collection[str]) -> dict[str, Any] | None:
    """`message` minus the tool blocks of `ids`: itself if untouched, None if left empty."""
    content = message.get("content")
    if not isinstance(content, list):
        return message
    kept = [block for block in content if not _is_block_of(block, ids)]
    if len(kept) == len(content):
        return message
    if not kept:
        return None
    return {**message, "content": kept}


def _is_block_of(block: Any, ids: Collection[str]) -> bool:
    """True for the tool_use or tool_result block of one of `ids`."""
    if not isinstance(block, dict):
        return False
    kind = block.get("type")
    if kind == "tool_use":
        return block.get("id") in ids
    return kind == "tool_result" and block.get("tool_use_id") in ids


def locate_interactions(
    messages: Sequence[dict[str, Any]], use_indices: Mapping[str, int]
) -> dict[str, Interaction]:
    """Interactions of a valid view, given where each tool_use is: its result is searched
    forward from there (it is usually in the very next message)."""
    located = {}
    for tool_id, use_index in use_indices.items():
        for index in range(use_index + 1, len(messages)):
            if tool_id in collect_tool_ids(messages[index : index + 1], "tool_result"):
                located[tool_id] = Interaction(use_index, index)
                break
    return located


def remove_tool_interactions(
    messages: Sequence[dict[str, Any]],
    ids: Iterable[str],
    *,
    interactions: Mapping[str, Interaction] | None = None,
) -> list[dict[str, Any]]:
    """A new list without the tool_use and tool_result blocks of `ids`, both halves at once.

    Other blocks stay in place; a message left with no content is dropped; untouched
    messages are the same objects, touched ones are new dicts. The input is not mutated.
    With `interactions` (where each id's halves are, indices into `messages`), only those
    messages are visited, which keeps removal from a long view cheap.
    """
    doomed = frozenset(ids)
    if not doomed:
        return list(messages)
    if interactions is None:
        touched: Iterable[int] = range(len(messages))
    else:
        touched = {
            index
            for tool_id in doomed
            if tool_id in interactions
            for index in interactions[tool_id]
        }
    result: list[dict[str, Any] | None] = list(messages)
    for index in touched:
        result[index] = _without_blocks(messages[index], doomed)
    return [message for message in result if message is not None]


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
