"""`agent-cli -p PROMPT`: one turn for scripts.

Contract: the final answer alone goes to stdout, as plain sanitized text; `[compact]`
lines, tool progress, the text the model wrote between tool calls, notices and retry
lines (a summary request's too) go to stderr. `exit_code_for_outcome` maps how the turn
ended to the exit code: 0 ok, 1 failed (e.g. the provider failed), 3 blocked by the hard
limit, 130 cancelled (Ctrl-C). A turn that said ok but one of whose records the transcript
refused (`UNRECORDED_NOTICES`) is failed, 1: a script must not take a turn that a later
`--continue` cannot see for done. Errors are worded for the command line
(`error_text.describe_print_turn_error`): `agent-cli --resume <id>`, never a REPL command.
"""

from __future__ import annotations

from typing import TextIO

from rich.text import Text

from agent_cli.errors import AgentCliError
from agent_cli.events import AssistantDone, AssistantText, Notice, SessionEvent, TurnEnded
from agent_cli.repl.error_text import describe_print_turn_error
from agent_cli.repl.port import SessionPort
from agent_cli.repl.render import EventRenderer
from agent_cli.repl.safe_text import sanitize_block, sanitize_text
from agent_cli.repl.turns import drive_events
from agent_cli.repl.word_wrap import print_at_words

OUTCOME_EXIT_CODES = {"ok": 0, "failed": 1, "blocked": 3, "cancelled": 130}
FAILED_EXIT = 1
# Notices that say a record of the turn did not reach the transcript.
UNRECORDED_NOTICES = frozenset({"transcript_write_failed"})


def exit_code_for_outcome(ended: TurnEnded | None) -> int:
    if ended is None:
        return FAILED_EXIT
    return OUTCOME_EXIT_CODES.get(ended.outcome, FAILED_EXIT)


class PrintModeRenderer:
    """Keeps the last complete answer for stdout; shows everything else on stderr."""

    def __init__(self, answer_out: TextIO, diagnostics: EventRenderer) -> None:
        self._answer_out = answer_out
        self._diagnostics = diagnostics
        self._final_answer: str | None = None
        self._paused_text = ""  # an answer the API paused goes on in the next request
        self.unrecorded = False  # the transcript refused a record of the turn

    def render(self, event: SessionEvent) -> None:
        if isinstance(event, AssistantText):
            return  # nothing streams in -p mode: the answer is printed once, whole
        if isinstance(event, AssistantDone):
            self._keep_answer(event)
            return
        if isinstance(event, Notice) and event.code in UNRECORDED_NOTICES:
            self.unrecorded = True
        self._diagnostics.render(event)
        if isinstance(event, TurnEnded):
            self.write_answer()

    def _keep_answer(self, event: AssistantDone) -> None:
        text = _continued(self._paused_text, event.text)
        self._paused_text = text if event.stop_reason == "pause_turn" else ""
        if event.stop_reason == "tool_use":
            # Text written before tool calls is progress, not the answer.
            if text.strip():
                print_at_words(self._diagnostics.console, Text(sanitize_text(text), style="dim"))
            return
        self._final_answer = text

    def write_answer(self) -> None:
        if self._final_answer is None:
            return
        answer, self._final_answer = sanitize_block(self._final_answer), None
        self._answer_out.write(answer if answer.endswith("\n") else answer + "\n")
        self._answer_out.flush()


def _continued(paused: str, text: str) -> str:
    """A paused answer and its continuation, as one: on a new line when neither side
    has a space where they meet, as the interactive REPL shows each part on its own
    line (an outside attack saw `paused partafter pause`); a continuation that goes on
    with a space (`Working on it,` + ` and done.`) reads on as one sentence."""
    if paused and text and not paused[-1].isspace() and not text[0].isspace():
        return f"{paused}\n{text}"
    return paused + text


def run_print_turn(
    session: SessionPort, prompt_text: str, answer_out: TextIO, diagnostics: EventRenderer
) -> int:
    """Run one turn on `session`, print as the contract says; return the exit code."""
    renderer = PrintModeRenderer(answer_out, diagnostics)
    for notice in session.startup_notices:
        diagnostics.render(notice)
    session.start_mcp()
    session.watch_summary_retries(diagnostics.watch_summary_retry)  # as a request's, on stderr
    try:
        ended = drive_events(session.run_turn(prompt_text), renderer.render)
    except AgentCliError as exc:
        diagnostics.print_error(describe_print_turn_error(exc, session.session_id))
        return FAILED_EXIT
    renderer.write_answer()
    code = exit_code_for_outcome(ended)
    return FAILED_EXIT if code == 0 and renderer.unrecorded else code
