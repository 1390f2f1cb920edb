"""agent-cli's stdio transport to an MCP server: the SDK's `stdio_client`, with a reader of
the server's stdout whose cost is linear in what the server writes.

Why: the SDK's reader joined its whole buffer with each chunk it read, so one long line
(an answer of tens of MB) took time growing with the square of its size (80 MB: over a
minute, the call failing as unanswered; the next call, after a Ctrl-C, waited on it
too), and it parsed every log line a server wrote to stdout (about 100 µs each).

Contract: `open_stdio(command, args, env, cwd, errlog, on_stray, on_outlived, probe,
answer_seconds)` is an
async context manager that starts `command args...` as the leader of a new session (its own process
group), with the SDK's default environment updated by `env`, in `cwd`, its stderr going
to `errlog`, and yields (read stream, write stream) as the SDK's `stdio_client` does:
`SessionMessage`s, or an `Exception` for a line that is no valid message, in; messages
written one a line, out. Its stdout is split by `stdout_lines` (linear). A line that
cannot be a message (`stray_lines.might_be_message`) is given to `on_stray` (its start,
decoded) and never parsed; a line over `over_limit.MESSAGE_LIMIT` is dropped as it
comes, and when it answered a request, that request gets a JSON-RPC error carrying an
`OverLimitAnswer` (the size) the moment the line ends, else it goes to `on_stray`. Only
a message is held whole, one at a time: nothing is read ahead while one waits to be
taken. The read stream ends when stdout does. When the process it started exits
(`process_exit`) while its stdout stays open, the server is asked whether it is still
there (`probe`, an `exit_probe.ExitProbe` the caller made and may read: a `ping`
written to its stdin, whose answer never reaches the session; every request written
and message read is told to it): should it answer (or answer a request written after
the exit) within `answer_seconds()` seconds (asked at the exit;
`exit_probe.ANSWER_SECONDS` unless given; a call in flight, until its answer or its
time is up, and any message the server writes, give it longer), that process was a
launcher that left the server running: the stream goes on and `on_outlived()` is
called, once. Should it not, or should the ping find its stdin closed (a process the
server left running holds its stdout, seldom its stdin), what it wrote is still read
(until end of file, until nothing came for `EXITED_QUIET_SECONDS`, or
`EXITED_READ_SECONDS` at most), then the stream ends, so a call waiting for it fails
then, not at its `timeout`, and a ready server turns failed, as when its stdout ends. On the way out (also when cancelled) it stops the server as
the SDK does: its stdin closed, `EXIT_SECONDS` to exit, then its group sent SIGTERM
and, `EXIT_SECONDS` later, SIGKILL; stdout is drained meanwhile, so a server blocked
writing it can exit.
The `mcp` SDK is imported on first use (on the hub's loop).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from agent_cli.mcp_servers.exit_probe import ANSWER_SECONDS, ExitProbe, ProbeStatus
from agent_cli.mcp_servers.over_limit import MESSAGE_LIMIT, OverLimitAnswer, answered_id
from agent_cli.mcp_servers.process_exit import wait_exited
from agent_cli.mcp_servers.stdout_lines import LineSplitter, OverLimit
from agent_cli.mcp_servers.stray_lines import KEPT_CHARS, might_be_message

if TYPE_CHECKING:
    import anyio
    from anyio.abc import Process
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

EXIT_SECONDS = 2.0  # for the server to exit once its stdin closed, and once sent SIGTERM
FLUSH_SECONDS = 0.5  # for messages already accepted to be written before stdin closes
REAP_SECONDS = 2.0  # for the loop to see a killed server gone
EXITED_QUIET_SECONDS = 0.5  # once it is gone: its stdout read on while bytes come
EXITED_READ_SECONDS = 5.0  # once it is gone: its stdout read on at most this long
_OVER_LIMIT_CODE = -32603  # internal error: the answer was not read

OnStray = Callable[[str], None]
OnOutlived = Callable[[], None]


@contextlib.asynccontextmanager
async def open_stdio(
    command: str,
    args: list[str],
    env: Mapping[str, str],
    cwd: Path | str,
    errlog: TextIO,
    on_stray: OnStray,
    on_outlived: OnOutlived,
    probe: ExitProbe,
    answer_seconds: Callable[[], float] = lambda: ANSWER_SECONDS,
) -> AsyncIterator[tuple[Any, Any]]:
    """The server's (read stream, write stream) while it runs (module contract)."""
    import anyio
    from mcp.client.stdio import get_default_environment
    from mcp.shared.message import SessionMessage

    process = await anyio.open_process(
        [command, *args],
        env=get_default_environment() | dict(env),
        stderr=errlog,
        cwd=cwd,
        start_new_session=True,
    )
    # No await from here into the task group: a cancellation there would leak the server.
    incoming, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, outgoing = anyio.create_memory_object_stream[SessionMessage](0)
    written = anyio.Event()
    stdin = _Stdin(process)
    output = _ServerOutput(process, probe, on_outlived)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(_note_exit, process, output, stdin, answer_seconds)
        tasks.start_soon(_read_stdout, process, output, incoming, on_stray)
        tasks.start_soon(_write_stdin, stdin, output, outgoing, incoming, written)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):  # the server must not outlive this
                read_stream.close()  # the reader drains stdout from now on
                write_stream.close()
                with anyio.move_on_after(FLUSH_SECONDS):
                    await written.wait()
                await _stop(process)
                for stream in (read_stream, write_stream, incoming, outgoing):
                    await stream.aclose()
            tasks.cancel_scope.cancel()


