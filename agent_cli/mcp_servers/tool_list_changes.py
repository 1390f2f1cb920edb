"""A server's `notifications/tools/list_changed`, followed by listing its tools again:
merged, paced, and never holding a call's answer for long.

Contract: a `ToolListFollower(relist)` is the SDK's `ClientSession` `message_handler` for
one connection. A tools/list_changed notification (any server may send one; those that
declare `tools.listChanged` say they will) is counted (`heard`) and makes a listing due;
`follow()`, which runs on the hub's loop while the server is connected, awaits `relist`
(the hub's: the same paging, caps and screening as at start; it says whether the offered
tools changed, or raises `ListingFailed`) for each listing due:
- One listing at a time, and every notice heard while one runs or while it waits is
  covered by the next one: a thousand notices cost one listing, never a thousand.
- Paced: a listing starts no sooner than `interval` after the last one ended. The
  interval is `MIN_INTERVAL` after a listing that changed the tools, and doubles (up to
  `MAX_INTERVAL`) after one that changed nothing or failed: a server that says its tools
  changed after every listing (a loop) is listed about once a `MAX_INTERVAL` once it has
  shown it changes nothing, not thousands of times a second.
- `catch_up(since)` serves a call that just got its answer: when notices came after
  `since` (`heard` as the call began: the server said its tools changed during the call,
  before its answer), the listing that covers them starts at once, past the interval, and
  `catch_up` returns once it has ended; the hub waits for that at most `CATCH_UP_SECONDS`
  and then returns the call's answer anyway (the listing lands later, for the request
  after). When the listing under way has already waited longer than that for its answer
  (the server does not answer tools/list), `catch_up` returns at once: one hung listing
  costs one call that bound, not every call.
- `report()` says how it went, for `/mcp` (`states.Relisting`): notices heard, listings
  made, the interval now, why the last listing failed, and how long the one under way
  has waited.

Why the handler only marks: the SDK awaits it on the connection's own tasks, and a
listing awaited there would wait for an answer that the same connection must read.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from agent_cli.mcp_servers.states import Relisting

LIST_CHANGED = "notifications/tools/list_changed"
# How long a call's answer waits for the listing its server asked for during it. A
# local server lists in milliseconds and one over HTTP in a round trip or a few pages,
# so 2 s lets the next request offer the new tools in every usual case; past it, a hung
# or slow listing costs each call no more than that (it was `startup_timeout`, 30 s and
# more, and held a finished call on screen as running).
CATCH_UP_SECONDS = 2.0
# The least time between two listings of one server; doubled after each listing that
# changed nothing, up to the most. A real change (a plugin loaded, a tool added on
# demand) is rarely said twice a second, and a call's catch-up does not wait for it.
MIN_INTERVAL = 1.0
MAX_INTERVAL = 30.0


class ListingFailed(Exception):
    """A listing again got no usable answer; the message says why (for `/mcp`)."""


class ToolListFollower:
    """Lists a server's tools again when it says they changed (module contract)."""

    def __init__(self, relist: Callable[[], Awaitable[bool]]) -> None:
        self._relist = relist
        self._changes = asyncio.Condition()
        self.heard = 0  # notices heard; read by the hub's caller thread too (an int)
        self._covered = 0  # the notices the last listing that ended was asked after
        self._hurried = 0  # the notices a catch-up wants listed past the interval
        self._listings = 0
        self._interval = MIN_INTERVAL
        self._next_at = 0.0  # monotonic time before which no unhurried listing starts
        self._started: float | None = None  # monotonic time the listing under way started
        self._failed = ""

    async def __call__(self, message: Any) -> None:
        """The session's `message_handler`: a notification, or a transport's exception."""
        if getattr(message, "method", None) == LIST_CHANGED:
            async with self._changes:
                self.heard += 1
                self._changes.notify_all()

    async def follow(self) -> None:
        """List again each time a listing is due, paced and merged, until cancelled."""
        while True:
            async with self._changes:
                await self._changes.wait_for(lambda: self.heard > self._covered)
                await self._hold_off()
                asked = self.heard
            await self._list(asked)

    async def catch_up(self, since: int) -> None:
        """Have the notices heard after `since` listed now and wait for that listing
        (module contract); at once when there are none or the listing under way hangs."""
        async with self._changes:
            wanted = self.heard
            if wanted <= since or wanted <= self._covered:
                return
            if self._started is not None and time.monotonic() - self._started > CATCH_UP_SECONDS:
                return
            self._hurried = max(self._hurried, wanted)
            self._changes.notify_all()
            await self._changes.wait_for(lambda: self._covered >= wanted)

    def report(self) -> Relisting:
        """How following this server's notices went so far (module contract)."""
        started = self._started  # set and cleared on the hub's loop: read once
        waiting = 0.0 if started is None else time.monotonic() - started
        return Relisting(self.heard, self._listings, self._interval, self._failed, waiting)

    async def _hold_off(self) -> None:
        """Wait (holding the condition's lock, released while waiting) until the pace
        allows the next listing or a catch-up hurries it."""
        delay = self._next_at - time.monotonic()
        if delay <= 0 or self._hurried > self._covered:
            return
        try:
            async with asyncio.timeout(delay):
                await self._changes.wait_for(lambda: self._hurried > self._covered)
        except TimeoutError:
            pass

    async def _list(self, asked: int) -> None:
        """One listing, covering the notices up to `asked`; the pace set by its outcome."""
        self._started = time.monotonic()
        changed = False
        try:
            changed = await self._relist()
            self._failed = ""
        except ListingFailed as failure:
            self._failed = str(failure)
        finally:
            self._started = None  # also when cancelled: the connection is ending
        self._listings += 1
        self._interval = MIN_INTERVAL if changed else min(2 * self._interval, MAX_INTERVAL)
        self._next_at = time.monotonic() + self._interval
        async with self._changes:
            self._covered = max(self._covered, asked)
            self._changes.notify_all()
