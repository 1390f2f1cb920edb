"""A running tool on screen: spinner, elapsed time and the newest lines of its output.

Contract: `RunningToolView.start(name)` opens a transient rich `Live` region (terminals
only) that redraws itself a few times a second, so the spinner turns and the elapsed time
counts even while a command prints nothing. `feed(chunk)` adds output as it arrives
(bytes from the tool's own pipe, decoded and sanitized here); only the last
`LIVE_TAIL_LINES` lines are shown, so the region never outgrows the screen. `stop()`
erases the region: the finished tool's preview is printed in its place by the renderer.
A region that was never started ignores `feed` and `stop`, so pipes and logs see nothing.
"""

from __future__ import annotations

import codecs
import time
from collections.abc import Callable

from rich.console import Console, ConsoleOptions, RenderResult
from rich.live import Live
from rich.spinner import Spinner
from rich.text import Text

from agent_cli.repl.safe_text import clip_line, clip_output_line, sanitize_text

LIVE_TAIL_LINES = 6
REFRESHES_PER_SECOND = 8


class _ActivityView:
    """What the live region draws: the spinner line, then the output's tail."""

    def __init__(self, name: str, clock: Callable[[], float]) -> None:
        self.name = name
        self.output = ""
        self._clock = clock
        self._started = clock()
        self._spinner = Spinner("dots", style="magenta")

    def elapsed_seconds(self) -> float:
        return self._clock() - self._started

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        self._spinner.text = Text.assemble(
            (f"running {clip_line(self.name, 40)}", "bold magenta"),
            (f" · {self.elapsed_seconds():.0f}s · Ctrl-C stops it", "dim"),
        )
        yield self._spinner
        width = max(options.max_width - 4, 10)
        for line in self.output.rstrip("\n").split("\n")[-LIVE_TAIL_LINES:]:
            if line.strip():
                yield Text.assemble(("│ ", "dim"), clip_output_line(line, width))


class RunningToolView:
    """The live region of the tool that runs now; see the module contract."""

    def __init__(
        self, console: Console, *, live: bool, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._console = console
        self._is_live_mode = live
        self._clock = clock
        self._live: Live | None = None
        self._view: _ActivityView | None = None
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    @property
    def is_running(self) -> bool:
        return self._live is not None

    def start(self, name: str) -> None:
        self.stop()
        if not self._is_live_mode:
            return
        self._view = _ActivityView(name, self._clock)
        self._decoder.reset()
        self._live = Live(
            self._view,
            console=self._console,
            refresh_per_second=REFRESHES_PER_SECOND,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._live.start()

    def feed(self, chunk: bytes) -> None:
        if self._view is None:
            return
        text = sanitize_text(self._decoder.decode(chunk))
        # keep only what the tail can show: a long run must not grow without bound
        self._view.output = (self._view.output + text)[-16_384:]

    def stop(self) -> None:
        if self._live is not None:
            self._live.stop()
        self._live = None
        self._view = None
