"""Doing something slow while the prompt is already on screen.

Opening the first session (the session modules, the provider, the stores) and the first
context gauge (which loads the tokenizer) are not needed to draw the prompt; waiting for
them would keep it off screen. `DeferredWork` opens the session on a worker thread once
the first prompt frame is drawn (see `early_prompt`); `BackgroundMeasure` measures the
gauge on a worker thread while the user can already type, and the toolbar shows the
figure once it is there.

`BackgroundMeasure` contract: `value` is None until `measure()` returned; an error in
`measure` is kept in `error` and never raised or printed (the gauge is informative, the
REPL goes on without it). With `again`, it measures once more every `interval` seconds
while `again()` holds (MCP servers still starting: the figure rises as they do), until
`wait()`. `on_done` runs on the worker thread after each measurement, so it must be
thread-safe (prompt_toolkit's `invalidate` is). The measured object is not thread-safe:
the main thread calls `wait()`, which stops the repeats and waits for the one running,
before it touches it again. It is a `DeferredWork` started at once, whose errors are
kept instead of raised.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class DeferredWork(Generic[T]):
    """Work the first prompt frame does not need, run on a worker thread once it is drawn.

    Contract: `start()` runs `work` on a worker thread (later calls do nothing).
    `when_done(callback)` runs `callback()` once the work ended, well or badly: at once
    on the calling thread if it already has, else on the worker thread, so the callback
    must be thread-safe and must not raise; it returns a function that cancels the
    callback. `result()` blocks until the work ended and returns what it returned or
    raises what it raised (Ctrl-C still interrupts the wait); if nobody started it, it
    runs the work right there, on the calling thread.
    """

    def __init__(self, work: Callable[[], T], *, name: str = "agent-cli-start") -> None:
        self._work = work
        self._name = name
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._ended = False
        self._callbacks: list[Callable[[], None]] = []
        self._value: T | None = None
        self._error: BaseException | None = None

    def start(self) -> None:
        with self._lock:
            if self._thread is not None or self._ended:
                return
            self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
        self._thread.start()

    def when_done(self, callback: Callable[[], None]) -> Callable[[], None]:
        with self._lock:
            if not self._ended:
                self._callbacks.append(callback)
                return lambda: self._forget(callback)
        callback()
        return lambda: None

    def result(self) -> T:
        with self._lock:
            thread = self._thread
        if thread is None:
            self._run()
        else:
            thread.join()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]  # set when there is no error

    def _run(self) -> None:
        try:
            self._value = self._work()
        except BaseException as exc:  # handed to whoever calls result()
            self._error = exc
        with self._lock:
            self._ended = True
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def _forget(self, callback: Callable[[], None]) -> None:
        with self._lock:
            if callback in self._callbacks:
                self._callbacks.remove(callback)


class BackgroundMeasure:
    """One measurement on a worker thread, started at once; see the module contract."""

    def __init__(
        self,
        measure: Callable[[], Any],
        on_done: Callable[[], None] | None = None,
        *,
        again: Callable[[], bool] | None = None,
        interval: float = 0.5,
    ) -> None:
        self.value: Any = None
        self.error: BaseException | None = None
        self._stopped = threading.Event()

        def run() -> None:
            while True:
                try:
                    self.value = measure()
                except Exception as exc:  # kept for whoever asks; a gauge must not kill the REPL
                    self.error = exc
                    return
                if again is None or self._stopped.is_set() or not again():
                    return
                if on_done is not None:  # (the last one runs when the work ends)
                    on_done()
                if self._stopped.wait(interval):
                    return

        self._work = DeferredWork(run, name="agent-cli-gauge")
        if on_done is not None:
            self._work.when_done(on_done)
        self._work.start()

    def wait(self) -> Any:
        """Stop measuring again and block until the measurement ended; its value (None
        after an error)."""
        self._stopped.set()
        self._work.result()
        return self.value
