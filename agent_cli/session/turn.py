"""One turn: record -> compact -> request -> check -> record -> tools, until the model stops.

This module is the turn, read top to bottom in the order it runs: `TurnRunner` (built
from the session's parts, the `Conversation`, the `Compactor` and the `DurableContext`,
with the provider and the toolbox; it owns what a request carries around its messages:
system prompt, project instructions, tools, output limit) and then the steps of a turn it
takes: write-ahead recording, the check of an answer's tool ids, and running one answer's
tool calls.

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
- Ctrl-C while streaming keeps the text that arrived (marked; a lone surrogate in it is
  kept as U+FFFD), drops unfinished tool calls.
  Ctrl-C anywhere else (compacting, or thrown in while the REPL shows an event) ends the
  turn "cancelled" too: nothing half-adopted, a call left without results is answered.
- `request_watcher` (if set) is called just before each model request is sent, so the
  REPL can show that it waits; it sees no content and must return quickly.
- An answer cut at max_tokens keeps its whole blocks (the provider drops a half tool call),
  answers its whole calls without running them, and a `notice` record marks the cut.
- A paused answer (`pause_turn`) is recorded and the turn goes on from it, at most
  `MAX_PAUSES_PER_TURN` times: the next pause ends the turn "ok" with a `pause_limit`
  notice (agent-cli offers no server tools, so an endpoint that always pauses must not
  make one prompt send a paid request per step).
- A turn tells the compactor it begins (`Compactor.begin_turn`): a summary that failed in
  the last turn may be asked for again, once.

Contract of the recording steps (`record*`): each yields its notices and returns True
when the message is recorded (transcript, then view: `Conversation.append`) and False
when the store refused it; a refusal is never raised out of a turn. Tool results the
disk refuses are held by the conversation (`Conversation.hold_unrecorded_results`) and
`record_held_results` writes them first thing in the next turn. `mark_in_transcript` is
bookkeeping and never fails a turn.

Why an answer's tool ids are checked (`stream_with_unique_ids`) before it is recorded or
run: the API rejects any history in which a tool_use id is empty, outside its grammar
(`^[a-zA-Z0-9_-]+$`; we also bound the length, see `agent_cli.protocol`), or appears
twice; it also needs every call to name its tool. A response that broke one of these
rules would, once recorded, make every later request (and every `--resume`) fail for
good. An answer holding text that UTF-8 cannot carry (a lone surrogate, which a broken
endpoint can send, in its text or a tool's name) could not be recorded at all, and is
treated the same. Such a response is dropped unrecorded, with no tool run, and the same
request is sent once more; a second bad response fails the turn with a notice. The
recorded history stays valid either way.

Contract of `run_tools` (the tool step): each call's permission question, when it asks
one, is recorded before it is put and once answered (`question_marks`: a session killed
at the question resumes saying the call never ran). Exactly one tool_result answers every tool_use,
in order, even when a tool fails, is denied, or the user presses Ctrl-C (the interrupted
call and the unrun ones after it get error results, recorded before the turn ends
"cancelled"; a command stopped by Ctrl-C is answered with its output so far, marked
interrupted, and its `ToolFinished(interrupted=True)` follows once that is recorded). A
termination signal records the same way and is then re-raised. Results the disk refuses
are held (see the recording steps). It returns None to go on, or (outcome, stop reason).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from agent_cli.errors import (
    MessageViewLimitExceeded,
    PermissionQuestionInterrupted,
    PermissionQuestionTerminated,
    ProviderError,
    StoreError,
    TerminationRequested,
    ToolNotStarted,
    ToolProtocolError,
    WireFormatError,
    failure_reason,
)
from agent_cli.events import (
    ANSWER_DROPPED,
    AssistantDone,
    AssistantText,
    ModelRequest,
    ModelResponse,
    Notice,
    RetryNotice,
    SessionEvent,
    StreamRestarted,
    TextDelta,
    ToolFinished,
    ToolStarted,
    TurnEnded,
    Usage,
    UsageSoFar,
)
from agent_cli.protocol import (
    DUPLICATE_ID,
    UNSENDABLE_TEXT,
    answer_dangling_tool_uses,
    find_answer_id_problem,
)
from agent_cli.secret_forms import SecretForms
from agent_cli.session.call_limit import CallsKept, keep_calls_that_fit
from agent_cli.session.compactor import Compactor
from agent_cli.session.conversation import Conversation
from agent_cli.session.durable_context import DurableContext
from agent_cli.session.instructions import (
    RECORD_KIND,
    ProjectInstructions,
    instructions_record,
    redact_instructions,
)
from agent_cli.session.log import NOTICE
from agent_cli.session.oversized import MessageShrinker
from agent_cli.session.question_marks import QuestionMarks
from agent_cli.session.request_context import RequestFrame, build_frame
from agent_cli.session.resumed_secrets import redact_resumed_view
from agent_cli.session.shown_errors import without_secrets
from agent_cli.termination import signal_name
from agent_cli.tools.output import ToolInterrupted, ToolOutcome, ToolTerminated

if TYPE_CHECKING:
    from agent_cli.provider.base import Provider
    from agent_cli.store.artifacts import ArtifactStore
    from agent_cli.tokens import TokenCounter
    from agent_cli.tools.redaction import SecretRedactor
    from agent_cli.tools.toolbox import ToolRunner

MAX_STEPS_PER_TURN = 40
# agent-cli offers no server tools, so the API has nothing to pause for: an endpoint that
# keeps answering `pause_turn` would otherwise be sent a paid request per step.
MAX_PAUSES_PER_TURN = 2  # paused answers a turn goes on from; the next one ends it
LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # text UTF-8 cannot carry
INTERRUPTED_MARK = "[answer interrupted by the user]"
TERMINATED_ANSWER_MARK = "[answer cut: agent-cli was ended by {signal}]"
INTERRUPTED_TOOL_TEXT = "Interrupted by the user (Ctrl-C): the tool did not finish."
NOT_RUN_TOOL_TEXT = "Not run: the turn was interrupted before this tool started."
PERMISSION_CANCELLED = "permission_cancelled"  # the notice code
NOT_STARTED_TEXT = (
    "Not run: the user pressed Ctrl-C while this call was being prepared, before it "
    "started; that cancelled the turn."
)
TOOL_NOT_STARTED = "tool_not_started"  # the notice code
ASKING_INTERRUPTED_TEXT = (
    "Not run: the user pressed Ctrl-C when asked for permission, which cancelled the turn."
)
TERMINATED_TOOL_TEXT = (
    "Stopped: agent-cli was ended by {signal} while this tool ran; a running command "
    "and its whole process group were killed."
)
TERMINATED_ASKING_TEXT = (
    "Not run: agent-cli was ended by {signal} while asking the user for permission to run "
    "this tool."
)
CUT_TOOL_TEXT = "Not run: the answer was cut at max_tokens before the turn could go on."
STOPPED_TOOL_TEXT = (
    "Not run: the answer ended with stop reason {reason}, not tool_use, so its calls were not "
    "run; ask for them again if they are still needed."
)

Value = TypeVar("Value")
Steps = Generator[SessionEvent, None, Value]  # a step's events, then what it returns
Message = dict[str, Any]
Outcome = tuple[str, str | None] | None  # (turn outcome, stop reason) to end; None to go on
Streamed = ModelResponse | str | None
StreamSteps = Generator[SessionEvent, None, Streamed]


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
        self._last_frame: RequestFrame | None = None  # and the frame it carried
        self._last_view_sized = False  # and whether its view held images or documents
        self._pauses = 0  # paused answers in the running turn (`MAX_PAUSES_PER_TURN`)
        self._calls_note: str | None = None  # of the last answer recorded (`call_limit`)
        self.request_watcher: Callable[[], None] | None = None  # told as each request goes
        self._after_tool: list[Notice] = []  # said once the running call's result is shown
        self._learned: list[SecretForms] = []  # hidden once the running call is finished
        # checks the dotenv files (`Toolbox.check_dotenv`) before every request is built
        self.dotenv_check: Callable[[], None] | None = None

    def say_after_tool(self, notice: Notice) -> None:
        """Say `notice` once the tool call running now is finished (what a toolbox learned
        while it ran: `Session.note_dotenv_change`), or, with no call running, before the
        next request (`learn_before_request`)."""
        self._after_tool.append(notice)

    def _take_after_tool(self) -> list[Notice]:
        taken, self._after_tool = self._after_tool, []
        return taken

    def hide_learned(self, learned: SecretRedactor) -> None:
        """The secrets `learned` knows were learned while the running call ran, or before a
        request (`Session.note_dotenv_change`): the project instructions are redacted of
        them now (`instructions.redact_instructions`; said after the call when that
        redacted something), and the view and the results of this answer's calls once the
        call is finished (`run_tools`) or before the request is built
        (`learn_before_request`), so that no later request holds them."""
        self._learned.append(learned.forms)
        before = self._instructions
        self._instructions = redact_instructions(before, learned)
        if self._instructions.redacted > before.redacted:
            fields = {"source": before.source, "redacted": self._instructions.redacted}
            self.say_after_tool(Notice("warning", "project_instructions_redacted", fields))

    def _hide_learned(self, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """`results` (of the calls of the answer that ran so far) with the secrets learned
        while they ran redacted, the view redacted of them too (`Conversation.redact_view`:
        as a resumed view is, unrecorded)."""
        learned, self._learned = self._learned, []
        for secrets in learned:
            self.conversation.redact_view(secrets)
            message = {"role": "user", "content": results}
            [redacted], _ = redact_resumed_view([message], secrets)
            results = list(redacted["content"])
        return results

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
        """What stores oversized texts (the user's, the model's), under the policy in force
        now."""
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
            instructions_source=self._instructions.source,
        )

    def reserved_tokens(self, durable_text: str) -> int:
        """Tokens a request carries outside the view (`RequestFrame.reserved_tokens`)."""
        return self.request_frame(durable_text).reserved_tokens

    def learn_before_request(self) -> Iterator[SessionEvent]:
        """Check the dotenv files (`dotenv_check`) before a request is built, and hide and
        say at once what that learned: a file the user edited between turns, with no call
        running to see it, is learned before the very next request (a turn's first, a
        follow-up, one compaction's summary, `/compact`'s), which then carries none of its
        values; and before a view the user opens shows what the next request carries or
        the last result was (`Session.learn_dotenv_changes`), which sends nothing. Held
        results are redacted with the view (`Conversation.redact_view`), so they rejoin it
        without the values. Costs a check (`tools.dotenv_watch`: stats, nothing read
        unless a stamp changed)."""
        if self.dotenv_check is not None:
            self.dotenv_check()
        self._hide_learned([])
        yield from self._take_after_tool()

    def prepare_request(self) -> Generator[SessionEvent, None, ModelRequest]:
        """Learn what the dotenv files gained (`learn_before_request`), compact if needed,
        render the durable block, and build the next request."""
        yield from self.learn_before_request()
        frame = self.request_frame(self.durable.render())
        yield from self.compactor.compact(frame, self.durable.state, forced=False)
        yield from self.compactor.make_room_for_uncounted(frame, self.durable.state)
        self._last_estimate = frame.reserved_tokens + self.compactor.view_tokens()
        self._last_frame = frame
        messages = self.conversation.note_sent()
        self._last_view_sized = self.conversation.index.holds_sized_content(self.conversation.view)
        return ModelRequest(
            system=frame.system,
            durable_context=frame.durable_text,
            messages=messages,
            tools=frame.tools,
            max_tokens=self.max_tokens,
            project_instructions=frame.project_instructions,
        )

    def note_usage(self, usage: Usage) -> None:
        """Record the API's usage and recalibrate the estimate against it. Usage means the
        API processed the request's prompt: the prompt cache holds it now."""
        self.conversation.note_processed()
        # usage is bookkeeping; the message records are what must not be lost
        with contextlib.suppress(StoreError):
            self.conversation.log.append_usage(usage, self._last_estimate)
        self.compactor.calibrate(
            usage.prompt_tokens, self._last_estimate, view_sized=self._last_view_sized
        )
        if self._last_frame is not None:
            self.compactor.note_counted_frame(self._last_frame)

    def run_turn(self, text: str) -> Iterator[SessionEvent]:
        """The turn loop (see module contract)."""
        conversation = self.conversation
        self._pauses = 0
        self.compactor.begin_turn()
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

    def cancel_before_start(self, text: str, during: str) -> Iterator[SessionEvent]:
        """Ctrl-C before the turn loop began (`during` says where): the user's message is
        recorded all the same, as a Ctrl-C during compaction leaves it, so nothing typed
        is lost; nothing is sent."""
        recorded = (yield from record_held_results(self.conversation)) and (
            yield from record_user_text(self.conversation, text, self.shrinker().shrink)
        )
        if not recorded:
            yield TurnEnded("failed")
            return
        yield Notice("warning", "cancelled", {"during": during})
        yield TurnEnded("cancelled")

    def compact_now(self, focus: str | None) -> Iterator[SessionEvent]:
        """`/compact`: held results first, then compaction whatever the size. A view that
        cannot fit is reported, not raised; Ctrl-C ends it with a notice."""
        if not (yield from record_held_results(self.conversation)):
            return
        try:
            yield from self.learn_before_request()  # before the summary request it asks for
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
            yield from record_results(self.conversation, answers["content"], self._calls_note)
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
        """Stream one request; the response, None on failure, "cancelled" on Ctrl-C. Every
        attempt the API began was billed: one given up (Ctrl-C, a termination signal, a
        retry, a failure) has the usage it reported then, its output at least what arrived,
        recorded and priced like any other. The text of an answer stopped by Ctrl-C or a
        termination signal is kept, marked as cut; a termination then goes on ending."""
        parts: list[str] = []
        started: Usage | None = None
        try:
            if self.request_watcher is not None:
                self.request_watcher()
            for event in self.provider.stream(request):
                if isinstance(event, TextDelta):
                    parts.append(event.text)
                    yield AssistantText(event.text)
                elif isinstance(event, UsageSoFar):
                    started = event.usage
                elif isinstance(event, RetryNotice):
                    given_up, started = started, None  # noted once, whatever comes next
                    self._note_given_up(given_up, parts)
                    parts.clear()
                    yield StreamRestarted(event.attempt, event.delay_seconds, event.kind)
                elif isinstance(event, ModelResponse):
                    return event
        except KeyboardInterrupt:
            self._note_given_up(started, parts)
            yield Notice("warning", "cancelled", {"during": "answer"})
            yield from self._keep_partial_answer("".join(parts), INTERRUPTED_MARK)
            return "cancelled"
        except TerminationRequested as stop:  # kept, then the process goes on ending
            self._note_given_up(started, parts)
            mark = TERMINATED_ANSWER_MARK.format(signal=signal_name(stop.signal_number))
            yield from self._keep_partial_answer("".join(parts), mark)
            raise
        except ProviderError as error:
            self._note_given_up(started, parts)
            shown = without_secrets(error, self.toolbox.secret_forms)
            yield Notice("error", "provider_failed", error=shown)
            return None
        self._note_given_up(started, parts)
        yield Notice("error", "provider_failed")  # the stream ended without an answer
        return None

    def _note_given_up(self, started: Usage | None, parts: list[str]) -> None:
        """Record the usage of an attempt given up after the API began it (`started`, what
        it reported then), its output at least the text that arrived (`parts`)."""
        if started is not None:
            self.note_usage(started.with_output_at_least(self.counter.count_text("".join(parts))))

    def _keep_partial_answer(self, text: str, mark: str) -> Iterator[SessionEvent]:
        """Record the text of an answer cut short, with `mark` after it; nothing when
        no text arrived."""
        if text.strip():
            kept = LONE_SURROGATE.sub("\ufffd", text)  # else it could not be recorded
            message = {
                "role": "assistant",
                "content": [{"type": "text", "text": f"{kept}\n{mark}"}],
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
        try:  # what of the answer is stored apart: the calls left out, oversized texts
            kept = self._calls_that_fit(message)
            shrunk = self.shrinker().shrink(kept.message)
        except StoreError as error:  # the whole answer could not be kept: record none of it
            yield Notice("error", "answer_not_kept", error=error)
            return ("failed", reason)
        message = kept.message
        if not (yield from record(self.conversation, shrunk)):
            return ("failed", reason)
        # a Ctrl-C while the next events are shown answers the calls with this note too
        self._calls_note = kept.note
        yield AssistantDone(_text_of(message), reason)
        if kept.note is not None:
            yield Notice("warning", "calls_not_run", {"asked": kept.asked, "ran": kept.kept})
        tool_uses = [b for b in message["content"] if b.get("type") == "tool_use"]
        if tool_uses and reason == "tool_use":
            return (
                yield from run_tools(
                    self.toolbox,
                    self.conversation,
                    tool_uses,
                    kept.note,
                    self._take_after_tool,
                    self._hide_learned,
                )
            )
        if tool_uses:  # complete calls in an answer that stopped for another reason
            yield from self._answer_calls_at_stop(tool_uses, reason, kept.note)
        yield from self._stop_notices(reason)
        if reason == "pause_turn":
            return (yield from self._after_pause())
        return ("ok", reason)

    def _answer_calls_at_stop(
        self, tool_uses: list[dict[str, Any]], reason: str | None, note: str | None
    ) -> Iterator[SessionEvent]:
        """Answer the calls of an answer that did not stop for them as not run, saying why to
        the model and, unless the answer was cut (its own notice says so), to the user."""
        if reason == "max_tokens":
            yield from answer_without_running(self.conversation, tool_uses, CUT_TOOL_TEXT, note)
            return
        text = STOPPED_TOOL_TEXT.format(reason=reason)
        yield from answer_without_running(self.conversation, tool_uses, text, note)
        yield Notice("warning", "calls_at_stop", {"calls": len(tool_uses), "reason": reason})

    def _calls_that_fit(self, message: dict[str, Any]) -> CallsKept:
        """The answer with the calls one step may run (`session.call_limit`), the whole
        answer stored as an artifact when some are left out."""
        session_id = self.conversation.session_id

        def store(text: str) -> str:
            return self.artifacts.put(session_id, text.encode("utf-8"), suffix=".json").pointer

        shrinker, count = self.shrinker(), self.counter.count_json

        def recorded_size(call: dict[str, Any]) -> int:  # an oversized input as previewed
            return count(shrinker.shrink_block(call))

        budget = self.compactor.policy.max_message_tokens
        return keep_calls_that_fit(message, budget, recorded_size, store)

    def _after_pause(self) -> Steps[Outcome]:
        """Go on from a paused answer (sent back as it is), at most `MAX_PAUSES_PER_TURN`
        times a turn; the one after that ends the turn with what arrived, said so."""
        self._pauses += 1
        if self._pauses <= MAX_PAUSES_PER_TURN:
            return None
        yield Notice("warning", "pause_limit", {"pauses": self._pauses})
        return ("ok", "pause_turn")

    def _stop_notices(self, reason: str) -> Iterator[SessionEvent]:
        if reason == "max_tokens":
            mark_in_transcript(self.conversation, "max_tokens")
            yield Notice("warning", "max_tokens", {"kept": True})
        elif reason == "refusal":
            yield Notice("warning", "refusal")


# --- recording: every message reaches the transcript before the view ---------------


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


def record_results(
    conversation: Conversation, results: list[dict[str, Any]], note: str | None = None
) -> Steps[bool]:
    """Record one tool-results message, with `note` after the results when given (the
    calls of the answer left out: `call_limit`); if the disk refuses, hold it for the
    next turn."""
    content = results if note is None else [*results, {"type": "text", "text": note}]
    message = {"role": "user", "content": content}
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
    except StoreError as error:  # its artifact could not be written: nothing was recorded
        fields = {"characters": len(text), "reason": failure_reason(error)}
        yield Notice("error", "message_not_stored", fields, error=error)
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


# --- the answer's tool ids, checked before it is recorded or run --------------------


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
            yield _tool_id_notice("warning", problem, retry=True)
    yield _tool_id_notice("error", problem, retry=False)
    return None


_ANSWER_PROBLEM_NOTICES = {DUPLICATE_ID: "duplicate_tool_id", UNSENDABLE_TEXT: "unsendable_answer"}


def _tool_id_notice(level: str, problem: str | None, *, retry: bool) -> Notice:
    """The notice for an answer dropped unrecorded (`answer_dropped`: what streamed of it
    is no answer, so a live view takes it off the screen)."""
    code = _ANSWER_PROBLEM_NOTICES.get(problem or "", "bad_tool_id")
    return Notice(level, code, {"retry": retry, ANSWER_DROPPED: True})


# --- running one answer's tool calls ------------------------------------------------


def run_tools(
    toolbox: Any,
    conversation: Conversation,
    tool_uses: list[dict[str, Any]],
    note: str | None = None,
    after_tool: Callable[[], Sequence[Notice]] = tuple,
    hide_learned: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] = list,
) -> Steps[Outcome]:
    """Run `tool_uses` with `toolbox` and record their results (module contract), with
    `note` after them when given (the calls of the answer left out: `call_limit`); what
    `after_tool()` gives is said after each call's finish (`TurnRunner.say_after_tool`).
    After each call, and before results are recorded whatever ends the step, the results
    so far pass through `hide_learned` (`TurnRunner.hide_learned`: a secret learned while a
    call ran is redacted from the results of the calls before it, which were made without
    it, and from the view)."""
    results: list[dict[str, Any]] = []
    try:
        for block in tool_uses:
            arguments = toolbox.arguments_as_sent(block["name"], dict(block.get("input") or {}))
            yield ToolStarted(block["id"], block["name"], arguments)
            outcome = run_one(toolbox, conversation, block)
            results.append(
                result_block(block["id"], outcome.content, outcome.is_error, outcome.images)
            )
            results = hide_learned(results)
            yield build_finished_event(block, outcome)
            yield from after_tool()
    except KeyboardInterrupt as interrupt:
        results = hide_learned(results)
        yield from record_interrupted(conversation, tool_uses, results, interrupt, note)
        yield from after_tool()
        yield _cancel_notice(interrupt)
        return ("cancelled", "tool_use")
    except TerminationRequested as stop:  # recorded, then the process goes on ending
        results = hide_learned(results)
        yield from record_terminated(conversation, tool_uses, results, stop, note)
        raise
    if not (yield from record_results(conversation, results, note)):
        return ("failed", "tool_use")
    return None


