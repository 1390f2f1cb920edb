"""Rendering session events on the terminal as they arrive.

Contract: `EventRenderer.render(event)` shows one `SessionEvent` and adds no logic: the
words for compaction come from `compact_lines`, tool panels from `tool_lines`, the
answer from `AnswerStream` (an answer the session dropped, `Notice.drops_answer`,
is taken off a live view); from a request's sending (`watch_model_request`) to the first
event after it a waiting spinner turns (`ModelWaitView`), and every event replaces it; the
same while compaction waits for a summary (`watch_summary_request`), in words of its own,
and a summary request's retries are shown as a request's are (`watch_summary_retry`).
The REPL's own `[compact]` lines carry a style of their own
(bold cyan tag), and everything from outside is shown through sanitized `Text`, so a
model cannot fake them or colour the screen. Every line is printed through
`print_at_words`: on a terminal a notice longer than the screen breaks between words. `close()` ends a half-streamed answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.text import Text

from agent_cli.errors import WorkspaceGone
from agent_cli.events import (
    AssistantDone,
    AssistantText,
    CompactionFired,
    CompactionSkipped,
    Notice,
    RequestBlocked,
    StreamRestarted,
    ToolFinished,
    ToolStarted,
    TurnEnded,
    UsageReported,
)
from agent_cli.repl.answer_stream import AnswerStream
from agent_cli.repl.compact_lines import (
    format_blocked,
    format_compaction,
    format_retry,
    format_skipped,
)
from agent_cli.repl.error_text import (
    blocked_one_shot_advice,
    describe_summary_wait,
    describe_workspace_gone,
    notice_text,
)
from agent_cli.repl.model_wait import ModelWaitView
from agent_cli.repl.pointer_handles import PointerHandles, handle_label
from agent_cli.repl.safe_text import COMPACT_TAG, clip_line, defuse_fake_compact_lines
from agent_cli.repl.tool_activity import RunningToolView
from agent_cli.repl.tool_lines import (
    NOT_STARTED_WHEN,
    build_tool_finished_line,
    build_tool_started_line,
    build_tool_unfinished_line,
)
from agent_cli.repl.tool_preview import SHOW_ALL_HINT, build_tool_preview_lines
from agent_cli.repl.word_wrap import print_at_words

COMPACT_TAG_STYLE = "bold cyan"
NOTICE_STYLES = {"info": "cyan", "warning": "yellow", "error": "bold red"}
ERROR_STYLE = "bold red"
TURN_CANCELLED = "turn cancelled; the conversation so far is kept"


def _not_started_code(event: object) -> str:
    """The notice code of a Ctrl-C before a tool started (`NOT_STARTED_WHEN`): the open tool
    panel closes as "not run", and that one line says all
    (`EventRenderer._close_at_the_question`); "" for any other event."""
    if isinstance(event, Notice) and event.code in NOT_STARTED_WHEN:
        return event.code
    return ""


def build_compact_text(line: str, body_style: str = "cyan") -> Text:
    """A REPL-authored `[compact]` line: the tag styled apart from the numbers."""
    text = Text(no_wrap=False)
    if line.startswith(COMPACT_TAG):
        text.append(COMPACT_TAG, style=COMPACT_TAG_STYLE)
        line = line[len(COMPACT_TAG) :]
    text.append(line, style=body_style)
    return text


def build_notice_text(
    event: Notice, *, one_shot: bool = False, session_id: str | None = None
) -> Text:
    """One line (wrapped at words on a terminal); a notice may quote outside text, so it
    can never pose as a `[compact]` line."""
    style = NOTICE_STYLES.get(event.level, "")
    label = "" if event.level == "info" else f"{clip_line(event.level, 10)}: "
    text = notice_text(event, one_shot=one_shot, session_id=session_id)
    return Text(defuse_fake_compact_lines(label + clip_line(text, 400)), style=style)


def build_error_text(message: str) -> Text:
    """A short red error line (the message comes from `error_text.describe_error`)."""
    return Text(defuse_fake_compact_lines(clip_line(message, 400)), style=ERROR_STYLE)


class EventRenderer:
    """Shows session events on one console; see the module contract."""

    def __init__(
        self,
        console: Console,
        *,
        live: bool,
        one_shot: bool = False,
        session_id: str | None = None,
        pointer_handles: PointerHandles | None = None,
        typed_ahead: Callable[[], str] | None = None,
    ) -> None:
        """`one_shot`: `-p` mode, where notices advise running the command again, on
        the session `session_id` names.
        `pointer_handles`: the REPL's numbering, shown after each artifact pointer (none
        in `-p` mode, where nothing can be expanded afterwards).
        `typed_ahead`: what the user typed since the last prompt, shown under the spinner."""
        self.console = console
        self._one_shot = one_shot
        self._session_id = session_id
        self._pointer_handles = pointer_handles
        self._answer = AnswerStream(console, live=live)
        self._activity = RunningToolView(console, live=live)
        self._waiting = ModelWaitView(console, live=live, typed_ahead=typed_ahead)
        self._running_tools: set[str] = set()
        self._running_name = ""
        self._turn_end_said = False  # the closing line of a panel already said it ended
        self.last_tool_result: ToolFinished | None = None  # for `/last`
        self._pauses_explained: set[str] = set()  # loop-guard reasons said in full
        self._handlers: dict[type, Callable[[Any], None]] = {
            AssistantText: lambda event: self._answer.add(event.text),
            AssistantDone: lambda event: self._answer.finish(event.text),
            StreamRestarted: self._render_restart,
            CompactionFired: self._render_compaction,
            CompactionSkipped: self._render_skipped,
            RequestBlocked: self._render_blocked,
            ToolStarted: self._render_tool_start,
            ToolFinished: self._render_tool_end,
            Notice: lambda event: self._print(
                build_notice_text(event, one_shot=one_shot, session_id=session_id)
            ),
            TurnEnded: self._render_turn_end,
            UsageReported: lambda event: None,  # shown by the toolbar and `stats`
        }

    def render(self, event: object) -> None:
        handler = self._handlers.get(type(event))
        if handler is None:
            return
        self._waiting.stop()
        if isinstance(event, Notice) and event.drops_answer:
            self._answer.drop()
        elif not isinstance(event, AssistantText | AssistantDone | StreamRestarted):
            self._answer.abandon()
        if not isinstance(event, ToolStarted | ToolFinished):
            self._activity.stop()
            code = _not_started_code(event)
            if code and self._running_tools:
                self._close_at_the_question(code)
                return
            self._close_unfinished_tools()
        handler(event)

    def close(self) -> None:
        """End whatever is still streaming or running (after an interrupt), keeping it shown."""
        self._waiting.stop()
        self._answer.abandon()
        self._activity.stop()
        self._close_unfinished_tools()

    @property
    def is_waiting_for_model(self) -> bool:
        """True while the waiting spinner is on screen."""
        return self._waiting.is_waiting

    def watch_model_request(self) -> None:
        """A request was sent to the model: the spinner turns until the next event."""
        self._waiting.start()

    def watch_summary_request(self) -> None:
        """Compaction asks for a summary: the spinner turns, saying so, until the next
        event (the `[compact]` lines, a notice, or the request that follows)."""
        self._waiting.start(describe_summary_wait)

    def watch_summary_retry(self, event: StreamRestarted) -> None:
        """A summary request is retried: its retry line, as an ordinary request's, and
        the summary's spinner again."""
        self._waiting.stop()
        self._print(Text(format_retry(event), style="dim"))
        self._waiting.start(describe_summary_wait)

    def watch_tool_output(self, chunk: bytes) -> None:
        """A running tool's output (the first, empty chunk says it started): shown live."""
        if self._running_tools and not self._activity.is_running:
            self._activity.start(self._running_name)
        self._activity.feed(chunk)

    def print_error(self, message: str) -> None:
        """An error line, wrapped at words on a terminal (one line elsewhere)."""
        self._answer.abandon()
        self._print_own(build_error_text(message))

    def _print(self, text: Text) -> None:
        """Wrapped at words on a terminal (a tool panel's rows already fit it), one line
        elsewhere; a row that outside text would start with `[compact]` is marked."""
        print_at_words(self.console, text)

    def _render_skipped(self, event: CompactionSkipped) -> None:
        """A paused compaction is explained in full the first time for each reason, in
        one short line after that."""
        explained = event.reason == "loop_guard" and event.held in self._pauses_explained
        if event.reason == "loop_guard" and event.held:
            self._pauses_explained.add(event.held)
        line = format_skipped(event, explained=explained, one_shot=self._one_shot)
        self._print_own(build_compact_text(line))

    def _render_restart(self, event: StreamRestarted) -> None:
        void_text_shown = self._answer.restart()
        self._print(Text(format_retry(event, void_text_shown=void_text_shown), style="dim"))
        self._waiting.start()  # the request goes again: waiting again

    def _print_own(self, text: Text) -> None:
        """A line the REPL words itself (numbers and layer names): wrapped at words; a
        `[compact]` line keeps its tag on its first row."""
        print_at_words(self.console, text, is_own_log_line=text.plain.startswith(COMPACT_TAG))

    def _render_compaction(self, event: CompactionFired) -> None:
        for line in format_compaction(event):
            self._print_own(build_compact_text(line))

    def _render_blocked(self, event: RequestBlocked) -> None:
        first, advice = format_blocked(event)
        if self._one_shot:  # no /compact or /new after `-p`: the command line's words
            advice = "  " + blocked_one_shot_advice(
                hard_limit=event.hard_limit,
                reserved_tokens=event.reserved_tokens,
                durable_tokens=event.durable_tokens,
                largest_message_tokens=event.largest_message_tokens,
                sized_content_over=event.sized_content_counted is not None,
                session_id=self._session_id,
            )
        self._print_own(build_compact_text(first, body_style="bold red"))
        self._print_own(Text(advice, style="red"))

    def _render_tool_start(self, event: ToolStarted) -> None:
        self._running_tools.add(event.tool_use_id)
        self._running_name = event.name
        styled = self.console.color_system is not None  # (a pipe, a log: no marks drawn)
        self._print(build_tool_started_line(event, self._frame_width(), styled=styled))

    def _render_tool_end(self, event: ToolFinished) -> None:
        self._activity.stop()
        self._running_tools.discard(event.tool_use_id)
        self.last_tool_result = event
        width = self._frame_width()
        hint = "" if self._one_shot else SHOW_ALL_HINT  # -p has no /last to point at
        for line in build_tool_preview_lines(event, width=width, hint=hint):
            self._print(line)
        self._print(build_tool_finished_line(event, width, self._handle_label(event)))
        if isinstance(event.cause, WorkspaceGone) and not event.is_error:  # gone during it
            said = describe_workspace_gone(event.cause, after_call=True)
            self._print_own(
                Text(defuse_fake_compact_lines(clip_line(said, 1000)), style=ERROR_STYLE)
            )

    def _handle_label(self, event: ToolFinished) -> str:
        """`(/expand N)` for the result's artifact pointer, when the REPL numbers them."""
        if self._pointer_handles is None or not event.artifact_pointer:
            return ""
        return handle_label(self._pointer_handles.number_for(event.artifact_pointer))

    def _frame_width(self) -> int | None:
        """The width tool panels fit into: the terminal's; None on a pipe or in a log,
        where lines are not clipped to any screen."""
        return self.console.width if self.console.is_terminal else None

    def _close_unfinished_tools(self) -> None:
        if self._running_tools:
            self._running_tools.clear()
            self._print(build_tool_unfinished_line())

    def _close_at_the_question(self, code: str) -> None:
        """One Ctrl-C before a tool started (notice `code`: at its permission question, or
        while its call was prepared) is said once: the open panel closes with a line that says
        the tool did not run and the turn ended, and neither the notice nor the turn's end
        adds a line of its own."""
        self._running_tools.clear()
        self._print(build_tool_unfinished_line(never_ran=code))
        self._turn_end_said = True

    def _render_turn_end(self, event: TurnEnded) -> None:
        if event.outcome == "cancelled" and not self._turn_end_said:
            self._print(Text(TURN_CANCELLED, style="yellow"))
        self._turn_end_said = False
