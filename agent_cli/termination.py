"""SIGTERM and SIGHUP end agent-cli the way Ctrl-C ends a turn: cleanly.

Why: a command runs in its own session (so Ctrl-C at the terminal reaches only us), and
therefore a closed terminal (SIGHUP) or `kill` (SIGTERM) of agent-cli used to leave it
running. `install_termination_handlers()` (called by `repl.main`) makes the first such
signal raise `TerminationRequested` in the main thread: the running command's process
group is ended (`tools.shell`), the turn records a tool result saying the command was
stopped, the session closes, and `main` exits with 128 + the signal number. Later
signals are ignored while that unwinding runs, so it cannot be cut short.

`termination_held()` covers the moment a command starts: a signal that lands while the
child is being created (inside `subprocess.Popen`, before the caller holds its pid) is
noted and raised only when the caller calls `release()`, where it can end the group.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from agent_cli.errors import TerminationRequested

HANDLED_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class _Hold:
    depth = 0
    pending: int | None = None


def install_termination_handlers() -> None:
    """Install the handlers (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for number in HANDLED_SIGNALS:
        signal.signal(number, _on_signal)


def _on_signal(signal_number: int, frame: FrameType | None) -> None:
    for number in HANDLED_SIGNALS:
        signal.signal(number, signal.SIG_IGN)
    if _Hold.depth:
        _Hold.pending = signal_number
        return
    raise TerminationRequested(signal_number)


@contextmanager
def termination_held() -> Iterator[Callable[[], None]]:
    """Note, do not raise, a termination signal inside the block; the yielded `release()`
    (or the end of the block) raises it then, if one came. Main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: None  # signals are only ever handled in the main thread
        return
    released = False

    def release() -> None:
        nonlocal released
        if not released:
            released = True
            _Hold.depth -= 1
            _raise_pending()

    _Hold.depth += 1
    try:
        yield release
    finally:
        release()


def _raise_pending() -> None:
    if _Hold.depth == 0 and _Hold.pending is not None:
        number, _Hold.pending = _Hold.pending, None
        raise TerminationRequested(number)


def exit_code_for_signal(error: TerminationRequested) -> int:
    return 128 + error.signal_number