def run_one(toolbox: Any, conversation: Conversation, block: dict[str, Any]) -> ToolOutcome:
    """One call, its permission question (if it asks one) recorded in the transcript
    (`question_marks`), so a resume can tell a call never approved from one that ran."""
    toolbox.question_watcher = QuestionMarks(conversation.log, block["id"])
    try:
        outcome: ToolOutcome = toolbox.run(block["name"], dict(block.get("input") or {}))
    finally:
        toolbox.question_watcher = None
    return outcome


def build_finished_event(
    block: dict[str, Any], outcome: ToolOutcome, *, interrupted: bool = False
) -> ToolFinished:
    return ToolFinished(
        block["id"],
        block["name"],
        outcome.is_error,
        outcome.summary,
        outcome.size_bytes,
        outcome.artifact_pointer,
        outcome.content,
        interrupted=interrupted,
        cause=outcome.cause,
    )


def record_interrupted(
    conversation: Conversation,
    tool_uses: list[dict[str, Any]],
    results: list[dict[str, Any]],
    interrupt: KeyboardInterrupt,
    note: str | None = None,
) -> Steps[bool]:
    """Answer the calls Ctrl-C left without results. A tool that kept its output so far
    (`ToolInterrupted` with an outcome) is answered with it, and its panel is closed
    only once that is recorded: a second Ctrl-C while it is shown cannot lose it."""
    kept = interrupt.outcome if isinstance(interrupt, ToolInterrupted) else None
    if kept is None:
        text = INTERRUPTED_TOOL_TEXT
        if isinstance(interrupt, PermissionQuestionInterrupted):
            text = ASKING_INTERRUPTED_TEXT
        elif isinstance(interrupt, ToolNotStarted):
            text = NOT_STARTED_TEXT
        return (yield from record_stopped(conversation, tool_uses, results, text, note))
    return (yield from record_kept(conversation, tool_uses, results, kept, note, interrupted=True))


