"""One turn: compact -> request -> tools -> record, repeated until the model stops.

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

import contextlib
import signal
from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from agent_cli.errors import (
    MessageViewLimitExceeded,
    PermissionQuestionInterrupted,
    ProviderError,
    StoreError,
    TerminationRequested,
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
    ToolFinished,
    ToolStarted,
    TurnEnded,
)
from agent_cli.protocol import answer_dangling_tool_uses
from agent_cli.session import describe
from agent_cli.session.log import NOTICE
from agent_cli.session.oversized import shrink_user_message
from agent_cli.session.unique_ids import stream_with_unique_ids

if TYPE_CHECKING:
    from agent_cli.session.core import Session

MAX_STEPS_PER_TURN = 40
INTERRUPTED_TOOL_TEXT = "Interrupted by the user (Ctrl-C): the tool did not finish."
NOT_RUN_TOOL_TEXT = "Not run: the turn was interrupted before this tool started."
PERMISSION_CANCELLED = "permission_cancelled"  # the notice code
ASKING_INTERRUPTED_TEXT = (
    "Not run: the user pressed Ctrl-C when asked for permission, which cancelled the turn."
)
TERMINATED_TOOL_TEXT = (
    "Stopped: agent-cli was ended by {signal} while this tool ran; a running command "
    "and its whole process group were killed."
)
CUT_TOOL_TEXT = "Not run: the answer was cut at max_tokens before the turn could go on."
INTERRUPTED_MARK = "[answer interrupted by the user]"
CUT_NOTICE_TEXT = (
    "The answer hit the output limit and was cut; what arrived is kept. Ask the agent to continue."
)
CUT_EMPTY_NOTICE_TEXT = (
    "The answer hit the output limit before any part of it was whole; "
    "nothing was kept. Ask again, perhaps for less at once."
)

Outcome = tuple[str, str | None] | None  # (turn outcome, stop reason) to end; None to go on
Value = TypeVar("Value")
Steps = Generator[SessionEvent, None, Value]  # a step's events, then what it returns


def run_turn_steps(session: Session, text: str) -> Iterator[SessionEvent]:
    """The turn loop behind `Session.run_turn` (see module contract)."""
    if not (yield from _record_held_results(session)) or not (
        yield from _record_user_text(session, text)
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
    yield Notice(
        "warning", "step_limit", f"Stopped after {MAX_STEPS_PER_TURN} model requests in one turn."
    )
    yield TurnEnded("ok", stop_reason="step_limit", steps=MAX_STEPS_PER_TURN)


def _settle_after_interrupt(session: Session) -> Steps[Outcome]:
    """Ctrl-C landed where no finer handler took it: while compacting (nothing was adopted),
    or while the REPL showed an event. Every message is already recorded; only a tool call
    left without results needs answering, so the view stays one the API accepts."""
    _, answers = answer_dangling_tool_uses(session.view, NOT_RUN_TOOL_TEXT)
    if answers is not None:
        yield from _record_results(session, answers["content"])
    yield Notice("warning", "cancelled", "Cancelled: the turn was interrupted.")
    return ("cancelled", None)


def run_forced_compaction(session: Session, focus: str | None) -> Iterator[SessionEvent]:
    """`Session.compact_now`: held results first, then compaction whatever the size. A
    view that cannot fit is reported, not raised; Ctrl-C ends it with a notice."""
    if not (yield from _record_held_results(session)):
        return
    try:
        yield from session.compact_forced(focus)
    except MessageViewLimitExceeded as error:
        yield describe.blocked_event(session, error)
    except StoreError as error:
        yield Notice("error", "transcript_write_failed", session.describe_store_error(error))
    except KeyboardInterrupt:
        yield Notice("warning", "cancelled", "Cancelled: compaction was interrupted.")


def _one_step(session: Session) -> Steps[Outcome]:
    """One request and its tools; returns (outcome, stop_reason) to end, None to go on."""
    try:
        request = yield from session.prepare_request()
    except MessageViewLimitExceeded as error:
        yield describe.blocked_event(session, error)
        return ("blocked", None)
    except (ToolProtocolError, WireFormatError) as error:
        yield Notice("error", "invalid_view", f"The view cannot be sent: {error}.")
        return ("failed", None)
    except StoreError as error:  # a compaction that could not be recorded: send nothing
        yield Notice("error", "transcript_write_failed", session.describe_store_error(error))
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
        yield Notice("error", "provider_failed", session.describe_provider_error(error))
        return None
    yield Notice("error", "provider_failed", "The provider ended the stream without an answer.")
    return None


def _keep_partial_answer(session: Session, text: str) -> Iterator[SessionEvent]:
    yield Notice("warning", "cancelled", "Cancelled: the answer was interrupted.")
    if text.strip():
        message = {
            "role": "assistant",
            "content": [{"type": "text", "text": f"{text}\n{INTERRUPTED_MARK}"}],
        }
        yield from _record(session, message)


def _after_response(session: Session, response: ModelResponse) -> Steps[Outcome]:
    message = response.message
    session.note_usage(response.usage)
    if not message.get("content"):
        if response.stop_reason == "max_tokens":
            _mark_in_transcript(session, "max_tokens")
            yield Notice("warning", "max_tokens", CUT_EMPTY_NOTICE_TEXT)
        else:
            yield Notice("warning", "empty_answer", "The model returned an empty answer.")
        return ("ok", response.stop_reason)
    if not (yield from _record(session, message)):
        return ("failed", response.stop_reason)
    yield AssistantDone(_text_of(message), response.stop_reason)
    tool_uses = [b for b in message["content"] if b.get("type") == "tool_use"]
    reason = response.stop_reason
    if tool_uses and reason == "tool_use":
        return (yield from _run_tools(session, tool_uses))
    if tool_uses:  # complete calls in an answer that stopped for another reason
        yield from _answer_without_running(session, tool_uses, CUT_TOOL_TEXT)
    yield from _stop_notices(session, reason)
    if reason == "pause_turn":
        return None
    return ("ok", reason)


def _stop_notices(session: Session, reason: str) -> Iterator[SessionEvent]:
    if reason == "max_tokens":
        _mark_in_transcript(session, "max_tokens")
        yield Notice("warning", "max_tokens", CUT_NOTICE_TEXT)
    elif reason == "refusal":
        yield Notice("warning", "refusal", "The model declined to answer this request.")


def _run_tools(session: Session, tool_uses: list[dict[str, Any]]) -> Steps[Outcome]:
    results: list[dict[str, Any]] = []
    try:
        for block in tool_uses:
            yield ToolStarted(block["id"], block["name"], dict(block.get("input") or {}))
            outcome = session.toolbox.run(block["name"], dict(block.get("input") or {}))
            results.append(_result_block(block["id"], outcome.content, outcome.is_error))
            yield ToolFinished(
                block["id"],
                block["name"],
                outcome.is_error,
                outcome.summary,
                outcome.size_bytes,
                outcome.artifact_pointer,
                outcome.content,
            )
    except KeyboardInterrupt as interrupt:
        text = INTERRUPTED_TOOL_TEXT
        if isinstance(interrupt, PermissionQuestionInterrupted):
            text = ASKING_INTERRUPTED_TEXT
        yield from _record_stopped(session, tool_uses, results, text)
        yield _cancel_notice(interrupt)
        return ("cancelled", "tool_use")
    except TerminationRequested as stop:  # recorded, then the process goes on ending
        text = TERMINATED_TOOL_TEXT.format(signal=signal_name(stop.signal_number))
        yield from _record_stopped(session, tool_uses, results, text)
        raise
    if not (yield from _record_results(session, results)):
        return ("failed", "tool_use")
    return None


def _cancel_notice(interrupt: KeyboardInterrupt) -> Notice:
    """Nothing ran when Ctrl-C came at the permission question: say that, not 'interrupted'."""
    if isinstance(interrupt, PermissionQuestionInterrupted):
        return Notice(
            "warning",
            PERMISSION_CANCELLED,
            f"Cancelled at the permission question: {interrupt.tool} was not run.",
        )
    return Notice("warning", "cancelled", "Cancelled: the running tool was interrupted.")


def _record_stopped(
    session: Session, tool_uses: list[dict[str, Any]], results: list[dict[str, Any]], text: str
) -> Steps[bool]:
    """Answer the call that was running with `text` and the ones after it as not run."""
    stopped_at = len(results)
    for index in range(stopped_at, len(tool_uses)):
        said = text if index == stopped_at else NOT_RUN_TOOL_TEXT
        results.append(_result_block(tool_uses[index]["id"], said, True))
    return (yield from _record_results(session, results))


def _record_results(session: Session, results: list[dict[str, Any]]) -> Steps[bool]:
    """Record one tool-results message; if the disk refuses, hold it for the next turn."""
    message = {"role": "user", "content": results}
    if (yield from _record(session, message)):
        return True
    session.hold_unrecorded_results(message)
    yield Notice(
        "warning",
        "results_held",
        "The tool results are kept in memory and will be recorded before your next "
        "message, once the transcript can be written again.",
    )
    return False


def _record_held_results(session: Session) -> Steps[bool]:
    """Write tool results a failed append left in memory, before anything else."""
    try:
        if session.record_held_results():
            yield Notice(
                "info", "results_recorded", "The tool results held in memory are now recorded."
            )
    except StoreError as error:
        yield Notice("error", "transcript_write_failed", session.describe_store_error(error))
        return False
    return True


def _answer_without_running(
    session: Session, tool_uses: list[dict[str, Any]], text: str
) -> Iterator[SessionEvent]:
    results = [_result_block(b["id"], text, True) for b in tool_uses]
    yield from _record(session, {"role": "user", "content": results})


def _result_block(tool_use_id: str, content: str, is_error: bool) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": content or "(no output)",
    }
    if is_error:
        block["is_error"] = True
    return block


def _record_user_text(session: Session, text: str) -> Steps[bool]:
    """Record the user's message; an oversized one is stored as an artifact first and
    recorded as its preview (`session.oversized`), so it can never block the session."""
    try:
        message = shrink_user_message(session, {"role": "user", "content": text})
    except StoreError as error:
        yield Notice("error", "transcript_write_failed", session.describe_store_error(error))
        return False
    if message["content"] is not text:
        yield Notice(
            "info",
            "message_stored",
            f"Your message ({len(text):,} characters) is large: it was stored whole as an "
            "artifact and the conversation carries its beginning, its end and its pointer.",
        )
    return (yield from _record(session, message))


def _record(session: Session, message: dict[str, Any]) -> Steps[bool]:
    """Write-ahead: transcript first, then the view. False (and a notice) on failure."""
    try:
        session.append_message(message)
    except StoreError as error:
        yield Notice("error", "transcript_write_failed", session.describe_store_error(error))
        return False
    return True


def _mark_in_transcript(session: Session, code: str) -> None:
    """A `notice` record, so the transcript tells a cut answer from a whole one. It is
    bookkeeping: failing to write it does not fail a turn whose messages are recorded."""
    with contextlib.suppress(StoreError):
        session.log.append(NOTICE, {"code": code})


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if b.get("type") == "text")
