"""Reading input when stdin is not a terminal (pipes, files, CI).

prompt_toolkit does not read piped or absent stdin properly, so here every line of
stdin is one input, read with plain `readline`. Contract: `read_line()` returns the next
line without its line ending, raises `EOFError` at the end of input and `InputTooLarge`
for a line over the input cap (that line is skipped, the next read goes on after it); `ask()` never
blocks on a question nobody can answer (it returns "n" at once: a refusal). Each line read is echoed after a `> ` marker, so a log of a piped run shows
what was asked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from agent_cli.session.input_limit import read_bounded

if TYPE_CHECKING:
    from agent_cli.events import Gauge

ECHO_MARK = "> "


class PlainLineReader:
    """One input per line of `stream`; see the module contract."""

    shows_gauge = False  # nothing to show it in: the gauge is not measured at all
    can_ask = False  # nobody at a terminal to answer

    def __init__(self, stream: TextIO, echo: Callable[[str], None] | None = None) -> None:
        self._stream = stream
        self._echo = echo

    def read_line(self, gauge_source: Callable[[], Gauge | None] | None = None) -> str:
        line = read_bounded(self._stream, "stdin line", line=True)
        if line == "":
            raise EOFError
        line = line.rstrip("\n").rstrip("\r")
        if self._echo is not None and line.strip():
            self._echo(line)
        return line

    def refresh(self) -> None:
        """Nothing on screen to redraw: piped input shows no gauge."""

    def hold_typed_ahead(self) -> None:
        """Nothing to hold: piped lines are the script's instructions, read as they come."""

    def ask(self, question: str) -> str:
        return "n"
