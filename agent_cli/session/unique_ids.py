"""Refusing a model response whose tool_use ids the API would not take back, before it
is recorded or run.

Why: the API rejects any history in which a tool_use id is empty, outside its grammar
(`^[a-zA-Z0-9_-]+$`; we also bound the length, see `agent_cli.protocol`), or appears
twice; it also needs every call to name its tool. A response that broke one of these
rules would, once recorded, make every later request (and every `--resume`) fail for
good. Such a response is dropped unrecorded, with no tool run, and the same request is
sent once more; a second bad response fails the turn with a notice. The recorded
history stays valid either way.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any

from agent_cli.events import ModelResponse, Notice, SessionEvent, Usage
from agent_cli.protocol import DUPLICATE_ID, find_answer_id_problem

Streamed = ModelResponse | str | None
StreamSteps = Generator[SessionEvent, None, Streamed]


def stream_with_unique_ids(
    stream: Callable[[], StreamSteps],
    view: Sequence[dict[str, Any]],
    note_usage: Callable[[Usage], None],
) -> StreamSteps:
    """`stream()` (one request), retried once when its response has a tool call the
    history `view` could not keep (above); a dropped response's usage still goes to
    `note_usage`, since it was paid for.

    Returns what `stream` returns (a response, "cancelled" or None), or None after a
    second bad response."""
    problem = None
    for attempt in (1, 2):
        response = yield from stream()
        if not isinstance(response, ModelResponse):
            return response
        problem = find_answer_id_problem(response.message, view)
        if problem is None:
            return response
        note_usage(response.usage)  # it was paid for all the same
        if attempt == 1:
            yield _notice("warning", problem, retry=True)
    yield _notice("error", problem, retry=False)
    return None


def _notice(level: str, problem: str | None, *, retry: bool) -> Notice:
    code = "duplicate_tool_id" if problem == DUPLICATE_ID else "bad_tool_id"
    return Notice(level, code, {"retry": retry})
