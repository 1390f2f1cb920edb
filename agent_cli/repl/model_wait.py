"""Waiting for the model on screen: a spinner and the seconds since the request was sent.

Contract: `ModelWaitView.start()` (the session calls it through its request watcher as a
request is sent, and through its summary watcher as compaction asks for a summary) opens a transient rich `Live` region, on terminals only, that redraws
itself a few times a second, so the spinner turns and the seconds count while nothing
else moves. `stop()` erases it; the renderer stops it before showing any event, so the
first token (or tool call, notice, retry line) takes its place. A view made with
`live=False` (pipes, `-p`) never draws: stdout stays the answer alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.console import Console, ConsoleOptions, RenderResult
from rich.live import Live
from rich.spinner import Spinner
from rich.text import Text

from agent_cli.repl.error_text import describe_model_wait

REFRESHES_PER_SECOND = 8


class ModelWaitLine:
    """What the live region draws: the spinner and how long the request has waited
    (since this line was made, by `clock`), in the words `describe` gives for it."""

    def __init__(
        self,
        clock: Callable[[], float],
        describe: Callable[[float], str] = describe_model_wait,
    ) -> None:
        self._clock = clock
        self._describe = describe
        self._sent_at = clock()
        self._spinner = Spinner("dots", style="cyan")

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        waited = self._clock() - self._sent_at
        self._spinner.text = Text(self._describe(waited), style="dim")
        yield self._spinner


class ModelWaitView:
    """The spinner of a request that has had no answer yet; see the module contract."""

    def __init__(
        self, console: Console, *, live: bool, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._console = console
        self._is_live_mode = live
        self._clock = clock
        self._live: Live | None = None

    @property
    def is_waiting(self) -> bool:
        return self._live is not None

    def start(self, describe: Callable[[float], str] = describe_model_wait) -> None:
        """A request was sent: count from now (a region already shown starts again), in
        the words `describe` gives for the seconds waited (a model's answer by default)."""
        self.stop()
        if not self._is_live_mode:
            return
        self._live = Live(
            ModelWaitLine(self._clock, describe),
            console=self._console,
            refresh_per_second=REFRESHES_PER_SECOND,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._live.start()

    def stop(self) -> None:
        if self._live is not None:
            self._live.stop()
        self._live = None
