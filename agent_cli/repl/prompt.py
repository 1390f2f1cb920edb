"""The interactive prompt (prompt_toolkit): history, keys, completion and the gauge.

Contract: `PromptReader.read_line(gauge_source)` shows the prompt with the gauge that
`gauge_source()` returns (None until it is measured) in the bottom toolbar, and returns
what the user sent; `refresh()` (thread-safe) redraws the toolbar once the gauge is in.
`show_while(work)` is for start-up: it shows the prompt while `work` (the session
opening) runs, then takes it off the screen; the next `read_line` carries on with what
was typed meanwhile, and a line already sent is returned by it (see `early_prompt`).
Enter sends; Alt+Enter (terminals send it as Esc Enter, so both work) inserts a new
line. Ctrl-C raises `KeyboardInterrupt` (the loop clears the line and prompts again);
Ctrl-D on an empty line raises `EOFError`. Ctrl-Z suspends (under a shell with job
control) or does nothing; it never inserts a raw ^Z. Ctrl-space does nothing. Every prompt
here (the question's too) reads pastes by bursts (`paste_input`): a paste whose own text holds
an end mark is still one paste, and one whose end never comes is handed over once the terminal
is quiet. A long paste shows as one placeholder
(`paste`) and is sent whole; the placeholder is edited as one unit, and Enter does not send
a line that broke one (`paste_keys`); a command is never run with one in it, nor over lines it
does not take: the prompt then starts again with the input (`commands.check_command_whole`).
What was typed during a turn that Ctrl-C cancelled waits in the next prompt, unsent
(`hold_typed_ahead`); so do lines typed during a turn that ended by itself when there are
several of them, and a paste made then, whatever its lines (bracketed paste stays on between
prompts: an Enter in it never sends, and only it becomes a placeholder, not the words typed
around it); one line typed and ended with Enter is sent, as a shell does.
While no prompt is shown (`between_prompts`) the terminal neither echoes nor edits what is
typed: `typed_ahead()` (safe from any thread) takes it in and says what it reads so far,
for the spinner to show on a line of its own. What was typed before a question (a
permission question, or a command's y/N) waits in the next prompt, unsent, under a dim line
that says why (`BEFORE_QUESTION_NOTE`): it was meant neither for the question nor for what
came after it (a queued `y` answered the model's next question). A reply to a permission
question that was no answer is kept for the next prompt, unsent (`keep_unanswered`), with
what was typed before the question; so is what was typed at a question when Ctrl-C ended
it, not yet sent.
History lives in the state folder's history file (kept in memory only when that is not a
regular file: a FIFO there must not hang the prompt); a line the disk refuses to add to
it (full) is still sent, and one yellow line says so once, not a traceback per line. Only a
placeholder the prompt made stands for a paste (`paste_origin`): the same text typed or
pasted short is sent as it is; only in a line recalled from the history does an unknown
placeholder mean a lost paste (`paste`). Only imported when stdin is a
terminal: prompt_toolkit does not read piped input properly, and it costs start-up time.
The prompt runs inside `patch_stdout(raw=True)` so output written while it is shown
lands above it, escape codes intact. A termination signal (SIGTERM, SIGHUP) ends any of
these prompts with `TerminationRequested` (`prompt_ending`).
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prompt_toolkit import PromptSession, print_formatted_text
from prompt_toolkit.application.current import get_app
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.key_binding import KeyBindings, merge_key_bindings
from prompt_toolkit.keys import Keys
from prompt_toolkit.patch_stdout import patch_stdout
from prompt_toolkit.styles import Style
from prompt_toolkit.utils import get_cwidth, is_dumb_terminal, suspend_to_background_supported

from agent_cli.errors import CommandNotWhole
from agent_cli.repl.argument_choices import COMPLETED_ARGUMENTS
from agent_cli.repl.background import DeferredWork
from agent_cli.repl.early_prompt import PendingInput, replay, show_until_done
from agent_cli.repl.history_file import RegularFileHistory, is_recalled, shown_entry
from agent_cli.repl.paste import PastedText, fold_line_breaks
from agent_cli.repl.paste_input import guard_pastes
from agent_cli.repl.paste_keys import PasteKeys
from agent_cli.repl.paste_origin import MadePlaceholders
from agent_cli.repl.prompt_ending import prompt_once
from agent_cli.repl.safe_text import clip_line
from agent_cli.repl.terminal_modes import quiet_terminal, take_pending
from agent_cli.repl.type_ahead import TypeAhead, TypedText

if TYPE_CHECKING:
    from agent_cli.events import Gauge
    from agent_cli.repl.argument_choices import ArgumentChoice

PROMPT_TEXT = "› "
KEY_HINT = "  │ Alt+Enter: new line"
# a paste bigger than the terminal's input buffer arrives in pieces: wait this long for the next
PASTE_SETTLE_SECONDS = 0.05
# a paste begun while no prompt was shown, its end not come yet: wait this long for its first piece
PASTE_END_WAIT_SECONDS = 1.0
BARE_COMMANDS = {"stats": "token usage, limits and compactions"}
BEFORE_QUESTION_NOTE = "typed before a question was asked, so not sent: Enter sends it"
TOOLBAR_STYLE = Style.from_dict(
    {
        "bottom-toolbar": "noreverse bg:#202020 #c0c0c0",
        "gauge.ok": "#87d787",
        "gauge.over-soft": "#ffd75f bold",
        "gauge.over-hard": "#ff5f5f bold",
        "hint": "#808080",
    }
)


def format_gauge(gauge: Gauge | None) -> str:
    """`ctx 12,345 / 80,000 soft / 120,000 hard (15%) · $0.0123 · estimator: ...` (percent
    of soft; the dollars only once a request was priced, `≥` when some could not be)."""
    return "".join(text for _, text in build_gauge_parts(gauge))


# The toolbar's parts in the order a narrow screen drops them: least important first.
TOOLBAR_PARTS_DROPPED_FIRST = ("estimator", "hint", "hard", "cost", "share")


def build_gauge_parts(gauge: Gauge | None) -> list[tuple[str, str]]:
    """(name, text) of each part of the gauge, in display order; joined, `format_gauge`."""
    if gauge is None:
        return [("tokens", "ctx … (measuring)")]
    share = f"{100 * gauge.tokens / gauge.soft_threshold:.0f}%" if gauge.soft_threshold else "-"
    cost = gauge.cost_usd
    money = ""
    if cost is not None:
        # here, not at the top: this module is on the path to the first prompt frame
        from agent_cli.usage_cost import format_usd

        # some requests could not be priced (a model not in the table): a floor, said so
        floor = "≥" if gauge.cost_is_partial else ""
        money = f" · {floor}{format_usd(cost)}"
    return [
        ("tokens", f"ctx {gauge.tokens:,} / {gauge.soft_threshold:,} soft"),
        ("hard", f" / {gauge.hard_limit:,} hard"),
        ("share", f" ({share})"),
        ("cost", money),
        ("estimator", f" · estimator: {clip_line(str(gauge.estimator), 60)}"),
    ]


def gauge_level(gauge: Gauge | None) -> str:
    """ok, over-soft (compaction will run) or over-hard (a request would be blocked)."""
    if gauge is None or gauge.tokens < gauge.soft_threshold:
        return "ok"
    return "over-hard" if gauge.tokens >= gauge.hard_limit else "over-soft"


def build_toolbar(gauge: Gauge | None, width: int | None = None) -> FormattedText:
    """The gauge, then the key hint. When `width` columns cannot hold all of it, whole
    parts are left out, least important first (`TOOLBAR_PARTS_DROPPED_FIRST`), so no word
    is ever cut; the token count and the soft threshold always stay."""
    parts = [*build_gauge_parts(gauge), ("hint", KEY_HINT)]
    for name in TOOLBAR_PARTS_DROPPED_FIRST:
        if width is None or sum(get_cwidth(text) for _, text in parts) <= width:
            break
        parts = [part for part in parts if part[0] != name]
    shown = "".join(text for name, text in parts if name != "hint")
    fragments = [(f"class:gauge.{gauge_level(gauge)}", shown)]
    if any(name == "hint" for name, _ in parts):
        fragments.append(("class:hint", KEY_HINT))
    return FormattedText(fragments)


def _screen_columns() -> int | None:
    """The width of the terminal the prompt runs on (None when it cannot be told)."""
    try:
        return int(get_app().output.get_size().columns)
    except Exception:  # no running application or no size: show everything
        return None


def suspend_or_ignore(event: Any) -> None:
    """Ctrl-Z suspends agent-cli as it suspends a shell's job (`fg` brings it back); where
    it cannot (no job control), it does nothing. prompt_toolkit's own binding inserts a
    raw ^Z, which was then sent to the model."""
    if suspend_to_background_supported():
        event.app.suspend_to_background()


def build_suspend_binding() -> KeyBindings:
    """Only Ctrl-Z (`suspend_or_ignore`): for the permission question."""
    bindings = KeyBindings()
    bindings.add("c-z")(suspend_or_ignore)
    return bindings


def build_key_bindings(
    pastes: PastedText | None = None, made: MadePlaceholders | None = None
) -> KeyBindings:
    """The prompt's own keys; a long paste becomes one of `pastes`' placeholders, and
    `made` (when given) learns where the prompt put it (`paste_origin`)."""
    bindings = KeyBindings()
    bindings.add("c-z")(suspend_or_ignore)

    @bindings.add("c-@")  # Ctrl-space, often pressed by accident (input method switches)
    def _ignore_mark(event: Any) -> None:
        """Nothing: prompt_toolkit's emacs mark would start a selection, and every key
        typed after it was then dropped unseen until Ctrl-G."""

    @bindings.add("escape", "enter")
    def _insert_newline(event: Any) -> None:
        event.current_buffer.insert_text("\n")

    if pastes is not None:

        @bindings.add(Keys.BracketedPaste)
        def _paste(event: Any) -> None:
            """A long paste goes in as one placeholder; `read_line` sends the whole text.
            Text typed ahead and held (`TypedText`) goes in as it is: it was typed."""
            data = fold_line_breaks(event.data)
            buffer = event.current_buffer
            if isinstance(event.key_sequence[-1], TypedText):
                buffer.insert_text(data)
                return
            start, shown = buffer.cursor_position, pastes.collapse(data)
            buffer.insert_text(shown)
            if made is not None and shown != data:
                made.made_here(start, start + len(shown))

    return bindings


ArgumentSource = Callable[[str], Sequence["ArgumentChoice"]]


class SlashCommandCompleter(Completer):
    """Completes `/commands` while typing, the bare `stats` on Tab, and the argument of
    the commands in `COMPLETED_ARGUMENTS` (pointers after `/expand `, session ids after
    `/resume `).

    Otherwise only the first word of a line is completed: the rest is a message for the
    model. `commands()` (name -> summary) is asked once, at the first completion, so the
    command table need not be loaded before the prompt is drawn. An argument's choices
    come from `arguments(command)` (the REPL's, once it runs: `use_arguments`); they are
    asked on Tab only (listing sessions reads their transcripts), and kept to narrow down
    while typing after it until `forget_arguments`.
    """

    def __init__(
        self, commands: Callable[[], Mapping[str, str]], arguments: ArgumentSource | None = None
    ) -> None:
        self._load_commands = commands
        self._commands: dict[str, str] | None = None
        self._arguments = arguments
        self._asked: dict[str, Sequence[ArgumentChoice]] = {}

    def use_arguments(self, arguments: ArgumentSource) -> None:
        self._arguments = arguments
        self._asked.clear()

    def forget_arguments(self) -> None:
        """Ask again at the next Tab (a new line: new pointers, new sessions)."""
        self._asked.clear()

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        typed = document.text_before_cursor
        name, space, argument = typed.partition(" ")
        if space:
            yield from self._complete_argument(name.lower(), argument, complete_event)
            return
        if not typed or any(ch.isspace() for ch in typed):
            return
        if typed.startswith("/"):
            if self._commands is None:
                self._commands = dict(self._load_commands())
            candidates = self._commands
        elif complete_event.completion_requested:
            candidates = BARE_COMMANDS
        else:
            return
        for name, summary in candidates.items():
            if name.startswith(typed) and name != typed:
                yield Completion(name, start_position=-len(typed), display_meta=summary)

    def _complete_argument(
        self, command: str, argument: str, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        if command not in COMPLETED_ARGUMENTS or any(ch.isspace() for ch in argument):
            return
        if complete_event.completion_requested and self._arguments is not None:
            self._asked[command] = self._arguments(command)
        for choice in self._asked.get(command, ()):
            if choice.is_meant_by(argument) and choice.value != argument:
                yield Completion(
                    choice.value,
                    start_position=-len(argument),
                    display_meta=choice.label,
                )


class PromptReader:
    """Reads user input at a terminal; see the module contract."""

    shows_gauge = True
    can_ask = True

    def __init__(
        self,
        history_file: Path,
        commands: Callable[[], Mapping[str, str]],
        *,
        terminal_input: Any = None,
        terminal_output: Any = None,
    ) -> None:
        """`terminal_input`/`terminal_output` replace the real terminal (tests use a pipe)."""
        self._gauge_source: Callable[[], Gauge | None] = lambda: None
        self._pending: PendingInput | None = None
        self._terminal = {"input": terminal_input, "output": terminal_output}
        self._pastes = PastedText()
        self._made = MadePlaceholders(self._pastes)
        self._paste_keys = PasteKeys(self._pastes)
        self._typed_ahead = TypeAhead()
        self._typed_lock = threading.Lock()  # the spinner's thread takes keys in too
        self._is_asking = False
        self._is_between = False  # `between_prompts` runs at the terminal
        self._completer = SlashCommandCompleter(commands)
        self._history = RegularFileHistory(history_file)
        self._session: PromptSession[str] = PromptSession(
            **self._terminal,
            history=self._history,
            key_bindings=merge_key_bindings(
                [build_key_bindings(self._pastes, self._made), self._paste_keys.key_bindings()]
            ),
            validator=self._paste_keys.validator,
            validate_while_typing=False,
            completer=self._completer,
            complete_while_typing=True,
            bottom_toolbar=lambda: build_toolbar(self._gauge_source(), _screen_columns()),
            style=TOOLBAR_STYLE,
        )
        self._paste_keys.watch(self._session.default_buffer)
        self._session.default_buffer.on_text_changed += self._follow_made
        guard_pastes(self._session.input)  # the question's prompt reads this input too

    def _follow_made(self, buffer: Any) -> None:
        self._made.follow(buffer.text, shown_entry(buffer))

    def complete_arguments_with(self, arguments: ArgumentSource) -> None:
        """Tab after `/expand ` or `/resume ` offers what `arguments(command)` gives (the
        REPL's pointers and sessions, once it runs)."""
        self._completer.use_arguments(arguments)

    def read_line(self, gauge_source: Callable[[], Gauge | None] | None = None) -> str:
        self._gauge_source = gauge_source or (lambda: None)
        self._completer.forget_arguments()
        pending, self._pending = self._pending, None
        app = self._session.app
        if pending is None:
            self._paste_keys.start_input()
            self._made.start()
            self._hold_several_lines()
        else:
            self._paste_keys.continue_input(pending.document.text)
            self._made.start(pending.document.text)
        with patch_stdout(raw=True):
            if pending is None:
                line = prompt_once(self._session, PROMPT_TEXT, pre_run=self._type_ahead_feeder())
            else:
                line = prompt_once(
                    self._session,
                    PROMPT_TEXT,
                    default=pending.document,
                    pre_run=replay(pending, app) or self._type_ahead_feeder(),
                )
            self._say_unsaved_history()
        self._made.remember()
        recalled = is_recalled(self._session.default_buffer) or bool(pending and pending.recalled)
        text = self._pastes.expand(line, self._made.spans, recalled=recalled)
        self._refuse_unseen_command(line, text, recalled=recalled)
        return text

    def _refuse_unseen_command(self, shown: str, text: str, *, recalled: bool) -> None:
        """Raise `CommandNotWhole` for a command the user may not have seen whole (a long
        paste in it, or lines it does not take: `commands.check_command_whole`); the
        input, as the prompt showed it, is then what the next prompt starts with."""
        from agent_cli.repl.commands import check_command_whole

        try:
            check_command_whole(text, self._pastes.first_made(shown, self._made.spans))
        except CommandNotWhole:
            self._pending = PendingInput(Document(shown), recalled=recalled)
            raise

    def _say_unsaved_history(self) -> None:
        """One line when the history file refused the line just sent (a full disk): the
        line is sent all the same (`history_file`)."""
        problem = self._history.take_write_problem()
        if problem is None:
            return
        from agent_cli.repl.error_text import describe_unsaved_history

        print_formatted_text(
            FormattedText([("ansiyellow", describe_unsaved_history(problem))]),
            output=self._session.output,
        )

    def _type_ahead_feeder(self) -> Callable[[], None] | None:
        """The `pre_run` that types the keys kept from before this prompt (the next line
        typed ahead, or all that is held), as if typed now; None when nothing was kept.
        Held keys typed before a question get `BEFORE_QUESTION_NOTE` above the prompt."""
        with self._typed_lock:
            if not self._typed_ahead:
                return None
            before_question = self._typed_ahead.is_before_question
            keys = self._typed_ahead.take_line()
        if before_question:
            print_formatted_text(
                FormattedText([("dim", BEFORE_QUESTION_NOTE)]), output=self._session.output
            )
        processor = self._session.app.key_processor

        def feed() -> None:
            processor.feed_multiple(keys)
            processor.process_keys()

        return feed

    def _hold_several_lines(self) -> None:
        """Lines typed or pasted while no prompt was shown wait in this one, unsent, when
        there are more than one (module contract)."""
        with self._typed_lock:
            self._take_pending(PASTE_SETTLE_SECONDS)
            if self._typed_ahead.is_mid_paste:  # the rest of it is on its way
                self._take_pending(PASTE_SETTLE_SECONDS, first_wait=PASTE_END_WAIT_SECONDS)
            if self._typed_ahead.sends() > 1:
                self._typed_ahead.hold()

    def hold_typed_ahead(self) -> None:
        """After Ctrl-C cancelled a turn: what was typed during it is not sent. It is taken
        from the terminal now and the next prompt shows all of it, each Enter a new line,
        to edit or send (`TypeAhead.hold`); without this each line would be sent at once,
        as if the turn had ended as it should."""
        with self._typed_lock:
            self._take_pending()
            self._typed_ahead.hold()

    def show_while(self, work: DeferredWork[Any]) -> None:
        """The prompt on screen while `work` runs, then off it; see the module contract.

        `work` starts once the first frame is drawn. On a terminal too dumb for
        prompt_toolkit's full prompt nothing is shown early: `work.result()` runs it.
        """
        if self._terminal["output"] is None and is_dumb_terminal():
            return
        self._gauge_source = lambda: None
        self._made.start()
        with patch_stdout(raw=True):
            self._pending = show_until_done(self._session, work, PROMPT_TEXT)
        self._made.remember()  # the next prompt starts from what this one showed

    def refresh(self) -> None:
        """Redraw the prompt (e.g. the gauge arrived); safe from any thread."""
        self._session.app.invalidate()

    def ask(self, question: str) -> str:
        """One answer to a question (permissions), without history or completion.

        Keys typed before the question was shown are no answer to it, nor to what comes
        after it: they are taken from the terminal first and held for the next line
        prompt, unsent (`TypeAhead.hold(before_question=True)`). Ctrl-C
        raises `KeyboardInterrupt` and keeps what was typed at the question, unfinished,
        for the next line prompt too, unsent (`TypeAhead.keep`): the caller cancels what
        asked, and the text must not go with it."""
        with self._typed_lock:
            self._take_pending()
            self._typed_ahead.hold(before_question=True)
            self._is_asking = True  # the question reads the terminal now, not `typed_ahead`
        answer_session: PromptSession[str] = PromptSession(
            input=self._session.input,
            output=self._terminal["output"],
            key_bindings=build_suspend_binding(),
        )
        try:
            with patch_stdout(raw=True):
                answer = str(prompt_once(answer_session, question))
        except KeyboardInterrupt:
            self._keep_unfinished(answer_session.default_buffer.text)
            raise
        finally:
            with self._typed_lock:
                self._is_asking = False
        if self._is_between:  # the question's prompt turned bracketed paste off
            self._mark_pastes(on=True)
        return answer

    def _keep_unfinished(self, text: str) -> None:
        """What was typed at a question that Ctrl-C ended: held for the next prompt,
        unsent; not when it is blank or an answer word (`y`, `no`, `v`…), which was meant
        for the question, as a reply sent with Enter is not kept either (`wiring`)."""
        from agent_cli.repl.approval_question import is_answer_word

        if text.strip() and not is_answer_word(text):
            with self._typed_lock:
                self._typed_ahead.keep(text, ended=False)

    def keep_unanswered(self, reply: str) -> None:
        """A reply to a question that was no answer: kept, after what was typed before the
        question, for the next line prompt, unsent (`TypeAhead.keep`)."""
        with self._typed_lock:
            self._typed_ahead.keep(reply)

    @contextmanager
    def between_prompts(self) -> Iterator[None]:
        """While a turn or command runs: the terminal neither echoes nor edits what is
        typed (`terminal_modes.quiet_terminal`), and marks a paste (bracketed paste, also
        after a question's prompt turned it off), so the paste waits in the next prompt
        whole (`TypeAhead`); what was typed is taken in before the terminal is put back."""
        undo = quiet_terminal(sys.stdin.fileno()) if self._terminal["input"] is None else None
        self._is_between = undo is not None
        if self._is_between:
            self._mark_pastes(on=True)
        try:
            yield
        finally:
            self._is_between = False
            if undo is not None:
                with self._typed_lock:
                    self._take_pending()
                self._mark_pastes(on=False)
                undo()

    def typed_ahead(self) -> str:
        """What was typed since the last prompt, as the next prompt will show it (taken in
        from the terminal now); safe from any thread."""
        with self._typed_lock:
            if not self._is_asking:
                self._take_pending()
            return self._typed_ahead.preview()

    def _take_pending(self, settle: float = 0.0, first_wait: float = 0.0) -> None:
        """Add what the terminal holds unread to the keys kept (with `_typed_lock` held)."""
        if self._terminal["input"] is None:
            self._typed_ahead.add(take_pending(sys.stdin.fileno(), settle, first_wait))

    def _mark_pastes(self, *, on: bool) -> None:
        """Bracketed paste on (or off) at the terminal: a paste then comes marked, so the
        keys typed ahead tell it from typing (`paste_marks`). A prompt turns it on while
        shown and off when it ends; between prompts this keeps it on. A terminal gone
        (closed: SIGHUP on its way) has nothing to mark: that is no error of its own."""
        output = self._session.output
        with contextlib.suppress(OSError):
            if on:
                output.enable_bracketed_paste()
            else:
                output.disable_bracketed_paste()
            output.flush()
