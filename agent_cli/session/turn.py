"""One turn: compact -> request -> tools -> record, repeated until the model stops.

`TurnRunner` is built from the session's parts (the `Conversation`, the `Compactor`, the
`DurableContext`) with the provider and the toolbox, and owns what a request carries
around its messages (system prompt, project instructions, tools, output limit). This
module is the request/stream step and the loop; the tool step is `session.tool_step`
and write-ahead recording is `session.recording`.

Contract of `TurnRunner.run_turn`:
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
- `request_watcher` (if set) is called just before each model request is sent, so the
  REPL can show that it waits; it sees no content and must return quickly.
- An answer cut at max_tokens keeps its whole blocks (the provider drops a half tool call),
  answers its whole calls without running them, and a `notice` record marks the cut.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Iterator
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
    ModelRequest,
    ModelResponse,
    Notice,
    RetryNotice,
    SessionEvent,
    StreamRestarted,
    TextDelta,
    TurnEnded,
    Usage,
)
from agent_cli.protocol import answer_dangling_tool_uses
from agent_cli.session.compactor import Compactor
from agent_cli.session.conversation import Conversation
from agent_cli.session.durable_context import DurableContext
from agent_cli.session.instructions import (
    RECORD_KIND,
    ProjectInstructions,
    instructions_record,
)
from agent_cli.session.oversized import MessageShrinker
from agent_cli.session.recording import (
    Steps,
    mark_in_transcript,
    record,
    record_held_results,
    record_results,
    record_user_text,
    write_failed,
)
from agent_cli.session.request_context import RequestFrame, build_frame
from agent_cli.session.tool_step import (
    CUT_TOOL_TEXT,
    NOT_RUN_TOOL_TEXT,
    Outcome,
    answer_without_running,
    run_tools,
)
from agent_cli.session.unique_ids import stream_with_unique_ids

if TYPE_CHECKING:
    from agent_cli.provider.base import Provider
    from agent_cli.store.artifacts import ArtifactStore
    from agent_cli.tokens import TokenCounter
    from agent_cli.tools.toolbox import ToolRunner

MAX_STEPS_PER_TURN = 40
INTERRUPTED_MARK = "[answer interrupted by the user]"


class TurnRunner:
    """Runs turns and forced compactions of one session; see the module contract."""

    def __init__(
        self,
        *,
        conversation: Conversation,
        compactor: Compactor,
        durable: DurableContext,
        provider: Provider,
        toolbox: ToolRunner,
        counter: TokenCounter,
        system_prompt: str,
        artifacts: ArtifactStore,
        max_tokens: int = 8192,
    ) -> None:
        self.conversation = conversation
        self.compactor = compactor
        self.durable = durable
        self.provider = provider
        self.toolbox = toolbox
        self.counter = counter
        self.system_prompt = system_prompt
        self.max_tokens = max_tokens
        self.artifacts = artifacts  # where oversized user messages are stored whole
        self._instructions = ProjectInstructions()
        self._last_estimate = 0  # the request's tokens as estimated, for calibration
        self.request_watcher: Callable[[], None] | None = None  # told as each request goes

    @property
    def project_instructions(self) -> ProjectInstructions:
        return self._instructions

    def use_project_instructions(self, found: ProjectInstructions) -> None:
        """Carry `found` in every request from now on, and note in the transcript which
        file the requests carry. The note is bookkeeping: a refused write is skipped."""
        self._instructions = found
        payload = instructions_record(found)
        if payload is not None:
            with contextlib.suppress(StoreError):
                self.conversation.log.append(RECORD_KIND, payload)

    def shrinker(self) -> MessageShrinker:
        """What stores oversized user texts, under the policy in force now."""
        return MessageShrinker(
            self.artifacts, self.conversation.session_id, self.counter, self.compactor.policy
        )

    def request_frame(self, durable_text: str) -> RequestFrame:
        """The parts the next request carries around its messages."""
        return build_frame(
            self.counter,
            system=self.system_prompt,
            project_instructions=self._instructions.text,
            durable_text=durable_text,
            tools=tuple(self.toolbox.schemas()),
        )

    def reserved_tokens(self, durable_text: str) -> int:
        """Tokens a request carries outside the view (`RequestFrame.reserved_tokens`)."""
        return self.request_frame(durable_text).reserved_tokens

    def prepare_request(self) -> Generator[SessionEvent, None, ModelRequest]:
        """Compact if needed, render the durable block, and build the next request."""
        frame = self.request_frame(self.durable.render())
        yield from self.compactor.compact(frame, self.durable.state, forced=False)
        self._last_estimate = frame.reserved_tokens + self.compactor.view_tokens()
        return ModelRequest(
            system=frame.system,
            durable_context=frame.durable_text,
            messages=self.conversation.note_sent(),
            tools=frame.tools,
            max_tokens=self.max_tokens,
            project_instructions=frame.project_instructions,
        )

    def note_usage(self, usage: Usage) -> None:
        """Record the API's usage and recalibrate the estimate against it."""
        # usage is bookkeeping; the message records are what must not be lost
        with contextlib.suppress(StoreError):
            self.conversation.log.append_usage(usage, self._last_estimate)
        self.compactor.calibrate(usage.prompt_tokens, self._last_estimate)

    def run_turn(self, text: str) -> Iterator[SessionEvent]:
        """The turn loop (see module contract)."""
        conversation = self.conversation
        if not (yield from record_held_results(conversation)) or not (
            yield from record_user_text(conversation, text, self.shrinker().shrink)
        ):
            yield TurnEnded("failed")
            return
        for step in range(1, MAX_STEPS_PER_TURN + 1):
            try:
                outcome = yield from self._one_step()
            except KeyboardInterrupt:
                outcome = yield from self._settle_after_interrupt()
            if outcome is not None:
                yield TurnEnded(outcome[0], stop_reason=outcome[1], steps=step)
                return
        yield Notice("warning", "step_limit", {"steps": MAX_STEPS_PER_TURN})
        yield TurnEnded("ok", stop_reason="step_limit", steps=MAX_STEPS_PER_TURN)

    def compact_now(self, focus: str | None) -> Iterator[SessionEvent]:
        """`/compact`: held results first, then compaction whatever the size. A view that
        cannot fit is reported, not raised; Ctrl-C ends it with a notice."""
        if not (yield from record_held_results(self.conversation)):
            return
        try:
            frame = self.request_frame(self.durable.render())
            yield from self.compactor.compact(frame, self.durable.state, forced=True, focus=focus)
        except MessageViewLimitExceeded as error:
            yield self.compactor.blocked_event(error)
        except StoreError as error:
            yield write_failed(error)
        except KeyboardInterrupt:
            yield Notice("warning", "cancelled", {"during": "compaction"})

    def _settle_after_interrupt(self) -> Steps[Outcome]:
        """Ctrl-C landed where no finer handler took it: while compacting (nothing was
        adopted), or while the REPL showed an event. Every message is already recorded;
        only a tool call left without results needs answering, so the view stays one the
        API accepts."""
        _, answers = answer_dangling_tool_uses(self.conversation.view, NOT_RUN_TOOL_TEXT)
        if answers is not None:
            yield from record_results(self.conversation, answers["content"])
        yield Notice("warning", "cancelled", {"during": "turn"})
        return ("cancelled", None)

    def _one_step(self) -> Steps[Outcome]:
        """One request and its tools; (outcome, stop_reason) to end, None to go on."""
        try:
            request = yield from self.prepare_request()
        except MessageViewLimitExceeded as error:
            yield self.compactor.blocked_event(error)
            return ("blocked", None)
        except (ToolProtocolError, WireFormatError) as error:
            yield Notice("error", "invalid_view", error=error)
            return ("failed", None)
        except StoreError as error:  # a compaction that could not be recorded: send nothing
            yield write_failed(error)
            return ("failed", None)
        response = yield from stream_with_unique_ids(
            lambda: self._stream(request), self.conversation.view, self.note_usage
        )
        if response is None:
            return ("failed", None)
        if isinstance(response, str):
            return ("cancelled", None)
        return (yield from self._after_response(response))

    def _stream(self, request: ModelRequest) -> Steps[ModelResponse | str | None]:
        """Stream one request; the response, None on failure, "cancelled" on Ctrl-C."""
        parts: list[str] = []
        try:
            if self.request_watcher is not None:
                self.request_watcher()
            for event in self.provider.stream(request):
                if isinstance(event, TextDelta):
                    parts.append(event.text)
                    yield AssistantText(event.text)
                elif isinstance(event, RetryNotice):
                    parts.clear()
                    yield StreamRestarted(event.attempt, event.delay_seconds, event.kind)
                elif isinstance(event, ModelResponse):
                    return event
        except KeyboardInterrupt:
            yield from self._keep_partial_answer("".join(parts))
            return "cancelled"
        except ProviderError as error:
            yield Notice("error", "provider_failed", error=error)
            return None
        yield Notice("error", "provider_failed")  # the stream ended without an answer
        return None

    def _keep_partial_answer(self, text: str) -> Iterator[SessionEvent]:
        yield Notice("warning", "cancelled", {"during": "answer"})
        if text.strip():
            message = {
                "role": "assistant",
                "content": [{"type": "text", "text": f"{text}\n{INTERRUPTED_MARK}"}],
            }
            yield from record(self.conversation, message)

    def _after_response(self, response: ModelResponse) -> Steps[Outcome]:
        message, reason = response.message, response.stop_reason
        self.note_usage(response.usage)
        if not message.get("content"):
            if reason == "max_tokens":
                mark_in_transcript(self.conversation, "max_tokens")
                yield Notice("warning", "max_tokens", {"kept": False})
            else:
                yield Notice("warning", "empty_answer")
            return ("ok", reason)
        if not (yield from record(self.conversation, message)):
            return ("failed", reason)
        yield AssistantDone(_text_of(message), reason)
        tool_uses = [b for b in message["content"] if b.get("type") == "tool_use"]
        if tool_uses and reason == "tool_use":
            return (yield from run_tools(self.toolbox, self.conversation, tool_uses))
        if tool_uses:  # complete calls in an answer that stopped for another reason
            yield from answer_without_running(self.conversation, tool_uses, CUT_TOOL_TEXT)
        yield from self._stop_notices(reason)
        if reason == "pause_turn":
            return None
        return ("ok", reason)

    def _stop_notices(self, reason: str) -> Iterator[SessionEvent]:
        if reason == "max_tokens":
            mark_in_transcript(self.conversation, "max_tokens")
            yield Notice("warning", "max_tokens", {"kept": True})
        elif reason == "refusal":
            yield Notice("warning", "refusal")


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if b.get("type") == "text")
