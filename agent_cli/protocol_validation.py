"""Validation of tool_use / tool_result pairing over a whole history (or what was appended).

Contract (the pairing rules are stated in `agent_cli.protocol`): `ProtocolScan` checks
messages fed in order and `validate_tool_protocol` checks a whole history; both return
where each answered call lives (tool_use id -> `Interaction`). A violation raises
`ToolProtocolError` with one of the reason codes below, the id and the message index;
no message text is ever kept. Nothing here mutates its input.
"""

from __future__ import annotations

import re
from collections.abc import Container, Sequence
from typing import Any, NamedTuple

from agent_cli.errors import ToolProtocolError

# Reason codes carried by ToolProtocolError.
MALFORMED_MESSAGE = "malformed_message"
EMPTY_ID = "empty_id"
MALFORMED_ID = "malformed_id"
DUPLICATE_ID = "duplicate_id"
DUPLICATE_RESULT = "duplicate_result"
USE_OUTSIDE_ASSISTANT = "tool_use_outside_assistant"
RESULT_OUTSIDE_USER = "tool_result_outside_user"
RESULT_BEFORE_USE = "result_before_use"
UNKNOWN_ID = "unknown_id"
MISSING_RESULT = "missing_result"


# The API's grammar for tool_use ids. It states no length; its own ids are about 30
# characters, and 256 leaves room for any compatible endpoint's while keeping a hostile
# 100,000-character id out of the history (and out of every later request).
MAX_TOOL_USE_ID_CHARS = 256
_TOOL_USE_ID = re.compile(r"[A-Za-z0-9_-]+")


def is_valid_tool_use_id(value: object) -> bool:
    """True for an id the Messages API accepts: `^[a-zA-Z0-9_-]+$`, at most 256 chars."""
    return (
        isinstance(value, str)
        and 0 < len(value) <= MAX_TOOL_USE_ID_CHARS
        and _TOOL_USE_ID.fullmatch(value) is not None
    )


def _check_id(tool_id: object, index: int) -> str:
    """`tool_id` if the API would take it; EMPTY_ID or MALFORMED_ID (without the id,
    which may be huge) otherwise."""
    if not isinstance(tool_id, str) or not tool_id:
        raise ToolProtocolError(EMPTY_ID, message_index=index)
    if not is_valid_tool_use_id(tool_id):
        raise ToolProtocolError(MALFORMED_ID, message_index=index)
    return tool_id


class Interaction(NamedTuple):
    """Where one tool call lives: the index of its tool_use and of its tool_result message."""

    tool_use_message: int
    tool_result_message: int


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
        tool_id = _check_id(block.get("id"), index)
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
        tool_id = _check_id(block.get("tool_use_id"), index)
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

    Raises ToolProtocolError (a ValueError) for missing, unknown, duplicate, empty,
    malformed (`is_valid_tool_use_id`) or out-of-order ids and for tool blocks under the
    wrong role.
    """
    scan = ProtocolScan()
    scan.feed(messages)
    return scan.finish()
