"""The streams between the hub and one MCP server's transport, as the SDK's session uses
them, watched for what the session itself would not tell the hub.

Contract: `LiveServer` holds one server's live parts on the hub's loop (its session once
ready, the event that stops it, its task and process group) and what its streams saw.
`WatchedReads(inner, running, lines)` is the read stream the session gets: it marks
`running` `ended` (and sets its `stop`) when the stream ends once the server was ready,
and on a stdio server's stream (`lines`) ends the stream at a broken JSON-RPC message
(`stray_lines`), noting other lines that are not JSON-RPC. Runs on the hub's loop only.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from agent_cli.mcp_servers.stray_lines import read_stray_line


@dataclass
class LiveServer:
    """A server's live parts, on the hub's loop; `group` is its process group
    (a stdio server's, once its launcher wrote it down)."""

    session: Any = None
    stop: asyncio.Event | None = None
    task: asyncio.Task[None] | None = None
    group: int | None = None
    ended: bool = False  # its stream ended once it was ready: it exited or hung up
    broken: str | None = None  # the broken message it wrote (`stray_lines`), which ended it
    stray: str | None = None  # the last other line it wrote that is not JSON-RPC
    strays: int = 0  # how many such lines it wrote


class WatchedReads:
    """A transport's read stream, as the SDK's session reads it, that notices its end
    (the server's process exited, its stdout closed, the HTTP session ended): once the
    server is ready, `running` is marked `ended` and its `stop` set, so a server that is
    gone turns failed at once instead of when a call to it fails. On a stdio server's
    stream (`lines`) a broken JSON-RPC message (`stray_lines`) ends the stream there, so
    the session wakes every waiting call with "Connection closed" at once; other lines
    that are not JSON-RPC pass on to the session, which skips them."""

    def __init__(self, inner: Any, running: LiveServer, lines: bool = False) -> None:
        self._inner = inner
        self._running = running
        self._lines = lines

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def __aenter__(self) -> WatchedReads:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> Any:
        return await self._inner.__aexit__(*exc)

    def __aiter__(self) -> WatchedReads:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def receive(self) -> Any:
        import anyio

        try:
            item = await self._inner.receive()
        except anyio.EndOfStream:
            self._note_end()
            raise
        line = read_stray_line(item) if self._lines and isinstance(item, Exception) else None
        if line is None:
            return item
        if not line.is_broken_message:
            self._running.stray = line.text
            self._running.strays += 1
            return item
        self._running.broken = line.text
        self._note_end()
        raise anyio.EndOfStream

    def _note_end(self) -> None:
        if self._running.session is not None:  # it was ready (else: a start failure)
            self._running.ended = True
            if self._running.stop is not None:
                self._running.stop.set()
