"""A hard deadline for shutting down: once armed, the process ends by then, whatever it waits on.

Why: after a termination signal the unwinding (end the running command, record that it
was stopped, close the session) must not be able to hang the process for ever, whatever
it ends up waiting for (a lock, a thread, a terminal that is gone). Nothing is lost by
cutting it short: every transcript record is flushed and fsynced as it is written, and
a resume answers a tool call whose result was never recorded.

Contract: `ExitDeadline(seconds)` starts a daemon thread that waits to be armed.
`arm(code)` is meant for a signal handler on the main thread (it takes no lock: one byte
into a pipe, and an alarm); arming again does nothing. `seconds` after the first `arm`
the thread calls `os._exit(code)`: no clean-up, no flush. Should even that thread never
run (the interpreter stuck in C code that holds the GIL), SIGALRM at its default action
ends the process `BACKSTOP_SECONDS` later. There is no disarming: the deadline also
bounds the interpreter's own shutdown after `main` returned.
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time

BACKSTOP_SECONDS = 3.0


class ExitDeadline:
    """See the module contract."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._armed = False
        self._wait_end, self._arm_end = os.pipe()
        threading.Thread(target=self._watch, name="agent-cli-exit-deadline", daemon=True).start()

    def arm(self, code: int) -> None:
        if self._armed:
            return
        self._armed = True
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            signal.alarm(math.ceil(self.seconds + BACKSTOP_SECONDS))
        os.write(self._arm_end, bytes([code & 0xFF]))

    def _watch(self) -> None:
        code = os.read(self._wait_end, 1)
        time.sleep(self.seconds)
        os._exit(code[0] if code else 1)
