"""Showing a text taller than the screen: through the user's pager, or plainly.

Contract: `show_long(console, renderable)` prints `renderable` whole. On a terminal, when
it is taller than the screen, it goes through a pager with rich's
`console.pager(styles=False)`: `$PAGER` (split like a shell would), else `less -R`, else
`more`. The pager gets plain text, no escape codes (outside text is sanitized before it
reaches a view, so nothing in it can move a cursor in `less -R` either). It is printed
plainly instead, whole, when the console is no terminal (a pipe or a log), when it fits
on the screen, and when no pager could be started (none installed, or `$PAGER` names a
program that is not there): then one dim line first says why. Ctrl-C inside the pager
is the pager's own (less keeps running); this waits until the pager has ended.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence

from rich.console import Console, RenderableType
from rich.pager import Pager
from rich.text import Text

from agent_cli.repl.error_text import describe_pager_missing
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
        try:
            process = subprocess.Popen(self.command, stdin=subprocess.PIPE)
        except OSError:
            return
        self.started = True
        assert process.stdin is not None
        try:
            process.stdin.write(content.encode("utf-8", errors="replace"))
            process.stdin.close()
        except OSError:  # the user left the pager before reading it all
            pass
        _wait_for_pager(process)


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
