"""Checking a view rebuilt from a transcript before a resumed session adopts it.

Contract: records that are whole and well enveloped can still hold a view the API would
reject (a message whose content is a number, a tool_use without an id, a compaction
view that starts with the assistant). A resumed session must never start from such a
view: every request it sent would fail, and the user would learn it only then. So the
rebuilt view is checked exactly as a request would be: each message is an object with a
known role, the tool protocol holds (`validate_tool_protocol`), and the request builder
(`build_wire_request`) accepts it. Any failure raises `SessionUnresumable` with a reason
code, the view index and the transcript line the message came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_cli.errors import SessionUnresumable, ToolProtocolError, WireFormatError
from agent_cli.events import ModelRequest
from agent_cli.protocol import validate_tool_protocol
from agent_cli.provider.wire import build_wire_request

ROLES = ("user", "assistant")
PROBE_TEXT = "(probe: is this view sendable?)"


def _line_of(origins: Sequence[int], index: int | None) -> int | None:
    if index is None or not 0 <= index < len(origins):
        return None
    return origins[index]


def check_message_shapes(session_id: str, view: Sequence[Any], origins: Sequence[int]) -> None:
    """Every message is an object with the role `user` or `assistant`."""
    for index, message in enumerate(view):
        if not isinstance(message, dict) or message.get("role") not in ROLES:
            raise SessionUnresumable(
                session_id,
                "malformed_message",
                line_number=_line_of(origins, index),
                message_index=index,
            )


def check_sendable_view(
    session_id: str, view: Sequence[dict[str, Any]], origins: Sequence[int]
) -> None:
    """The view pairs its tool calls and the request builder would send it."""
    try:
        validate_tool_protocol(view)
    except ToolProtocolError as error:
        raise SessionUnresumable(
            session_id,
            f"tool_protocol:{error.reason}",
            message_index=error.message_index,
            line_number=_line_of(origins, error.message_index),
        ) from None
    if not view:
        return
    messages = list(view)
    if messages[-1].get("role") == "assistant":
        messages.append({"role": "user", "content": PROBE_TEXT})
    probe = ModelRequest(system="", durable_context="", messages=tuple(messages), tools=())
    try:
        build_wire_request(probe, "resume-check")
    except WireFormatError as error:
        raise SessionUnresumable(
            session_id,
            f"wire:{error.reason}",
            message_index=error.message_index,
            line_number=_line_of(origins, error.message_index),
        ) from None
