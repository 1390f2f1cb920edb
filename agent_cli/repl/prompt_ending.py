"""Prompts that a termination signal (SIGTERM, SIGHUP) ends cleanly.

Why: prompt_toolkit runs a prompt inside an asyncio loop. An exception raised by a signal
handler while the loop runs one of its callbacks (a redraw, a key read) is caught there
and handed to prompt_toolkit's exception handler, which prints it and waits for Enter:
on a terminal that went away, for ever, and with the signal already spent. So while a
prompt runs, the signal is only noted (`termination.termination_held`) and the prompt is
asked, from inside its own loop, to end with `TerminationRequested`.

Contract: `prompt_once(session, message, **options)` is `session.prompt(message,
**options)`, except that a termination signal that arrives before or while the prompt
runs makes it raise `TerminationRequested` (at once when one was already noted), and
that `pre_run` is then not called. Main thread only, like prompt_toolkit's prompts.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.application import Application

from agent_cli.errors import TerminationRequested
from agent_cli.termination import pending_termination, termination_held


def prompt_once(
    session: PromptSession[Any],
    message: str,
    *,
    pre_run: Callable[[], None] | None = None,
    **options: Any,
) -> Any:
    """Prompt until the line ends or a termination signal comes; see the module contract."""
    app = session.app

    def wake(signal_number: int) -> None:  # in the signal handler, on the loop's thread
        loop = app.loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(_end_for_termination, app, signal_number)

    def start() -> None:  # the loop runs now: a signal noted before it can be acted on
        noted = pending_termination()
        if noted is not None:
            _end_for_termination(app, noted)
        elif pre_run is not None:
            pre_run()

    with termination_held(wake=wake):
        return session.prompt(message, pre_run=start, **options)


def _end_for_termination(app: Application[Any], signal_number: int) -> None:
    """End the prompt with `TerminationRequested`, unless it is ending already."""
    future = app.future
    if future is not None and not future.done():
        app.exit(exception=TerminationRequested(signal_number))
