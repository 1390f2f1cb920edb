"""A bound on how long an answer's stream may go without an event.

Why: the client's timeout bounds each read, and the server's `ping` events are reads: a
stream that sent `message_start` and then only pings (a stuck model behind a live
proxy) never ended, and `agent-cli -p` waited for ever. The SDK swallows pings, so only
a clock beside the read can see that nothing is coming.

Contract: `StreamWatchdog(close, limit)` is started with `start()`; `saw_event()` is
called for every event the SDK yields; when `limit` seconds pass with no event, it calls
`close()` once (which makes the blocked read fail) and `fired` turns True: the reader
then raises `StreamFault("timeout")`, which the provider retries like any timeout.
`stop()` ends its thread. The limit is the provider's own per-read timeout: an answer may
think as long as a single read may wait, no longer.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable

MAX_CHECK_SECONDS = 1.0


class StreamWatchdog:
    """Closes a stream that went `limit` seconds without an event; see the module contract."""

    def __init__(
        self,
        close: Callable[[], None],
        limit: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._close = close
        self._limit = limit
        self._clock = clock
        self._last = clock()
        self._done = threading.Event()
        self.fired = False
        self._thread = threading.Thread(target=self._watch, name="stream-watchdog", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def saw_event(self) -> None:
        self._last = self._clock()

    def stop(self) -> None:
        self._done.set()

    def _watch(self) -> None:
        check = max(0.01, min(MAX_CHECK_SECONDS, self._limit / 4))
        while not self._done.wait(check):
            if self._clock() - self._last > self._limit:
                self.fired = True
                with contextlib.suppress(Exception):  # closing a broken stream may raise
                    self._close()
                return