def record_terminated(
    conversation: Conversation,
    tool_uses: list[dict[str, Any]],
    results: list[dict[str, Any]],
    stop: TerminationRequested,
    note: str | None = None,
) -> Steps[bool]:
    """Answer the calls a termination signal left without results, as `record_interrupted`
    does for Ctrl-C: a tool that kept its output so far (`ToolTerminated` with an outcome)
    is answered with it, the call at its permission question as never run, any other as
    stopped."""
    kept = stop.outcome if isinstance(stop, ToolTerminated) else None
    if kept is None:
        asking = isinstance(stop, PermissionQuestionTerminated)
        template = TERMINATED_ASKING_TEXT if asking else TERMINATED_TOOL_TEXT
        text = template.format(signal=signal_name(stop.signal_number))
        return (yield from record_stopped(conversation, tool_uses, results, text, note))
    return (yield from record_kept(conversation, tool_uses, results, kept, note))


def record_kept(
    conversation: Conversation,
    tool_uses: list[dict[str, Any]],
    results: list[dict[str, Any]],
    kept: ToolOutcome,
    note: str | None = None,
    *,
    interrupted: bool = False,
) -> Steps[bool]:
    """Answer the call that was stopped with `kept` (its output so far) and the ones after
    it as not run; its panel is closed only once that is recorded (`interrupted`: by
    Ctrl-C, which its closing line says)."""
    block = tool_uses[len(results)]
    results.append(result_block(block["id"], kept.content, kept.is_error))
    notices, recorded = collect_steps(
        record_stopped(conversation, tool_uses, results, NOT_RUN_TOOL_TEXT, note)
    )
    yield build_finished_event(block, kept, interrupted=interrupted)
    yield from notices
    return recorded


