"""Write-ahead recording for a turn: every message reaches the transcript before the view.

Contract: each `record*` step yields its notices and returns True when the message is
recorded (transcript, then view: `Conversation.append`) and False when the store refused
it; a refusal is never raised out of a turn. Tool results the disk refuses are held by
the conversation (`Conversation.hold_unrecorded_results`) and `record_held_results`
writes them first thing in the next turn. `mark_in_transcript` is bookkeeping and never
fails a turn.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator
from typing import Any, TypeVar

from agent_cli.errors import StoreError
from agent_cli.events import Notice, SessionEvent
from agent_cli.session.conversation import Conversation
from agent_cli.session.log import NOTICE

Value = TypeVar("Value")
Steps = Generator[SessionEvent, None, Value]  # a step's events, then what it returns
Message = dict[str, Any]


def collect_steps(steps: Steps[Value]) -> tuple[list[SessionEvent], Value]:
    """Run `steps` to its end now and return its events, to be yielded after an event
    that must come first on screen, with what it returned."""
    events: list[SessionEvent] = []
    while True:
        try:
            events.append(next(steps))
        except StopIteration as done:
            return events, done.value


def write_failed(error: StoreError) -> Notice:
    """The notice of a record the store refused."""
    return Notice("error", "transcript_write_failed", error=error)


def record_results(conversation: Conversation, results: list[dict[str, Any]]) -> Steps[bool]:
    """Record one tool-results message; if the disk refuses, hold it for the next turn."""
    message = {"role": "user", "content": results}
    if (yield from record(conversation, message)):
        return True
    conversation.hold_unrecorded_results(message)
    yield Notice("warning", "results_held")
    return False


def record_held_results(conversation: Conversation) -> Steps[bool]:
    """Write tool results a failed append left in memory, before anything else."""
    try:
        if conversation.record_held_results():
            yield Notice("info", "results_recorded")
    except StoreError as error:
        yield write_failed(error)
        return False
    return True


def record_user_text(
    conversation: Conversation, text: str, shrink: Callable[[Message], Message]
) -> Steps[bool]:
    """Record the user's message; an oversized one is stored as an artifact first and
    recorded as its preview (`shrink`, see `session.oversized`), so it can never block
    the session."""
    try:
        message = shrink({"role": "user", "content": text})
    except StoreError as error:
        yield write_failed(error)
        return False
    if message["content"] is not text:
        yield Notice("info", "message_stored", {"characters": len(text)})
    return (yield from record(conversation, message))


def record(conversation: Conversation, message: Message) -> Steps[bool]:
    """Write-ahead: transcript first, then the view. False (and a notice) on failure."""
    try:
        conversation.append(message)
    except StoreError as error:
        yield write_failed(error)
        return False
    return True


def mark_in_transcript(conversation: Conversation, code: str) -> None:
    """A `notice` record, so the transcript tells a cut answer from a whole one. It is
    bookkeeping: failing to write it does not fail a turn whose messages are recorded."""
    with contextlib.suppress(StoreError):
        conversation.log.append(NOTICE, {"code": code})