class _Stdin:
    """The server's stdin, written a whole line at a time by the session's writer and by
    the probe (`exit_probe`) alike."""

    def __init__(self, process: Process) -> None:
        import anyio

        assert process.stdin is not None
        self._stream = process.stdin
        self._lock = anyio.Lock()

    async def send(self, line: bytes) -> None:
        async with self._lock:
            await self._stream.send(line)


class _ServerOutput:
    """A server's stdout as the reader takes it: chunk by chunk until its end, or, once
    the process started for it exited and the server did not answer `probe` in time,
    until it is quiet (module contract)."""

    def __init__(self, process: Process, probe: ExitProbe, on_outlived: OnOutlived) -> None:
        assert process.stdout is not None
        self._stdout = process.stdout
        self.probe = probe
        self._on_outlived = on_outlived
        self._gone_at: float | None = None  # on the loop's clock: when it was found silent
        self._waiting: anyio.CancelScope | None = None  # the read made while it runs

    def wake(self) -> None:
        """The probe's status changed outside the reader: a read waits by it no longer."""
        if self._waiting is not None:
            self._waiting.cancel()

    def take_answer(self, ident: object) -> bool:
        """The reader read a message answering `ident` (None: answering nothing):
        whether it is the probe's own answer (then the session must not get it); said
        once when it shows the server outlived its launcher (`on_outlived`)."""
        import anyio

        asking = self.probe.status is ProbeStatus.ASKING
        is_ping = self.probe.take(ident, anyio.current_time())
        if asking and self.probe.status is ProbeStatus.ANSWERED:
            self._on_outlived()
        return is_ping

    async def next_chunk(self) -> bytes | None:
        """The next bytes the server wrote; None once its stdout ended, or once the
        process started for it exited, the server did not answer the probe (`settle`),
        and it wrote nothing more within `EXITED_QUIET_SECONDS` (`EXITED_READ_SECONDS`
        in all)."""
        import anyio

        while True:
            now = anyio.current_time()
            self.probe.settle(now)
            if self.probe.status is ProbeStatus.SILENT:
                return await self._drained()
            with anyio.CancelScope(deadline=self.probe.wake_at(now)) as self._waiting:
                return await self._receive()
            self._waiting = None  # the probe changed, or its time came: look again

    async def _drained(self) -> bytes | None:
        """What a server found gone wrote still, until it is quiet (module contract)."""
        import anyio

        now = anyio.current_time()
        if self._gone_at is None:
            self._gone_at = now
        last = self._gone_at + EXITED_READ_SECONDS
        with anyio.CancelScope(deadline=min(last, now + EXITED_QUIET_SECONDS)):
            return await self._receive()
        return None

    async def _receive(self) -> bytes | None:
        import anyio

        try:
            return await self._stdout.receive()
        except anyio.EndOfStream:
            return None


async def _note_exit(
    process: Process, output: _ServerOutput, stdin: _Stdin, answer_seconds: Callable[[], float]
) -> None:
    """When the process started for the server exits (`process_exit`), ask the server
    whether it is still there (`exit_probe`), giving it `answer_seconds()`; a ping that
    cannot be written finds it gone."""
    import anyio

    await wait_exited(process)
    ping = output.probe.exited(anyio.current_time(), answer_seconds())
    output.wake()
    try:
        await stdin.send(ping)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        output.probe.note_unwritten()
        output.wake()


async def _read_stdout(
    process: Process,
    output: _ServerOutput,
    incoming: MemoryObjectSendStream[Any],
    on_stray: OnStray,
) -> None:
    """Hand each message the server writes to the session, in order, until `output`
    ends (then the read stream ends); once the session is gone, drop what comes till the
    pipe is closed (a server blocked writing could not exit)."""
    import anyio

    assert process.stdout is not None
    splitter = LineSplitter(MESSAGE_LIMIT)
    try:
        async with incoming:
            while (chunk := await output.next_chunk()) is not None:
                for line in splitter.feed(chunk):
                    item = _read_line(line, on_stray)
                    if item is None:
                        continue
                    if isinstance(item, Exception) or not output.take_answer(_answer_id(item)):
                        await incoming.send(item)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        pass  # the session is gone (its stream closed), or `_stop` closed the pipe
    finally:
        with (
            anyio.CancelScope(shield=True),
            contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError),
        ):
            async for _ in process.stdout:
                pass


