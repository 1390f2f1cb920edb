"""Driving a session's event generator to its end, Ctrl-C included.

Contract with the session: `run_turn` and `compact_now` are generators that catch a
KeyboardInterrupt raised inside them (while streaming or running a tool), record an
error result for every unanswered tool call, yield a `Notice` and
`TurnEnded(outcome="cancelled")`, and return. Ctrl-C can also land in the REPL's own
code between two events (while rendering); then `drive_events` throws the
KeyboardInterrupt into the generator at the `yield` where it waits, so the session runs
the same cleanup, and keeps rendering what it yields until it finishes. If the
generator lets the interrupt escape, or a second Ctrl-C arrives during the cleanup,
the turn is reported as cancelled here and the generator is closed. A termination
signal (`TerminationRequested`) that lands while an event is drawn is thrown into the
generator the same way, so the session keeps what it cut, and then goes on ending.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator

from agent_cli.errors import TerminationRequested
from agent_cli.events import SessionEvent, TurnEnded

CANCELLED = TurnEnded(outcome="cancelled")


def drive_events(
    events: Iterator[SessionEvent], render: Callable[[SessionEvent], None]
) -> TurnEnded | None:
    """Render every event of `events`; return the `TurnEnded` it ended with, if any."""
    ended: TurnEnded | None = None
    try:
        for event in events:
            render(event)
            if isinstance(event, TurnEnded):
                ended = event
    except KeyboardInterrupt:
        return _finish_after_interrupt(events, render)
    except TerminationRequested as stop:
        _settle_termination(events, render, stop)
        raise
    return ended


def _settle_termination(
    events: Iterator[SessionEvent], render: Callable[[SessionEvent], None], stop: BaseException
) -> None:
    """A termination signal that landed while an event was drawn, passed on to the
    session (`stop` thrown into `events`), so it keeps what the signal cut (the answer
    so far and its usage, the calls' results) as it does when the signal lands inside
    it; what it yields meanwhile is drawn. The caller then goes on ending."""
    if not isinstance(events, Generator):
        return
    try:
        event = events.throw(stop)
        while True:
            render(event)
            event = next(events)
    except (StopIteration, TerminationRequested):
        pass
    finally:
        events.close()


def _finish_after_interrupt(
    events: Iterator[SessionEvent], render: Callable[[SessionEvent], None]
) -> TurnEnded:
    if not isinstance(events, Generator):
        return CANCELLED
    ended: TurnEnded | None = None
    try:
        event = events.throw(KeyboardInterrupt())
        while True:
            render(event)
            if isinstance(event, TurnEnded):
                ended = event
            event = next(events)
    except StopIteration:
        pass
    except KeyboardInterrupt:
        # The session did not take the interrupt (or a second Ctrl-C came): give up here.
        events.close()
    return ended or CANCELLED
