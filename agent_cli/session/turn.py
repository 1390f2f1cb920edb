"""One turn: compact -> request -> tools -> record, repeated until the model stops.

This module is the request/stream step and the loop; the tool step is `session.tool_step`
and write-ahead recording is `session.recording`.

Contract of `run_turn_steps`:
- Every message is appended to the transcript before it enters the view; a record that
  cannot be written ends the turn with an error notice and the view unchanged. Tool
  results that cannot be written are held (the call leaves the view) and recorded first
  thing in the next turn, so view and transcript agree again and no result is lost.
  A compaction that cannot be recorded is not adopted and nothing is sent.
- A failed request (after the provider's own retries) leaves view and transcript exactly
  as they were before it; the turn ends "failed" and the next turn works.
- Exactly one tool_result answers every tool_use, even when a tool fails, is denied, or
  the user presses Ctrl-C (the interrupted and the unrun tools get error results).
- Ctrl-C while streaming keeps the text that arrived (marked), drops unfinished tool calls.
  Ctrl-C anywhere else (compacting, or thrown in while the REPL shows an event) ends the
  turn "cancelled" too: nothing half-adopted, a call left without results is answered.
- An answer cut at max_tokens keeps its whole blocks (the provider drops a half tool call),
  answers its whole calls without running them, and a `notice` record marks the cut.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from agent_cli.errors import (
    MessageViewLimitExceeded,
    ProviderError,
    StoreError,
    ToolProtocolError,
    WireFormatError,
)
from agent_cli.events import (
    AssistantDone,
    AssistantText,
    ModelResponse,
    Notice,
    RetryNotice,
    SessionEvent,
    StreamRestarted,
    TextDelta,
    TurnEnded,
)
from agent_cli.protocol import answer_dangling_tool_uses
from agent_cli.session.compacting import blocked_event
from agent_cli.session.recording import (
    Steps,
    mark_in_transcript,
    record,
    record_held_results,
    record_results,
    record_user_text,
)
from agent_cli.session.tool_step import (
    ASKING_INTERRUPTED_TEXT,
    CUT_TOOL_TEXT,
    INTERRUPTED_TOOL_TEXT,
    NOT_RUN_TOOL_TEXT,
    PERMISSION_CANCELLED,
    TERMINATED_TOOL_TEXT,
    Outcome,
    answer_without_running,
    run_tools,
    signal_name,
)
from agent_cli.session.unique_ids import stream_with_unique_ids

if TYPE_CHECKING:
    from agent_cli.session.core import Session

__all__ = [  # the tool step's texts and `signal_name` stay importable from here
    "ASKING_INTERRUPTED_TEXT",
    "INTERRUPTED_TOOL_TEXT",
    "PERMISSION_CANCELLED",
    "TERMINATED_TOOL_TEXT",
    "run_forced_compaction",
    "run_turn_steps",
    "signal_name",
]

MAX_STEPS_PER_TURN = 40
INTERRUPTED_MARK = "[answer interrupted by the user]"


def run_turn_steps(session: Session, text: str) -> Iterator[SessionEvent]:
    """The turn loop behind `Session.run_turn` (see module contract)."""
    if not (yield from record_held_results(session)) or not (
        yield from record_user_text(session, text)
    ):
        yield TurnEnded("failed")
        return
    for step in range(1, MAX_STEPS_PER_TURN + 1):
        try:
            outcome = yield from _one_step(session)
        except KeyboardInterrupt:
            outcome = yield from _settle_after_interrupt(session)
        if outcome is not None:
            yield TurnEnded(outcome[0], stop_reason=outcome[1], steps=step)
            return
    yield Notice("warning", "step_limit", {"steps": MAX_STEPS_PER_TURN})
    yield TurnEnded("ok", stop_reason="step_limit", steps=MAX_STEPS_PER_TURN)


def _settle_after_interrupt(session: Session) -> Steps[Outcome]:
    """Ctrl-C landed where no finer handler took it: while compacting (nothing was adopted),
    or while the REPL showed an event. Every message is already recorded; only a tool call
    left without results needs answering, so the view stays one the API accepts."""
    _, answers = answer_dangling_tool_uses(session.view, NOT_RUN_TOOL_TEXT)
    if answers is not None:
        yield from record_results(session, answers["content"])
    yield Notice("warning", "cancelled", {"during": "turn"})
    return ("cancelled", None)


def run_forced_compaction(session: Session, focus: str | None) -> Iterator[SessionEvent]:
    """`Session.compact_now`: held results first, then compaction whatever the size. A
    view that cannot fit is reported, not raised; Ctrl-C ends it with a notice."""
    if not (yield from record_held_results(session)):
        return
    try:
        yield from session.compact_forced(focus)
    except MessageViewLimitExceeded as error:
        yield blocked_event(session, error)
    except StoreError as error:
        yield Notice("error", "transcript_write_failed", error=error)
    except KeyboardInterrupt:
        yield Notice("warning", "cancelled", {"during": "compaction"})


def _one_step(session: Session) -> Steps[Outcome]:
    """One request and its tools; returns (outcome, stop_reason) to end, None to go on."""
    try:
        request = yield from session.prepare_request()
    except MessageViewLimitExceeded as error:
        yield blocked_event(session, error)
        return ("blocked", None)
    except (ToolProtocolError, WireFormatError) as error:
        yield Notice("error", "invalid_view", error=error)
        return ("failed", None)
    except StoreError as error:  # a compaction that could not be recorded: send nothing
        yield Notice("error", "transcript_write_failed", error=error)
        return ("failed", None)
    response = yield from stream_with_unique_ids(session, request, _stream)
    if response is None:
        return ("failed", None)
    if isinstance(response, str):
        return ("cancelled", None)
    return (yield from _after_response(session, response))


def _stream(session: Session, request: Any) -> Steps[ModelResponse | str | None]:
    """Stream one request; the response, None on failure, "cancelled" on Ctrl-C."""
    parts: list[str] = []
    try:
        for event in session.provider.stream(request):
            if isinstance(event, TextDelta):
                parts.append(event.text)
                yield AssistantText(event.text)
            elif isinstance(event, RetryNotice):
                parts.clear()
                yield StreamRestarted(event.attempt, event.delay_seconds, event.kind)
            elif isinstance(event, ModelResponse):
                return event
    except KeyboardInterrupt:
        yield from _keep_partial_answer(session, "".join(parts))
        return "cancelled"
    except ProviderError as error:
        yield Notice("error", "provider_failed", error=error)
        return None
    yield Notice("error", "provider_failed")  # the stream ended without an answer
    return None


def _keep_partial_answer(session: Session, text: str) -> Iterator[SessionEvent]:
    yield Notice("warning", "cancelled", {"during": "answer"})
    if text.strip():
        message = {
            "role": "assistant",
            "content": [{"type": "text", "text": f"{text}\n{INTERRUPTED_MARK}"}],
        }
        yield from record(session, message)


def _after_response(session: Session, response: ModelResponse) -> Steps[Outcome]:
    message = response.message
    session.note_usage(response.usage)
    if not message.get("content"):
        if response.stop_reason == "max_tokens":
            mark_in_transcript(session, "max_tokens")
            yield Notice("warning", "max_tokens", {"kept": False})
        else:
            yield Notice("warning", "empty_answer")
        return ("ok", response.stop_reason)
    if not (yield from record(session, message)):
        return ("failed", response.stop_reason)
    yield AssistantDone(_text_of(message), response.stop_reason)
    tool_uses = [b for b in message["content"] if b.get("type") == "tool_use"]
    reason = response.stop_reason
    if tool_uses and reason == "tool_use":
        return (yield from run_tools(session, tool_uses))
    if tool_uses:  # complete calls in an answer that stopped for another reason
        yield from answer_without_running(session, tool_uses, CUT_TOOL_TEXT)
    yield from _stop_notices(session, reason)
    if reason == "pause_turn":
        return None
    return ("ok", reason)


def _stop_notices(session: Session, reason: str) -> Iterator[SessionEvent]:
    if reason == "max_tokens":
        mark_in_transcript(session, "max_tokens")
        yield Notice("warning", "max_tokens", {"kept": True})
    elif reason == "refusal":
        yield Notice("warning", "refusal")


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if b.get("type") == "text")