def _read_line(line: bytes | OverLimit, on_stray: OnStray) -> Any:
    """What the session gets for `line`: a message, the parser's error (for `WatchedReads`
    to tell a broken message from a stray line), or None for a line told stray here."""
    if isinstance(line, OverLimit):
        return _over_limit_item(line, on_stray)
    if not might_be_message(line):
        on_stray(_start_of(line))
        return None
    import mcp.types as types
    from mcp.shared.message import SessionMessage

    try:
        text = line.decode("utf-8", errors="replace")
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError as error:  # pydantic's ValidationError is one
        return error


def _over_limit_item(line: OverLimit, on_stray: OnStray) -> Any:
    """The error the request `line` answered gets; None (the line told stray) when it
    answered none that can be named."""
    import mcp.types as types
    from mcp.shared.message import SessionMessage

    ident = answered_id(line)
    if ident is None:
        on_stray(_start_of(line.head))
        return None
    answer = OverLimitAnswer(line.size, MESSAGE_LIMIT)
    said = f"the answer of {line.size} bytes is over the limit of {MESSAGE_LIMIT}"
    error = types.ErrorData(code=_OVER_LIMIT_CODE, message=said, data=answer)
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=ident, error=error))


def _answer_id(item: Any) -> object:
    """The id of the answer `item` is (a JSON-RPC result or error); None for any other."""
    from mcp.types import JSONRPCError, JSONRPCResponse

    message = getattr(item, "message", None)
    if isinstance(message, JSONRPCResponse | JSONRPCError):
        return message.id
    return None


def _start_of(line: bytes) -> str:
    return line[: KEPT_CHARS * 4].decode("utf-8", errors="replace")[:KEPT_CHARS]


async def _write_stdin(
    stdin: _Stdin,
    output: _ServerOutput,
    outgoing: MemoryObjectReceiveStream[Any],
    incoming: MemoryObjectSendStream[Any],
    written: anyio.Event,
) -> None:
    """Write each message the session sends, one a line; should stdin break (the server
    is gone or closed it), end the read stream too, so no call waits on a server that
    cannot hear it. Each request, and each cancelled, is told to the probe (a request in
    flight holds its verdict; an answer to one written after the launched process exited
    shows the server is there)."""
    import anyio

    try:
        async with outgoing:
            async for message in outgoing:
                _note_written(output, message.message, anyio.current_time())
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await stdin.send((data + "\n").encode("utf-8", errors="replace"))
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        await incoming.aclose()
    finally:
        written.set()


def _note_written(output: _ServerOutput, message: Any, now: float) -> None:
    """Tell `output`'s probe of a request written, or of one the session cancelled (then
    a read waiting on its hold is woken)."""
    method = getattr(message, "method", None)
    if method is not None and hasattr(message, "id"):
        output.probe.note_request(message.id, now)
    elif method == "notifications/cancelled":
        params = getattr(message, "params", None)
        if isinstance(params, Mapping) and "requestId" in params:
            output.probe.note_cancelled(params["requestId"])
            output.wake()


async def _stop(process: Process) -> None:
    """Stop the server as the MCP spec asks (module contract); every wait is bounded."""
    import anyio
    from mcp.os.posix.utilities import terminate_posix_process_tree

    assert process.stdin is not None and process.stdout is not None
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    if not await _exited(process, EXIT_SECONDS):
        await terminate_posix_process_tree(process, EXIT_SECONDS)
        await _exited(process, REAP_SECONDS)
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdout.aclose()  # a child left holding the pipe cannot hold the reader
    _close_pipes(process)


async def _exited(process: Process, seconds: float) -> bool:
    """Whether the server exited within `seconds`. Not `process.wait()`: it also waits for
    its pipes' end, which a child the server left running may hold open."""
    import anyio

    with anyio.move_on_after(seconds):
        while process.returncode is None:
            await anyio.sleep(0.01)
    return process.returncode is not None


def _close_pipes(process: Process) -> None:
    """Close asyncio's transport of the server's pipes, which would otherwise stay open
    while a child it left holds one (and warn when collected)."""
    transport = getattr(getattr(process, "_process", None), "_transport", None)
    close = getattr(transport, "close", None)
    if callable(close):
        with contextlib.suppress(PermissionError):
            close()
