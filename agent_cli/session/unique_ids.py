"""Refusing a model response whose tool_use ids repeat, before it is recorded or run.

Why: the API rejects any history in which a tool_use id appears twice. A response with
two blocks of one id, or with an id the history already holds, would, once recorded,
make every later request (and every `--continue`) fail for good. Such a response is
dropped unrecorded, with no tool run, and the same request is sent once more; a second
bad response fails the turn with a notice. The recorded history stays valid either way.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

from agent_cli.events import ModelResponse, Notice, SessionEvent
from agent_cli.protocol import find_reused_tool_use_id

if TYPE_CHECKING:
    from agent_cli.session.core import Session

REUSED_ID_RETRY_TEXT = (
    "The model's answer repeated a tool call id; it was not recorded and nothing ran. "
    "Asking once more."
)
REUSED_ID_FAILED_TEXT = (
    "The model's answer repeated a tool call id again; nothing ran and nothing was "
    "recorded, so the session stays resumable. Send your message again."
)

Streamed = ModelResponse | str | None
StreamSteps = Generator[SessionEvent, None, Streamed]


def stream_with_unique_ids(
    session: Session, request: Any, stream: Callable[[Session, Any], StreamSteps]
) -> StreamSteps:
    """`stream(session, request)`, retried once when its response repeats an id (above).

    Returns what `stream` returns (a response, "cancelled" or None), or None after a
    second bad response."""
    for attempt in (1, 2):
        response = yield from stream(session, request)
        if not isinstance(response, ModelResponse):
            return response
        if find_reused_tool_use_id(response.message, session.view) is None:
            return response
        session.note_usage(response.usage)  # it was paid for all the same
        if attempt == 1:
            yield Notice("warning", "duplicate_tool_id", REUSED_ID_RETRY_TEXT)
    yield Notice("error", "duplicate_tool_id", REUSED_ID_FAILED_TEXT)
    return None
