"""The streams between the hub and one MCP server's transport, as the SDK's session uses
them, watched for what the session itself would not tell the hub.

Contract: `LiveServer` holds one server's live parts on the hub's loop (its session once
ready, the event that stops it, its task and process group) and what its streams saw.
`WatchedReads(inner, running, lines)` is the read stream the session gets: it marks
`running` `ended` (and sets its `stop`) when the stream ends once the server was ready,
on a stdio server's stream (`lines`) ends the stream at a broken JSON-RPC message
(`stray_lines`), noting other lines that are not JSON-RPC, and screens each answer to
`tools/list` (`tool_listing`), so one tool the SDK cannot take costs that tool alone.
`WatchedWrites(inner, running)` is the write stream it gets: it notes which requests
list tools. Runs on the hub's loop only; the SDK is imported there, on first use.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Self

from agent_cli.mcp_servers.offered_tools import ListedTool
from agent_cli.mcp_servers.stray_lines import read_deep_line, read_stray_line
from agent_cli.mcp_servers.tool_listing import screen_listing

if TYPE_CHECKING:
    from agent_cli.mcp_servers.exit_probe import ExitProbe
    from agent_cli.mcp_servers.stderr_tail import StderrTail


@dataclass
class LiveServer:
    """A server's live parts, on the hub's loop; `group` is its process group
    (a stdio server's, once its launcher wrote it down)."""

    session: Any = None
    stop: asyncio.Event | None = None
    task: asyncio.Task[None] | None = None
    group: int | None = None
    errlog: StderrTail | None = None  # the kept tail of its stderr (a stdio server's)
    probe: ExitProbe | None = None  # whether it answers once its launched process exited
    version: str | None = None  # the protocol version its handshake settled on
    ended: bool = False  # its stream ended once it was ready: it exited or hung up
    broken: str | None = None  # the broken message it wrote (`stray_lines`), which ended it
    too_deep: bool = False  # that message was nested too deep to read
    stray: str | None = None  # the last other line it wrote that is not JSON-RPC
    strays: int = 0  # how many such lines it wrote
    listings: set[Any] = field(default_factory=set)  # ids of tools/list requests unanswered
    refused: list[ListedTool] = field(default_factory=list)  # tools screened out of listings

    def note_stray(self, text: str) -> None:
        """Note a line it wrote that is no JSON-RPC message and was skipped (`text`: its
        start), to quote should a call then get no answer."""
        self.stray = text
        self.strays += 1


class _WatchedStream:
    """A stream of the SDK's that this one stands in for: whatever it is not asked to do
    itself goes to `inner`, entered and left with it."""

    def __init__(self, inner: Any, running: LiveServer) -> None:
        self._inner = inner
        self._running = running

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def __aenter__(self) -> Self:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> Any:
        return await self._inner.__aexit__(*exc)


class WatchedReads(_WatchedStream):
    """A transport's read stream, as the SDK's session reads it, that notices its end
    (the server's process exited, its stdout closed, the HTTP session ended): once the
    server is ready, `running` is marked `ended` and its `stop` set, so a server that is
    gone turns failed at once instead of when a call to it fails. On a stdio server's
    stream (`lines`) a broken JSON-RPC message (`stray_lines`) ends the stream there, so
    the session wakes every waiting call with "Connection closed" at once; other lines
    that are not JSON-RPC pass on to the session, which skips them (those that cannot be
    a message at all never get here: the transport notes them, `LiveServer.note_stray`,
    unparsed). Every answer to a
    `tools/list` request (`WatchedWrites` notes their ids) is screened (`tool_listing`):
    the tools taken out go to `running.refused`. A line the SDK's JSON parser gave up on
    as nested too deep is read again with Python's, which goes deeper: an answer to a
    `tools/list` request passes on (screened), any other ends the stream as a broken
    message `too_deep`."""

    def __init__(self, inner: Any, running: LiveServer, lines: bool = False) -> None:
        super().__init__(inner, running)
        self._lines = lines

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
        if not isinstance(item, Exception):
            return self._screened(item)
        line = read_stray_line(item) if self._lines else None
        if line is None:
            return item
        deep = read_deep_line(item)
        listing = self._read_listing(deep) if deep is not None else None
        if listing is not None:
            return self._screened(listing)
        if not line.is_broken_message:
            self._running.note_stray(line.text)
            return item
        self._running.broken = line.text
        self._running.too_deep = deep is not None
        self._note_end()
        raise anyio.EndOfStream

    def _screened(self, item: Any) -> Any:
        """`item`, or when it answers a `tools/list` request, that answer screened."""
        from mcp.shared.message import SessionMessage
        from mcp.types import JSONRPCError, JSONRPCResponse

        message = getattr(item, "message", None)  # (a server's own request may reuse an id)
        if not isinstance(message, JSONRPCResponse | JSONRPCError):
            return item
        if message.id not in self._running.listings:
            return item
        self._running.listings.discard(message.id)
        if not isinstance(message, JSONRPCResponse):
            return item
        result, taken = screen_listing(message.result, self._running.version)
        if not taken:
            return item
        self._running.refused.extend(taken)
        screened = message.model_copy(update={"result": dict(result)})
        return SessionMessage(screened, metadata=getattr(item, "metadata", None))

    def _read_listing(self, text: str) -> Any:
        """The message `text` holds, read by Python's JSON parser, when it answers a
        `tools/list` request; None for anything else."""
        from mcp.shared.message import SessionMessage
        from mcp.types import JSONRPCResponse, jsonrpc_message_adapter

        try:
            message = jsonrpc_message_adapter.validate_python(json.loads(text), by_name=False)
        except (ValueError, RecursionError):  # a pydantic ValidationError is a ValueError
            return None
        if isinstance(message, JSONRPCResponse) and message.id in self._running.listings:
            return SessionMessage(message)
        return None

    def _note_end(self) -> None:
        if self._running.session is not None:  # it was ready (else: a start failure)
            self._running.ended = True
            if self._running.stop is not None:
                self._running.stop.set()


class WatchedWrites(_WatchedStream):
    """A transport's write stream, as the SDK's session writes it, that notes the id of
    each `tools/list` request in `running.listings`, so `WatchedReads` knows its answer."""

    async def send(self, item: Any) -> None:
        message = getattr(item, "message", None)
        if getattr(message, "method", None) == "tools/list":
            self._running.listings.add(getattr(message, "id", None))
        await self._inner.send(item)
