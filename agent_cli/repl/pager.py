"""Showing a text taller than the screen: through the user's pager, or plainly.

Contract: `show_long(console, renderable)` prints `renderable` whole. On a terminal, when
it is taller than the screen, it goes through a pager with rich's
`console.pager(styles=False)`: `$PAGER` (split like a shell would), else `less -R`, else
`more`. The pager gets plain text, no escape codes (outside text is sanitized before it
reaches a view, so nothing in it can move a cursor in `less -R` either). It is printed
plainly instead, whole, when the console is no terminal (a pipe or a log), when it fits
on the screen, and when no pager could be started (none installed, or `$PAGER` names a
program that is not there): then one dim line first says why. Ctrl-C inside the pager
is the pager's own (less keeps running): from the pager's start until it has ended,
agent-cli ignores SIGINT, as a shell or git does, so neither feeding the text into the
pager's pipe nor waiting for it is cut short, and the prompt is drawn only once the
pager has ended. The pager itself starts with SIGINT at its default disposition (it is
not inherited as ignored), and agent-cli's own Ctrl-C handling is back afterwards.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from types import FrameType

from rich.console import Console, RenderableType
from rich.pager import Pager
from rich.text import Text

from agent_cli.repl.error_text import describe_pager_missing
from agent_cli.repl.terminal_modes import line_ends_as_typed_for_a_child
from agent_cli.repl.word_wrap import print_at_words

DEFAULT_PAGERS = (("less", "-R"), ("more",))


def choose_pager_command(environment: Mapping[str, str]) -> tuple[list[str] | None, str]:
    """(the pager's argument list, what was asked for): `$PAGER` when set, else the first
    default installed. The list is None when that program cannot be found."""
    wanted = environment.get("PAGER", "").strip()
    if wanted:
        try:
            words = shlex.split(wanted)
        except ValueError:  # an unclosed quote: nothing to run
            return None, wanted
        return (words if words and shutil.which(words[0]) else None), wanted
    for command in DEFAULT_PAGERS:
        if shutil.which(command[0]):
            return list(command), " ".join(command)
    return None, "less"


class CommandPager(Pager):
    """Runs one pager program on the text and waits for it; `started` says if it ran."""

    def __init__(self, command: Sequence[str]) -> None:
        self.command = list(command)
        self.started = False

    def show(self, content: str) -> None:
        with _ctrl_c_belongs_to_the_pager(), line_ends_as_typed_for_a_child(_terminal_fd()):
            try:
                process = subprocess.Popen(self.command, stdin=subprocess.PIPE)
            except OSError:
                return
            self.started = True
            _feed_pager(process, content.encode("utf-8", errors="replace"))
            _wait_for_pager(process)


def _terminal_fd() -> int:
    """The terminal the pager reads its keys from: standard input's (-1 when it has none)."""
    try:
        return sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return -1


def _ignore_ctrl_c(_signum: int, _frame: FrameType | None) -> None:
    """SIGINT while a pager runs: the pager's own, nothing for agent-cli to do."""


@contextlib.contextmanager
def _ctrl_c_belongs_to_the_pager() -> Iterator[None]:
    """Within: SIGINT raises no KeyboardInterrupt here; the previous handler is back after.

    A Python-level handler (not SIG_IGN) is used so a pager started within gets SIGINT at
    its default disposition: exec resets caught signals, while it keeps ignored ones.
    Off the main thread (where no handler can be set) nothing changes; `_wait_for_pager`
    still waits through a KeyboardInterrupt there."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, _ignore_ctrl_c)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _feed_pager(process: subprocess.Popen[bytes], data: bytes) -> None:
    """Write `data` into the pager's pipe and close it; anything but the pager leaving
    early (an OSError: it stopped reading) ends the pager first, then propagates."""
    assert process.stdin is not None
    try:
        process.stdin.write(data)
        process.stdin.close()
    except OSError:  # the user left the pager before reading it all
        pass
    except BaseException:
        process.kill()
        process.wait()
        raise


def _wait_for_pager(process: subprocess.Popen[bytes]) -> None:
    """Wait through Ctrl-C, as the pager does; anything else ends the pager first."""
    try:
        while True:
            try:
                process.wait()
                return
            except KeyboardInterrupt:
                continue
    except BaseException:
        process.kill()
        process.wait()
        raise


def show_long(
    console: Console,
    renderable: RenderableType,
    environment: Mapping[str, str] | None = None,
) -> None:
    """Print `renderable` whole; see the module contract."""
    if not console.is_terminal or _fits_on_screen(console, renderable):
        console.print(renderable)
        return
    command, wanted = choose_pager_command(os.environ if environment is None else environment)
    if command is not None:
        pager = CommandPager(command)
        with console.pager(pager=pager, styles=False):
            console.print(renderable)
        if pager.started:
            return
    print_at_words(console, Text(describe_pager_missing(wanted), style="dim"))
    console.print(renderable)


def _fits_on_screen(console: Console, renderable: RenderableType) -> bool:
    """True when the rendered lines leave a row for the prompt below them."""
    lines = console.render_lines(renderable, console.options, pad=False)
    return len(lines) < console.height
