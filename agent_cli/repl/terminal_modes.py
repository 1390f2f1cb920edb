"""The terminal's own handling of typed keys (termios), while agent-cli runs at it.

Why: in its ordinary (cooked) mode the terminal echoes what is typed wherever the cursor
happens to be, edits the line itself, and flushes what it holds on Ctrl-C. While no
prompt is shown that broke the screen and lost input: a key typed during a turn landed in
the middle of a live region (the spinner, the streamed answer), which then erased the
wrong rows and left its own in the scroll-back; text typed right after the first request,
while the session still opened, was echoed above the banner; a Backspace the terminal
edited could not take back what a drain had already read; and a turn cancelled with
Ctrl-C took what was typed during it along.

Contract (each function is a no-op, returning b"" or a no-op undo, when `fd` is no
terminal or termios is missing):
- `quiet_terminal(fd)` turns echo and line editing off, and the input's CR/LF
  translation (ICRNL, INLCR, IGNCR) with them, and returns what puts them back as they
  were. The bytes typed or pasted then arrive as the prompt's own raw mode gets them: with
  ICRNL on, a paste's CRLF came as two line feeds and was sent with its line breaks
  doubled, while the same paste at a prompt was folded to one. The interactive run holds it from start-up (before the first prompt's
  modules are even imported) to its end, and the loop again around each line it runs
  (`PromptReader.between_prompts`). A prompt (prompt_toolkit) puts the terminal in its own
  raw mode while shown and back to this one when it ends, so what is typed while no prompt
  is shown is never echoed: it is kept as keys (Backspace included), shown under the
  spinner (`TypeAhead.preview`) and replayed into the next prompt. Signals (Ctrl-C) and
  output are untouched.
- `quiet_again_when_continued(fd)` keeps it so through job control: a shell's `fg`
  after Ctrl-Z stopped agent-cli while no prompt was shown puts the shell's own cooked
  mode back (bash does), and the rest of that line's keys were echoed; on SIGCONT echo
  and line editing go off again (a prompt's raw mode has them off already). It returns
  what puts the previous SIGCONT handler back.
- `take_pending(fd, settle, first_wait)` returns every byte the terminal `fd` holds
  unread, a line not yet ended included (b"" when it holds none), waiting up to
  `first_wait` seconds (none by default) when it holds none; once some came, it waits up
  to `settle` seconds for more after each read (a paste larger than the terminal's input
  buffer arrives in pieces).
- `keep_on_interrupt(fd)` sets the terminal's NOFLSH flag, so Ctrl-C (or Ctrl-\\) leaves
  what was typed in place; it returns what undoes it.
- `line_ends_as_typed_for_a_child(fd)` (a context manager): within, CR typed on terminal
  `fd` reaches a program agent-cli hands the terminal to as LF again (ICRNL on, INLCR and
  IGNCR off, as a terminal's own modes have it); the flags as they were after. The quiet
  mode turns that translation off, and a pager run from a line (`/last`) would get
  Enter as CR: util-linux `more` reads only LF as Enter, so Enter did nothing there.

This module imports no prompt_toolkit: the run quiets the terminal before that import.
"""

from __future__ import annotations

import contextlib
import os
import select
from collections.abc import Callable, Iterator
from typing import Any


def take_pending(fd: int, settle: float = 0.0, first_wait: float = 0.0) -> bytes:
    """What terminal `fd` holds unread; see the module contract.

    In cooked mode a read sees only whole lines: the terminal is switched to
    non-canonical reading (no echo, no wait) for the drain, then put back as it was."""
    try:
        import termios
    except ImportError:  # no POSIX terminal here
        return b""
    try:
        saved = termios.tcgetattr(fd)
    except (termios.error, OSError):
        return b""
    drained = list(saved)
    drained[3] &= ~(termios.ICANON | termios.ECHO)
    drained[6] = list(saved[6])
    drained[6][termios.VMIN] = 0
    drained[6][termios.VTIME] = 0
    data = b""
    try:
        termios.tcsetattr(fd, termios.TCSANOW, drained)
        while select.select([fd], [], [], settle if data else first_wait)[0]:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            data += chunk
    except (termios.error, OSError):
        pass
    finally:
        with contextlib.suppress(termios.error, OSError):
            termios.tcsetattr(fd, termios.TCSANOW, saved)
    return data


