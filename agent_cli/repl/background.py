"""Measuring something slow while the prompt is already on screen.

The first context gauge loads the tokenizer, which takes longer than the whole start-up
budget; waiting for it would keep the prompt off screen. `BackgroundMeasure` runs the
measurement on a worker thread while the user can already type, and the toolbar shows
the figure once it is there.

Contract: `value` is None until `measure()` returned; an error in `measure` is kept in
`error` and never raised or printed (the gauge is informative, the REPL goes on without
it). `on_done` runs on the worker thread when the measurement ends, so it must be
thread-safe (prompt_toolkit's `invalidate` is). The measured object is not thread-safe:
the main thread calls `wait()` before it touches it again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class BackgroundMeasure:
    """One measurement on a worker thread; see the module contract."""

    def __init__(
        self, measure: Callable[[], Any], on_done: Callable[[], None] | None = None
    ) -> None:
        self.value: Any = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._run, args=(measure, on_done), name="agent-cli-gauge", daemon=True
        )
        self._thread.start()

    def _run(self, measure: Callable[[], Any], on_done: Callable[[], None] | None) -> None:
        try:
            self.value = measure()
        except Exception as exc:  # kept for whoever asks; a gauge must not kill the REPL
            self.error = exc
        finally:
            if on_done is not None:
                on_done()

    def wait(self) -> Any:
        """Block until the measurement ended; its value (None after an error)."""
        self._thread.join()
        return self.value
