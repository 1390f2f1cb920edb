"""A server's `notifications/tools/list_changed`, followed by listing its tools again.

Contract: a `ToolListFollower(relist)` is the SDK's `ClientSession` `message_handler` for
one connection. A tools/list_changed notification (any server may send one; those that
declare `tools.listChanged` say they will) makes a listing due and wakes `follow()`, which
runs on the hub's loop while the server is connected and awaits `relist` (the hub's: the
same paging, caps and screening as at start) for each listing due. `catch_up()` runs a
listing due now, or waits for the one under way: the hub calls it once a tool call has
its answer, so a call during which the server changed its tools (it sends the
notification before that answer) goes back to the model with the new list in place for
the next request. One listing at a time; notifications that arrive while one runs make
another due, so the last change is never missed, and several that arrive before a
listing starts cost one listing. Every other message is left to the SDK.

Why the handler only marks: the SDK awaits it on the connection's own tasks, and a
listing awaited there would wait for an answer that the same connection must read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

LIST_CHANGED = "notifications/tools/list_changed"


class ToolListFollower:
    """Lists a server's tools again when it says they changed (module contract)."""

    def __init__(self, relist: Callable[[], Awaitable[None]]) -> None:
        self._relist = relist
        self._due = False
        self._wake = asyncio.Event()
        self._listing = asyncio.Lock()

    async def __call__(self, message: Any) -> None:
        """The session's `message_handler`: a notification, or a transport's exception."""
        if getattr(message, "method", None) == LIST_CHANGED:
            self._due = True
            self._wake.set()

    async def follow(self) -> None:
        """List again each time a listing is due, until cancelled."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            await self.catch_up()

    async def catch_up(self) -> None:
        """Run the listing due, if any, or wait for the one under way to end."""
        async with self._listing:
            if not self._due:
                return
            self._due = False
            await self._relist()
