"""SIGTERM and SIGHUP end agent-cli the way Ctrl-C ends a turn: cleanly.

Why: a command runs in its own session (so Ctrl-C at the terminal reaches only us), and
therefore a closed terminal (SIGHUP) or `kill` (SIGTERM) of agent-cli used to leave it
running. `install_termination_handlers()` makes the first such signal raise
`TerminationRequested` in the main thread: the running command's process group is ended
(`tools.shell`), the turn records a tool result saying the command was stopped, the
session closes, and `main` exits with 128 + the signal number. Later signals are ignored
while that unwinding runs, so it cannot be cut short.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

from agent_cli.errors import TerminationRequested

HANDLED_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def install_termination_handlers() -> None:
    """Install the handlers (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for number in HANDLED_SIGNALS:
        signal.signal(number, _raise_once)


def _raise_once(signal_number: int, frame: FrameType | None) -> None:
    for number in HANDLED_SIGNALS:
        signal.signal(number, signal.SIG_IGN)
    raise TerminationRequested(signal_number)


def exit_code_for_signal(error: TerminationRequested) -> int:
    return 128 + error.signal_number
