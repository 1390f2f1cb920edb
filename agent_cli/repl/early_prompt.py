"""The first prompt, on screen while the session still opens behind it.

Opening the session is most of the start-up time, and the banner above the prompt needs
the session; so the prompt is drawn first, alone, and the session opens on a worker
thread (`background.DeferredWork`). Once it is open the prompt is taken off the screen
(erased, as if it had never been drawn), the banner is printed, and the prompt comes
back with whatever was typed meanwhile. The final screen is the same as if the session
had opened first; only the order in which the two parts appeared differs.

Contract:
- `show_until_done(session, work, message)` shows `session`'s prompt, starts `work`
  once the first frame is on screen, and erases the prompt as soon as `work` ended or
  the user ended the line (Enter, Ctrl-C, Ctrl-D), whichever comes first. It returns a
  `PendingInput`: what was typed (text and cursor) and how the line ended, if it did.
  It never waits for `work`: the caller does (`work.result()`). The `PendingInput` also
  says whether the text was recalled from the history (`recalled`), which the next
  prompt's buffer, started afresh from that text, can no longer tell.
- `replay(pending, app)` is the `pre_run` for the prompt shown next, called with
  `default=pending.document`: a line that had ended ends the same way again at once
  (same result or exception, same style), so it shows on screen below the banner,
  exactly as it would have; a line that had not ended can be edited on. Keys typed
  after the line ended were not read yet, so the prompt after that one gets them.
- History: an accepted line went into the history when it was accepted; the replay
  does not add it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.application import Application
from prompt_toolkit.document import Document
from prompt_toolkit.renderer import Renderer

from agent_cli.repl.background import DeferredWork
from agent_cli.repl.history_file import is_recalled
from agent_cli.repl.prompt_ending import prompt_once

_WORK_DONE = object()  # the result the prompt exits with when the work ended first


@dataclass(frozen=True)
class PendingInput:
    """What the user did at the first prompt before the session was open."""

    document: Document
    ended: bool = False
    result: str | None = None
    exception: type[BaseException] | None = None  # EOFError (Ctrl-D) or KeyboardInterrupt
    style: str = ""
    recalled: bool = False  # the text came from the history (`history_file.is_recalled`)


def show_until_done(
    session: PromptSession[Any], work: DeferredWork[Any], message: str
) -> PendingInput:
    """Prompt until `work` ended or the line did; see the module contract."""
    app = session.app
    cancel: list[Callable[[], None]] = []

    def start_work(_: Any) -> None:  # after every frame; only the first one starts it
        work.start()

    def end_when_work_ends() -> None:
        loop = asyncio.get_running_loop()

        def on_work_done() -> None:  # on the worker thread
            with contextlib.suppress(RuntimeError):  # the prompt ended, its loop closed
                loop.call_soon_threadsafe(_exit_unless_done, app)

        cancel.append(work.when_done(on_work_done))

    app.erase_when_done = True
    app.renderer.erase = functools.partial(_erase_row_by_row, app.renderer)  # type: ignore[method-assign]
    app.after_render.add_handler(start_work)
    try:
        result = prompt_once(session, message, pre_run=end_when_work_ends)
    except (EOFError, KeyboardInterrupt) as exc:
        return _ended(app, exception=type(exc))
    finally:
        for undo in cancel:
            undo()
        app.after_render.remove_handler(start_work)
        del app.renderer.erase  # back to the class's own
        app.erase_when_done = False
    if result is _WORK_DONE:
        return PendingInput(app.current_buffer.document, recalled=is_recalled(app.current_buffer))
    return _ended(app, result=result)


def replay(pending: PendingInput | None, app: Application[Any]) -> Callable[[], None] | None:
    """The `pre_run` that ends the next prompt as the pending line ended; None if it did not."""
    if pending is None or not pending.ended:
        return None

    def end_again() -> None:
        if pending.exception is not None:
            app.exit(exception=pending.exception, style=pending.style)
        else:
            app.exit(result=pending.result, style=pending.style)

    return end_again


def _exit_unless_done(app: Application[Any]) -> None:
    """End the prompt for the finished work, unless the user ended it first."""
    if app.is_running and not app.is_done:
        app.exit(result=_WORK_DONE)


def _erase_row_by_row(renderer: Renderer, leave_alternate_screen: bool = True) -> None:
    """`Renderer.erase`, clearing the drawn rows one by one instead of "erase down".

    Erasing down from the top-left corner is clearing the whole screen, and tmux (its
    `scroll-on-clear` option, on by default) then keeps the cleared screen in the
    scroll-back: a prompt drawn on a fresh screen would stay there, above the banner.
    Clearing rows never touches the scroll-back, in any terminal.
    """
    output = renderer.output
    cursor = renderer._cursor_pos  # where the renderer left the cursor, from the origin
    screen = renderer.last_rendered_screen
    rows = max(1, screen.height if screen is not None else 1, cursor.y + 1)
    output.cursor_backward(cursor.x)
    output.cursor_up(cursor.y)
    for row in range(rows):
        output.erase_end_of_line()
        if row < rows - 1:
            output.cursor_down(1)
    output.cursor_up(rows - 1)
    output.reset_attributes()
    output.enable_autowrap()
    output.flush()
    renderer.reset(leave_alternate_screen=leave_alternate_screen)


def _ended(
    app: Application[Any],
    *,
    result: str | None = None,
    exception: type[BaseException] | None = None,
) -> PendingInput:
    return PendingInput(
        app.current_buffer.document,
        ended=True,
        result=result,
        exception=exception,
        style=app.exit_style,
        recalled=is_recalled(app.current_buffer),
    )