def _cancel_notice(interrupt: KeyboardInterrupt) -> Notice:
    """Nothing ran when Ctrl-C came at the permission question or while the call was
    prepared: say that, not 'interrupted'."""
    if isinstance(interrupt, PermissionQuestionInterrupted):
        return Notice("warning", PERMISSION_CANCELLED, {"tool": interrupt.tool})
    if isinstance(interrupt, ToolNotStarted):
        return Notice("warning", TOOL_NOT_STARTED, {"tool": interrupt.tool})
    return Notice("warning", "cancelled", {"during": "tool"})


def record_stopped(
    conversation: Conversation,
    tool_uses: list[dict[str, Any]],
    results: list[dict[str, Any]],
    text: str,
    note: str | None = None,
) -> Steps[bool]:
    """Answer the call that was running with `text` and the ones after it as not run
    (`note` after them, as `record_results`)."""
    stopped_at = len(results)
    for index in range(stopped_at, len(tool_uses)):
        said = text if index == stopped_at else NOT_RUN_TOOL_TEXT
        results.append(result_block(tool_uses[index]["id"], said, True))
    return (yield from record_results(conversation, results, note))


def answer_without_running(
    conversation: Conversation,
    tool_uses: list[dict[str, Any]],
    text: str,
    note: str | None = None,
) -> Iterator[SessionEvent]:
    results: list[dict[str, Any]] = [result_block(b["id"], text, True) for b in tool_uses]
    if note is not None:
        results.append({"type": "text", "text": note})
    yield from record(conversation, {"role": "user", "content": results})


def result_block(
    tool_use_id: str, content: str, is_error: bool, images: Sequence[dict[str, Any]] = ()
) -> dict[str, Any]:
    """One tool_result: the text, and after it the images a tool returned (if any)."""
    text = content or "(no output)"
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": [{"type": "text", "text": text}, *images] if images else text,
    }
    if is_error:
        block["is_error"] = True
    return block


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if b.get("type") == "text")