def keep_on_interrupt(fd: int) -> Callable[[], None]:
    """Set NOFLSH on terminal `fd`; the returned callable puts the flag back."""
    try:
        import termios

        saved = termios.tcgetattr(fd)
    except Exception:  # no POSIX terminal here, or `fd` is none (termios.error)
        return lambda: None
    kept = list(saved)
    kept[3] |= termios.NOFLSH
    try:
        termios.tcsetattr(fd, termios.TCSANOW, kept)
    except (termios.error, OSError):
        return lambda: None

    def undo() -> None:
        with contextlib.suppress(termios.error, OSError):
            current = termios.tcgetattr(fd)
            current[3] = (current[3] & ~termios.NOFLSH) | (saved[3] & termios.NOFLSH)
            termios.tcsetattr(fd, termios.TCSANOW, current)

    return undo


def quiet_terminal(fd: int) -> Callable[[], None]:
    """Echo and line editing off on terminal `fd` (see the module contract); the returned
    callable puts them back as they were, and leaves the terminal's other flags as they
    are then (a no-op when `fd` is no terminal)."""
    try:
        import termios

        saved = termios.tcgetattr(fd)
    except Exception:  # no POSIX terminal here, or `fd` is none (termios.error)
        return lambda: None
    try:
        termios.tcsetattr(fd, termios.TCSANOW, _quieted(saved))
    except (termios.error, OSError):
        return lambda: None

    def undo() -> None:
        with contextlib.suppress(termios.error, OSError):
            current = termios.tcgetattr(fd)
            mask = termios.ECHO | termios.ICANON
            current[3] = (current[3] & ~mask) | (saved[3] & mask)
            translations = _translations()
            current[0] = (current[0] & ~translations) | (saved[0] & translations)
            current[6] = list(current[6])
            current[6][termios.VMIN] = saved[6][termios.VMIN]
            current[6][termios.VTIME] = saved[6][termios.VTIME]
            termios.tcsetattr(fd, termios.TCSANOW, current)

    return undo


@contextlib.contextmanager
def line_ends_as_typed_for_a_child(fd: int) -> Iterator[None]:
    """Within: CR read as LF on terminal `fd`, for a program run on it (module contract)."""
    try:
        import termios

        saved = termios.tcgetattr(fd)
        lent = list(saved)
        lent[0] = (lent[0] & ~_translations()) | termios.ICRNL
        termios.tcsetattr(fd, termios.TCSANOW, lent)
    except Exception:  # no POSIX terminal here, or `fd` is none (termios.error)
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(termios.error, OSError):
            current = termios.tcgetattr(fd)
            current[0] = (current[0] & ~_translations()) | (saved[0] & _translations())
            termios.tcsetattr(fd, termios.TCSANOW, current)


def quiet_again_when_continued(fd: int) -> Callable[[], None]:
    """Until the returned callable is called, echo and line editing go off again on
    terminal `fd` each time the process is continued (SIGCONT); see the module contract.
    A no-op off the main thread (only it may set a signal handler) or without SIGCONT."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGCONT"):
        return lambda: None
    try:
        import termios
    except ImportError:  # no POSIX terminal here
        return lambda: None

    def on_continue(_number: int, _frame: object) -> None:
        with contextlib.suppress(termios.error, OSError):
            termios.tcsetattr(fd, termios.TCSANOW, _quieted(termios.tcgetattr(fd)))

    previous = signal.signal(signal.SIGCONT, on_continue)

    def undo() -> None:
        signal.signal(signal.SIGCONT, signal.SIG_DFL if previous is None else previous)

    return undo


def _quieted(attributes: list[Any]) -> list[Any]:
    """`attributes` (termios's list) with echo, line editing and CR/LF translation off,
    and reads that wait for one byte; the rest as it is (a prompt's raw mode stays raw)."""
    import termios

    quiet = list(attributes)
    quiet[0] &= ~_translations()
    quiet[3] &= ~(termios.ECHO | termios.ICANON)
    quiet[6] = list(attributes[6])
    quiet[6][termios.VMIN] = 1
    quiet[6][termios.VTIME] = 0
    return quiet


def _translations() -> int:
    """The input flags that turn CR into LF (and back) or drop CR: all off in a prompt's
    raw mode, so off while no prompt is shown too."""
    import termios

    return termios.ICRNL | termios.INLCR | termios.IGNCR
