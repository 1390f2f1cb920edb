"""SIGTERM, SIGHUP and SIGQUIT end agent-cli the way Ctrl-C ends a turn: cleanly, and for sure.

Why: a command runs in its own session (so Ctrl-C at the terminal reaches only us), and
therefore a closed terminal (SIGHUP) or `kill` (SIGTERM) of agent-cli used to leave it
running. Ctrl-\\ (SIGQUIT, the terminal's other quit key) while a command ran or the
model answered ended agent-cli by the signal itself, with no record that the call was
stopped: it is a request to quit, taken as one (at the prompt and the permission
question the terminal is in raw mode and the key sends no signal).
`install_termination_handlers()` (called by `repl.main`) makes the first such
signal raise `TerminationRequested` in the main thread: the running command's process
group is ended (`tools.shell`), the turn records a tool result saying the command was
stopped, the session closes, and `main` exits with 128 + the signal number.

`termination_held()` (and `interrupt_held()`, for Ctrl-C) covers moments where raising would
do harm. It notes a signal that
lands inside the block and raises it only at `release()` (or the block's end): when a
command starts (inside `subprocess.Popen`, before the caller holds the pid to end its
group), and while a prompt runs (prompt_toolkit runs it in an asyncio loop, which would
catch the exception in one of its callbacks and wait for Enter on a terminal that may be
gone); there `wake(signal_number)` asks the prompt to end (`repl.prompt_ending`).

Bounded: with `exit_deadline_seconds` (main's), the first signal also arms an
`ExitDeadline`, so the process ends by then whatever the unwinding waits on. Later
signals are ignored for `LATER_SIGNAL_GRACE_SECONDS` (a terminal that goes away can hang
up twice), so they cannot cut the recording short; after that, one ends the process at
once, with 128 + its number. Without a deadline (tests) later signals are ignored.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from agent_cli.errors import TerminationRequested
from agent_cli.exit_deadline import ExitDeadline

HANDLED_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
LATER_SIGNAL_GRACE_SECONDS = 1.0

Wake = Callable[[int], None]


class _State:
    depth = 0  # termination_held blocks the main thread is inside
    pending: int | None = None  # a signal noted inside them, not raised yet
    wakers: list[Wake] = []
    received: int | None = None  # the first signal of this run
    received_at = 0.0
    deadline: ExitDeadline | None = None


def install_termination_handlers(exit_deadline_seconds: float | None = None) -> None:
    """Install the handlers for a new run (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        return
    _State.received = _State.pending = None
    if exit_deadline_seconds is None:
        _State.deadline = None
    elif _State.deadline is None or _State.deadline.seconds != exit_deadline_seconds:
        _State.deadline = ExitDeadline(exit_deadline_seconds)
    for number in HANDLED_SIGNALS:
        signal.signal(number, _on_signal)


def termination_received() -> int | None:
    """The first termination signal of this run, once one came (raised or not)."""
    return _State.received


def pending_termination() -> int | None:
    """The signal noted inside a `termination_held` block and not raised yet, if any."""
    return _State.pending


def _on_signal(signal_number: int, frame: FrameType | None) -> None:
    if _State.received is not None:
        _on_later_signal(signal_number)
        return
    _State.received, _State.received_at = signal_number, time.monotonic()
    if _State.deadline is not None:
        _State.deadline.arm(128 + signal_number)
    if not _State.depth:
        raise TerminationRequested(signal_number)
    _State.pending = signal_number
    for wake in list(_State.wakers):
        with contextlib.suppress(Exception):  # nothing may escape into the code we interrupted
            wake(signal_number)


def _on_later_signal(signal_number: int) -> None:
    waited = time.monotonic() - _State.received_at
    if _State.deadline is not None and waited >= LATER_SIGNAL_GRACE_SECONDS:
        os._exit(128 + signal_number)


@contextmanager
def termination_held(wake: Wake | None = None) -> Iterator[Callable[[], None]]:
    """Note, do not raise, a termination signal inside the block, and call `wake` with it;
    the yielded `release()` (or the end of the block) raises it then, if one came.
    Main thread only (elsewhere the block simply runs: signals go to the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: None
        return
    released = False

    def release() -> None:
        nonlocal released
        if not released:
            released = True
            _State.depth -= 1
            if wake is not None:
                _State.wakers.remove(wake)
            _raise_pending()

    _State.depth += 1
    if wake is not None:
        _State.wakers.append(wake)
    try:
        yield release
    except TerminationRequested:
        _State.pending = None  # the noted signal is already on its way out
        raise
    finally:
        release()


@contextmanager
def interrupt_held() -> Iterator[Callable[[], None]]:
    """Note, do not raise, a Ctrl-C (SIGINT) inside the block; the yielded `release()` (or the
    block's end) puts Python's handler back and raises the KeyboardInterrupt then, if one came.
    For the moment a command starts, like `termination_held`: an interrupt raised between
    `Popen` returning and the caller's handler lost the output read so far. Main thread only,
    and only under Python's default handler (the pager's own stays as it is)."""
    is_main = threading.current_thread() is threading.main_thread()
    if not is_main or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield lambda: None
        return
    came, released = False, False

    def note(_number: int, _frame: FrameType | None) -> None:
        nonlocal came
        came = True

    def release() -> None:
        nonlocal released
        if not released:
            released = True
            signal.signal(signal.SIGINT, signal.default_int_handler)
            if came:
                raise KeyboardInterrupt

    signal.signal(signal.SIGINT, note)
    try:
        yield release
    except BaseException:
        came = False  # (what is on its way out already ends the call)
        raise
    finally:
        release()


def _raise_pending() -> None:
    if _State.depth == 0 and _State.pending is not None:
        number, _State.pending = _State.pending, None
        raise TerminationRequested(number)


def exit_code_for_signal(error: TerminationRequested) -> int:
    return 128 + error.signal_number


def signal_name(number: int) -> str:
    """ "SIGTERM" for 15; "signal 99" for a number with no name."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
