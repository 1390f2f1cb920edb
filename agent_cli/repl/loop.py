"""The interactive loop: read a line, run a command or a turn, show what happens.

Contract: `Repl.run()` greets, then reads until Ctrl-D / end of input or `/quit`, and
returns 0; it closes whichever session is current when it leaves and says where its
transcript is. A line is a command (`commands.split_command`) or a message for
`session.run_turn`. Ctrl-C at the prompt clears the line; Ctrl-C during a turn is
handled by `turns.drive_events`; Ctrl-C during a command abandons that command. What was
typed during a turn or command that Ctrl-C cancelled is not sent: the reader holds it for
the next prompt (`hold_typed_ahead`), since the user asked to stop. While a line runs, the
`typing` watch (the prompt, on a terminal) keeps what is typed off the screen's live
regions and lets the spinner show it on a line of its own (`TypingWatch`). Typed
errors become one red line (with the command's usage for bad arguments) and the prompt
comes back. `Repl` holds the current session and swaps it on `/new` and `/resume`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Protocol

from rich.console import Console
from rich.text import Text

from agent_cli.errors import AgentCliError, CommandUsageError
from agent_cli.events import SessionEvent, ToolFinished
from agent_cli.repl.answer_stream import warm_up_answer_rendering
from agent_cli.repl.argument_choices import (
    ArgumentChoice,
    build_pointer_choices,
    build_session_choices,
)
from agent_cli.repl.background import BackgroundMeasure, DeferredWork
from agent_cli.repl.banner import build_banner, build_goodbye
from agent_cli.repl.commands import message_text, run_command, split_command, usage_of
from agent_cli.repl.error_text import describe_error
from agent_cli.repl.pointer_handles import PointerHandles
from agent_cli.repl.port import SessionPort
from agent_cli.repl.render import EventRenderer, build_error_text
from agent_cli.repl.safe_text import clip_line
from agent_cli.repl.session_views import build_exchanges_view
from agent_cli.repl.turns import drive_events
from agent_cli.repl.undecodable_input import describe_replaced, replace_undecodable
from agent_cli.repl.wiring import SessionBackend
from agent_cli.repl.word_wrap import print_at_words

if TYPE_CHECKING:
    from agent_cli.events import Gauge
    from agent_cli.session.catalog import SessionDeletion, SessionSummary


class LineReader(Protocol):
    """Where lines come from: the prompt at a terminal, or plain lines from a pipe."""

    @property
    def shows_gauge(self) -> bool:
        """True when the reader shows the gauge (so it is worth measuring)."""
        ...

    @property
    def can_ask(self) -> bool:
        """True when a person at a terminal answers `ask`."""
        ...

    def read_line(self, gauge_source: Callable[[], Gauge | None] | None = None) -> str: ...

    def ask(self, question: str) -> str:
        """One answer to `question` (EOFError at the end of input)."""
        ...

    def refresh(self) -> None:
        """Redraw what is on screen (the gauge arrived); safe from any thread."""
        ...

    def hold_typed_ahead(self) -> None:
        """Ctrl-C cancelled a turn: what was typed during it is not sent by itself; the
        next `read_line` shows it to edit (a no-op where nothing can be typed ahead)."""
        ...


class TypingWatch(Protocol):
    """What is typed while no prompt is shown (a terminal's prompt: `PromptReader`)."""

    def between_prompts(self) -> AbstractContextManager[None]:
        """While a line runs: the terminal does not echo (or edit) what is typed."""
        ...

    def typed_ahead(self) -> str:
        """What was typed since the last prompt, as the next one will show it."""
        ...


class Repl:
    """One interactive run; see the module contract."""

    def __init__(
        self,
        *,
        session: SessionPort,
        backend: SessionBackend,
        reader: LineReader,
        console: Console,
        live: bool,
        offline_fallback: bool,
        resumed: bool = False,
        demo_thresholds: bool = False,
        approvals_off_by: str | None = None,
        api_key_set: bool = False,
        typing: TypingWatch | None = None,
    ) -> None:
        self.session = session
        self._typing = typing
        self.console = console
        self._backend = backend
        self._reader = reader
        self.pointer_handles = PointerHandles()  # kept across /new and /resume
        self._renderer = EventRenderer(
            console,
            live=live,
            pointer_handles=self.pointer_handles,
            typed_ahead=typing.typed_ahead if typing is not None else None,
        )
        self._offline_fallback = offline_fallback
        self._demo_thresholds = demo_thresholds
        self._resumed = resumed
        self.approvals_off_by = approvals_off_by  # "--yes" or config.toml's path, or None
        self._api_key_set = api_key_set
        self._quit_requested = False
        self._cancelled = False  # Ctrl-C cancelled what the current line started
        self.provider_preparation: DeferredWork[None] | None = None
        self._watch_live_activity(session)

    def run(self) -> int:
        try:
            self._print_banner(resumed=self._resumed)
            self._prepare_provider()
            while not self._quit_requested:
                try:
                    line = self._read_line()
                except KeyboardInterrupt:
                    continue
                except EOFError:
                    break
                except AgentCliError as exc:  # e.g. a line over the input cap: skip it
                    self.show_error(exc)
                    continue
                self.handle_line(line)
        finally:
            self._close_current()
        return 0

    def handle_line(self, line: str) -> None:
        """Run one line of input; nothing it raises (but a bug) escapes."""
        if not line.strip():
            return
        line, replaced = replace_undecodable(line)
        if replaced:
            self.console.print(Text(describe_replaced(replaced), style="yellow"))
        command = split_command(line)
        self._cancelled = False
        between = self._typing.between_prompts() if self._typing else nullcontext()
        try:
            with between:
                if command is not None:
                    run_command(self, *command)
                else:
                    self.render_events(self.session.run_turn(message_text(line)))
        except KeyboardInterrupt:
            self._renderer.close()
            self.console.print(Text("cancelled", style="yellow"))
            self._cancelled = True
        except AgentCliError as exc:
            self.show_error(exc)
        if self._cancelled:
            self._reader.hold_typed_ahead()

    # --- what commands may use (command_context.CommandContext) ---------------------------------

    def render_events(self, events: Iterator[SessionEvent]) -> None:
        try:
            ended = drive_events(events, self._renderer.render)
        finally:
            self._renderer.close()
        if ended is not None and ended.outcome == "cancelled":
            self._cancelled = True

    def write_plain(self, text: str) -> None:
        """Write `text` as is (JSON for scripts): no wrapping, no styling."""
        stream = self.console.file
        stream.write(text)
        stream.flush()

    def switch_session(self, resume: str | None) -> None:
        """Open the other session first; the current one closes only once that worked."""
        new_session = self._backend.open_session(resume)
        old_session, self.session = self.session, new_session
        self._renderer.last_tool_result = None  # the old session's: not this one's
        self._watch_live_activity(new_session)
        self._close(old_session)
        self._print_banner(resumed=resume is not None)

    def list_sessions(self) -> list[SessionSummary]:
        return self._backend.list_sessions(False)

    def delete_sessions(self, session_ids: list[str]) -> list[SessionDeletion]:
        """One `SessionDeletion` per id (see `session.catalog.delete_sessions`)."""
        delete = self._backend.delete_sessions
        if delete is None:
            return []
        return delete(session_ids)

    def last_tool_result(self) -> ToolFinished | None:
        """The newest finished tool call of the current session: the last one shown, or
        before one is shown in this run, the one its transcript recorded last (a resumed
        session's, which an earlier run showed); None when it has none."""
        shown = self._renderer.last_tool_result
        return shown if shown is not None else self.session.last_recorded_tool_result()

    def argument_choices(self, command: str) -> list[ArgumentChoice]:
        """What Tab offers after `command` (`argument_choices.COMPLETED_ARGUMENTS`): the
        numbered pointers after `/expand`, the other saved sessions after `/resume`."""
        if command == "/expand":
            return build_pointer_choices(self.pointer_handles)
        if command == "/resume":
            return build_session_choices(self.list_sessions(), self.session.session_id)
        return []

    def request_quit(self) -> None:
        self._quit_requested = True

    def confirm(self, question: str) -> bool:
        """See `CommandContext.confirm`; the end of input is a no."""
        if not self._reader.can_ask:
            return True
        try:
            answer = self._reader.ask(question)
        except EOFError:
            return False
        return answer.strip().lower() in ("y", "yes")

    def show_error(self, exc: BaseException) -> None:
        message = describe_error(exc)
        if isinstance(exc, CommandUsageError) and usage_of(exc.command):
            message += f" · usage: {usage_of(exc.command)}"
        self._renderer.print_error(message)

    # --- inside -------------------------------------------------------------------------

    def _read_line(self) -> str:
        """Prompt for a line while the gauge is measured on a worker thread.

        The first measurement loads the tokenizer, which must not keep the prompt off the
        screen; the session is touched again only after the measurement ended.
        """
        if not self._reader.shows_gauge:
            return str(self._reader.read_line())
        measure = BackgroundMeasure(
            self.session.gauge, on_done=self._reader.refresh, again=self._servers_starting
        )
        try:
            return str(self._reader.read_line(lambda: measure.value))
        finally:
            _wait_through_interrupts(measure)

    def _servers_starting(self) -> bool:
        """True while an MCP server is still starting: its tools will change the gauge."""
        return any(server.status == "starting" for server in self.session.mcp_servers())

    def _prepare_provider(self) -> None:
        """Build the provider's client (the SDK import takes a second or more) on a worker
        thread while the user types, so the first turn is as quick as the second. A
        failure there is left for the first request to meet and report."""
        provider = self.session.provider

        def prepare_first_turn() -> None:
            warm_up_answer_rendering()
            provider.prepare()

        self.provider_preparation = DeferredWork(prepare_first_turn, name="agent-cli-provider")
        self.provider_preparation.start()

    def _watch_live_activity(self, session: SessionPort) -> None:
        """Let the renderer show a running command's output live, and a spinner while a
        request waits for the model or compaction waits for a summary (and the retries of
        a summary request, as an ordinary request's are shown)."""
        session.watch_tool_output(self._renderer.watch_tool_output)
        session.watch_model_requests(self._renderer.watch_model_request)
        session.watch_summary_requests(self._renderer.watch_summary_request)
        session.watch_summary_retries(self._renderer.watch_summary_retry)

    def _print_banner(self, *, resumed: bool) -> None:
        """The greeting, then what the session found while opening (e.g. damaged memory),
        then for a resumed session the recap of where it left off. The recap shows recorded
        answers and calls, so the dotenv files are checked first, as before a request, and
        a value learned there is hidden from it and said before it (`SessionPort`)."""
        banner = build_banner(
            self.session,
            offline_fallback=self._offline_fallback,
            resumed=resumed,
            demo_thresholds=self._demo_thresholds,
            approvals_off_by=self.approvals_off_by,
            api_key_set=self._api_key_set,
        )
        print_at_words(self.console, *banner)  # paths stay whole, for copy and paste
        for notice in self.session.startup_notices:
            self._renderer.render(notice)
        self.session.start_mcp()  # in the background: the prompt comes up at once
        if resumed:
            self.render_events(self.session.learn_dotenv_changes())
            print_at_words(self.console, build_exchanges_view(self.session.recent_exchanges()))

    def _close_current(self) -> None:
        if self._close(self.session):
            print_at_words(self.console, *build_goodbye(self.session))

    def _close(self, session: SessionPort) -> bool:
        try:
            session.close()
        except AgentCliError as exc:
            self.console.print(
                build_error_text(
                    f"closing session {clip_line(str(session.session_id), 80)}: "
                    f"{describe_error(exc)}"
                )
            )
            return False
        return True


def _wait_through_interrupts(measure: BackgroundMeasure) -> None:
    """Wait for the measurement even through Ctrl-C: it still uses the session."""
    while True:
        try:
            measure.wait()
            return
        except KeyboardInterrupt:
            continue
