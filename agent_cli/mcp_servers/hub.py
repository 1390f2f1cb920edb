"""The connections to a session's MCP servers, run on one background event loop.

Contract:
- `McpHub(servers, cwd, secrets)` holds one `ServerState` per configured server: `disabled`
  (enabled = false), else `starting` until `start()` has connected it and listed its
  tools (`ready`, with the tools it offers and those it skips), or `failed` with a reason
  a person can act on: the command was not found, it exited (with the last lines of its
  stderr), it did not answer within its `startup_timeout` (named, with its config key:
  said at once, not once its process is ended), or its connection broke (a call it died
  in: with its last stderr lines too). Reasons are facts without advice: how to start it
  again depends on where they are read. A ready server whose connection ends (its
  process exited) turns failed at once, its tools no longer offered. The exit of the
  process agent-cli started for a stdio server is not that end while its stdout stays
  open: the server is asked whether it is there (`stdio_transport`, `exit_probe`), and
  one that answers stays (starting or ready) with `launcher_exited` in its state (a
  launcher that forked it and left); one that does not fails as above, seconds later,
  its reason saying the ping went unanswered; but while a call to it is in flight, the
  call's answer (any message it writes gives the ping more time) or its `timeout`
  decides: a server busy with a long call may answer nothing else till it is done.
  A tool the SDK cannot take (a schema of type string, one nested past its parser) is
  screened out of the listing before the SDK reads it (`watched_streams`,
  `tool_listing`) and skipped with its reason: it costs that tool, not the server.
- `start()` returns at once: the `mcp` SDK is imported and servers are started on the
  hub's own thread (its own asyncio loop), so a session with servers configured shows
  its prompt as fast as one without. `wait_for_start(limit)` blocks until no server is
  starting, or each one still starting is past its own `startup_timeout`, counted from
  its handshake's start (and `SETTLE_SECONDS`, for its failure to be noted), or, for one
  whose handshake has not begun, past `limit` seconds; it returns the names still
  starting. So the first request reads a server's timeout with its reason, however long
  the SDK took to import on a busy machine.
- `call(server, tool, arguments)` runs one tool call and always returns a
  `CallOutcome`: the content items and the server's own error flag, or `failure` (the
  server is not ready, it answered with a JSON-RPC error, the call outlived the server's
  `timeout`, its connection broke, it wrote a broken message); a call that times out or
  whose server dies also marks the server failed and stops it; an error answer (any code,
  -32602 invalid params included) leaves it ready.
  Only KeyboardInterrupt and TerminationRequested propagate (the call is cancelled
  first, also when it came as the call was handed to the hub's loop: it held the old
  call running to its timeout, which then stopped the server under the next call). A Ctrl-C that comes once the server has
  answered (while its new tool list is awaited, below) loses nothing: it is raised as a
  `CallInterrupted` carrying that answer. A termination signal (SIGTERM, SIGHUP, SIGQUIT)
  is met the same way, also as the call is handed over: the call cancelled and
  `TerminationRequested` raised on, or, once the server answered, `CallTerminated`
  carrying the answer.
- A stdio server that writes a broken JSON-RPC message to its stdout (`stray_lines`: a
  line that begins with `{`, names `"jsonrpc"` and is not JSON, or JSON naming
  `jsonrpc` that is no valid message) is stopped and marked failed at once, whenever it
  does: a call waiting for it ends then, not at its timeout, saying so and quoting the
  line's start (redacted, controls written out); a start fails then. (A line that is
  JSON nested too deep to read is said to be that, not invalid.) Its other stray
  lines (a banner, a log line) are skipped, as the SDK does; one written during a call
  that then gets no answer is quoted in the timeout's reason. Its stdout is read in time
  linear in its size (`stdio_transport`); an answer over `over_limit.MESSAGE_LIMIT` is
  dropped unread and its call fails at once saying how big it was (the server stays
  ready).
- `restart(name)` stops a server and starts it again; `close()` stops every server,
  ending each process with its whole process group (`stdio_transport` starts each in a
  new session and kills the group on the way out), waiting at most `CLOSE_SECONDS`. Should agent-cli
  die without closing (SIGKILL), each stdio server's supervisor sees the `lifeline` end
  and kills its group: nothing a server started outlives agent-cli.
- A ready server that says its tools changed (`notifications/tools/list_changed`) has
  them listed again, with the same paging, caps and screening as at its start
  (`tool_list_changes`: notices merged, listings paced, backing off while they change
  nothing); a change said during a call is listed before `call` returns, so the next
  request offers the new list, but `call` waits for that listing at most
  `CATCH_UP_SECONDS` past the server's answer (then it lands later). Its state's
  `relisted` counts the listings that landed and `relisting` (read in `states()`) how the
  notices were followed; a listing that fails (no answer within its `startup_timeout`,
  an error answer) leaves the tools as they were, its reason in `relisting.failed`.
- `version` grows whenever the set of offered tools changes (and only then: the tools
  lead the request's cached prefix), so a toolbox knows when to rebuild its tool list. Thread-safe: states are read and written under one lock.
- Nothing a server says reaches a state or a failure with a secret agent-cli keeps in
  it (`secrets`, the toolbox's forms): its tools are offered redacted (`offer_tools`),
  and its stderr, its error messages and every reason are redacted before they are cut
  (`failures`: a cut first could split a secret, which then would not be recognised).
  `use_secrets` swaps in a grown set (a secret learned mid-session) for what follows,
  and offers each ready server's tools again from the listing its state keeps.
- A stdio server's stderr goes to a pipe of which only the last `TAIL_BYTES` are kept
  (`stderr_tail`): a server writing without end costs neither memory nor disk.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import IO, Any, TextIO, cast

from agent_cli.errors import TerminationRequested
from agent_cli.mcp_servers.exit_probe import ANSWER_SECONDS, ExitProbe
from agent_cli.mcp_servers.failures import (
    describe_broken_message,
    describe_end,
    describe_exception,
    describe_start_failure,
    describe_stderr,
    describe_stray_line,
    describe_unanswered,
    error_answer,
    is_broken_connection,
    is_too_deep_to_send,
    one_line,
    stderr_lines,
)
from agent_cli.mcp_servers.lifeline import Lifeline
from agent_cli.mcp_servers.offered_tools import OfferedTool, Skipped, offer_tools
from agent_cli.mcp_servers.over_limit import describe_over_limit, read_over_limit
from agent_cli.mcp_servers.paged_listing import MAX_LISTED_TOOLS, Listing, list_all_tools
from agent_cli.mcp_servers.settings import McpServerSettings
from agent_cli.mcp_servers.states import (
    DISABLED,
    FAILED,
    READY,
    STARTING,
    CallInterrupted,
    CallOutcome,
    CallTerminated,
    ServerState,
    describe_not_offered,
)
from agent_cli.mcp_servers.stderr_tail import StderrTail
from agent_cli.mcp_servers.stdio_transport import open_stdio
from agent_cli.mcp_servers.stray_lines import quote_line
from agent_cli.mcp_servers.tool_list_changes import (
    CATCH_UP_SECONDS,
    ListingFailed,
    ToolListFollower,
)
from agent_cli.mcp_servers.watched_streams import LiveServer, WatchedReads, WatchedWrites
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.termination import interrupt_held, termination_held

STOP_SECONDS = 3.5  # the transport asks a server's group to end, then kills it 2 s later
CLOSE_SECONDS = STOP_SECONDS + 1.5
TAIL_WAIT_SECONDS = 1.0  # for a dead server's last stderr bytes still in the pipe
SETTLE_SECONDS = 1.0  # past a handshake's deadline, for its failure to be noted
LAUNCHER = Path(__file__).with_name("launcher.py")


class McpHub:
    """The MCP servers of one session (module contract)."""

    def __init__(
        self,
        servers: Sequence[McpServerSettings],
        cwd: Path,
        secrets: SecretForms = NO_SECRETS,
    ) -> None:
        self._settings = {server.name: server for server in servers}
        self._cwd = cwd
        self._secrets = secrets
        self._lock = threading.Condition()
        self._states = {
            server.name: ServerState(server.name, STARTING if server.enabled else DISABLED)
            for server in servers
        }
        self._running: dict[str, LiveServer] = {}
        self._deadlines: dict[str, float] = {}  # when each handshake under way times out
        self._followers: dict[str, ToolListFollower] = {}  # of each connection, by server
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lifeline: Lifeline | None = None
        self._closed = False
        self.version = 0

    # --- reading the states ------------------------------------------------------------

    def use_secrets(self, secrets: SecretForms) -> None:
        """Redact `secrets` from what the servers say from now on (a grown set: a secret
        learned mid-session), and offer every ready server's tools again from what it
        listed, by the same rules (`offer_tools`): what rides in every request holds none
        of them, and a tool whose name holds one is no longer offered. Reasons already
        given stay as they were."""
        with self._lock:  # `_set_ready` reads the secrets under it
            self._secrets = secrets
            for name, state in list(self._states.items()):
                if state.status == READY and state.listing is not None:
                    self._set_ready(name, state.listing, state.relisted)

    def states(self) -> list[ServerState]:
        """Every server's state, sorted by name; a ready one's with how its notices that
        its tools changed were followed (`tool_list_changes`), as they stand now."""
        with self._lock:
            states = [self._states[name] for name in sorted(self._states)]
        return [self._with_relisting(state) for state in states]

    def _with_relisting(self, state: ServerState) -> ServerState:
        follower = self._followers.get(state.name)
        if state.status != READY or follower is None:
            return state
        return replace(state, relisting=follower.report())

    def offered_tools(self) -> list[OfferedTool]:
        """Every ready server's offered tools, sorted by their offered names."""
        with self._lock:
            tools = [tool for state in self._states.values() for tool in state.tools]
        return sorted(tools, key=lambda tool: tool.name)

    def not_offered(self, name: str) -> str | None:
        """Why `name` is not offered, when a ready server explains it (`states` module)."""
        return describe_not_offered(name, self.states())

    def wait_for_start(self, limit: float) -> list[str]:
        """Block until no server is starting or each is past its handshake's deadline (or
        `limit` seconds, before its handshake began); the names still starting."""
        fallback = time.monotonic() + limit
        with self._lock:
            while True:
                starting = sorted(n for n, s in self._states.items() if s.status == STARTING)
                ends = [
                    self._deadlines[n] + SETTLE_SECONDS if n in self._deadlines else fallback
                    for n in starting
                ]
                left = max(ends, default=0.0) - time.monotonic()
                if not starting or left <= 0 or self._thread is None:
                    return starting
                self._lock.wait(left)

    # --- life cycle ----------------------------------------------------------------------

    def start(self) -> None:
        """Start every enabled server in the background (module contract)."""
        if self._thread is not None or self._closed:
            return
        if not any(state.status == STARTING for state in self._states.values()):
            return
        if not self._open_lifeline() and not any(
            state.status == STARTING for state in self._states.values()
        ):
            return
        ready = threading.Event()
        self._thread = threading.Thread(
            target=self._run_loop, args=(ready,), name="mcp-servers", daemon=True
        )
        self._thread.start()
        ready.wait()

    def restart(self, name: str) -> None:
        """Stop server `name` (if running) and start it again."""
        if name not in self._settings or self._closed:
            return
        if self._thread is None:
            self._set_state(name, ServerState(name, STARTING))
            self.start()
            return
        if self._settings[name].command is not None and not self._open_lifeline():
            return
        limit = CLOSE_SECONDS + self._settings[name].startup_timeout
        self._submit(self._restart(name)).result(limit)

    def _open_lifeline(self) -> bool:
        """Have the lifeline open; when it cannot be made, mark the stdio servers still
        starting failed (`_fail_local_servers`) and say False."""
        if self._lifeline is not None:
            return True
        try:
            self._lifeline = Lifeline.open()
        except OSError as error:  # no private FIFO: a stdio server could outlive agent-cli
            self._fail_local_servers(error)
            return False
        return True

    def close(self) -> None:
        """Stop every server and its processes (module contract); idempotent."""
        if self._closed:
            return
        self._closed = True
        loop = self._loop
        if loop is None or self._thread is None:
            return
        groups = [running.group for running in list(self._running.values())]
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._stop_all(), loop).result(CLOSE_SECONDS)
        for group in groups:  # whatever a stuck loop left running
            end_group(group)
        loop.call_soon_threadsafe(loop.stop)
        self._thread.join(CLOSE_SECONDS)
        if self._lifeline is not None:
            self._lifeline.close()

    # --- calls ---------------------------------------------------------------------------

    def call(self, server: str, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        """Run one tool call (module contract)."""
        settings = self._settings.get(server)
        state = self._state(server)
        if settings is None or state is None or state.status != READY:
            status = state.status if state is not None else "not configured"
            reason = state.reason if state is not None else ""
            return CallOutcome(failure=f"the MCP server {server} is {status}{_because(reason)}")
        follower = self._followers.get(server)
        heard = follower.heard if follower is not None else 0
        future: concurrent.futures.Future[CallOutcome] | None = None
        try:
            # A Ctrl-C or a termination signal as it is handed over cancels it too.
            with interrupt_held() as let_interrupt, termination_held() as let_termination:
                future = self._submit(self._call(server, tool, arguments, settings.timeout))
                let_termination()
                let_interrupt()
                outcome: CallOutcome = future.result(settings.timeout + 2 * CLOSE_SECONDS)
            self._catch_up(follower, heard)
        except concurrent.futures.TimeoutError:
            assert future is not None
            future.cancel()
            return CallOutcome(failure=f"{tool} got no answer from {server} in time")
        except KeyboardInterrupt:
            answered = _answer_of(future)
            if answered is None:
                raise
            raise CallInterrupted(answered) from None
        except TerminationRequested as stop:
            answered = _answer_of(future)
            if answered is None:
                raise
            raise CallTerminated(stop.signal_number, answered) from None
        return outcome

    def _catch_up(self, follower: ToolListFollower | None, heard: int) -> None:
        """Wait at most `CATCH_UP_SECONDS` for the listing of the tools the server said
        changed during the call just made (`heard`: the notices before it), so the next
        request offers the new list; past that it lands later (`tool_list_changes`)."""
        if follower is None:
            return
        future = self._submit(follower.catch_up(heard))
        try:
            future.result(CATCH_UP_SECONDS)
        except concurrent.futures.TimeoutError:  # the listing goes on in the background
            future.cancel()  # (only the waiting ends)
        except BaseException:
            future.cancel()
            raise

    # --- on the hub's loop ---------------------------------------------------------------

    def _run_loop(self, ready: threading.Event) -> None:
        _quiet_sdk_logs()
        loop = asyncio.new_event_loop()
        loop.set_exception_handler(_ignore_loop_noise)
        self._loop = loop
        asyncio.set_event_loop(loop)
        for name, state in self._states.items():
            if state.status == STARTING:
                self._launch(name)
        ready.set()
        try:
            loop.run_forever()
        finally:
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    def _launch(self, name: str) -> None:
        with self._lock:
            self._deadlines.pop(name, None)  # a restart's handshake has not begun
        running = LiveServer(stop=asyncio.Event())
        self._running[name] = running
        running.task = asyncio.get_event_loop().create_task(self._serve(name, running))

    async def _serve(self, name: str, running: LiveServer) -> None:
        settings = self._settings[name]
        errlog = StderrTail()  # a bounded tail, not a file: a server may write without end
        running.errlog = errlog
        with tempfile.NamedTemporaryFile("r", encoding="ascii", suffix=".pid") as pid_file:
            try:
                await self._connect_and_wait(settings, running, errlog.writer, Path(pid_file.name))
            except asyncio.CancelledError:
                raise
            except BaseException as error:  # noqa: BLE001  the SDK raises groups and more
                if self._state_status(name) != FAILED:
                    written = await asyncio.to_thread(errlog.text, TAIL_WAIT_SECONDS)
                    stderr = stderr_lines(written, self._secrets)
                    if running.broken is not None and running.ended:  # ready, then broken
                        reason = self._describe_broken(running, "")
                    elif running.broken is not None:
                        reason = self._describe_broken(running, "during the MCP handshake")
                    elif (unanswered := _unanswered_for(running)) is not None:
                        during = "" if running.ended else "during the MCP handshake"
                        reason = describe_unanswered(unanswered, during, stderr)
                    elif running.ended:
                        reason = describe_end(settings, stderr)
                    else:
                        reason = describe_start_failure(error, settings, stderr, self._secrets)
                    if self._state_status(name) != FAILED:  # a failed call may have said it
                        self._fail(name, reason)
            finally:
                running.session = None
                errlog.close()
                end_group(running.group or _read_group(Path(pid_file.name)))

    async def _connect_and_wait(
        self, settings: McpServerSettings, running: LiveServer, errlog: IO[str], pid_file: Path
    ) -> None:
        import anyio
        from mcp.client.session import ClientSession

        lines = settings.command is not None  # stdio: one message a line
        follower = ToolListFollower(lambda: self._list_again(settings, running))
        self._followers[settings.name] = follower
        async with (
            self._open_transport(settings, running, errlog, pid_file) as streams,
            ClientSession(
                WatchedReads(streams[0], running, lines),
                WatchedWrites(streams[1], running),
                message_handler=follower,
            ) as session,
        ):
            with self._lock:  # `wait_for_start` waits for this deadline, not a guess
                self._deadlines[settings.name] = time.monotonic() + settings.startup_timeout
                self._lock.notify_all()
            try:
                with anyio.fail_after(settings.startup_timeout):
                    initialized = await session.initialize()
                    running.version = getattr(initialized, "protocol_version", None)
                    listing = await list_all_tools(session)
            except TimeoutError:  # said now: ending its process may take seconds more
                self._fail_start(settings, running)
                raise
            # screened out: each with its reason
            listed = listing.tools + running.refused[:MAX_LISTED_TOOLS]
            running.refused = []
            running.session, running.group = session, _read_group(pid_file)
            self._set_ready(settings.name, replace(listing, tools=listed))
            assert running.stop is not None
            async with anyio.create_task_group() as following:
                following.start_soon(follower.follow)
                await running.stop.wait()
                following.cancel_scope.cancel()
            if running.ended:  # not stopped by agent-cli: the server is gone
                raise _ServerEnded

    async def _list_again(self, settings: McpServerSettings, running: LiveServer) -> bool:
        """List the tools of a ready server that said they changed (module contract): the
        same paging, caps and screening as at its start; whether the offered tools
        changed. `ListingFailed` (the tools stay) on no answer within its
        `startup_timeout`, an error answer, or anything else that is no listing."""
        import anyio

        name = settings.name
        session = running.session
        if session is None or self._running.get(name) is not running:
            return False
        running.refused = []
        try:
            with anyio.fail_after(settings.startup_timeout):
                listing = await list_all_tools(session)
        except TimeoutError:
            raise ListingFailed(
                f"no answer to tools/list in {settings.startup_timeout:g} s (startup_timeout)"
            ) from None
        except Exception as error:  # noqa: BLE001  a broken connection ends the server itself
            raise ListingFailed(self._describe_listing_error(error)) from None
        listed = listing.tools + running.refused[:MAX_LISTED_TOOLS]
        running.refused = []
        state = self._state(name)
        if state is None or state.status != READY or self._running.get(name) is not running:
            return False
        self._set_ready(name, replace(listing, tools=listed), state.relisted + 1)
        after = self._state(name)
        return after is not None and after.tools != state.tools

    def _describe_listing_error(self, error: Exception) -> str:
        """Why a listing again raised `error`, redacted, for `/mcp`."""
        answered = error_answer(error)
        if answered is not None:
            return f"it answered tools/list with error {answered[0]}: " + one_line(
                answered[1], self._secrets
            )
        return describe_exception(error, self._secrets)

    def _fail_start(self, settings: McpServerSettings, running: LiveServer) -> None:
        """Mark a server that did not start in time failed at once, with what it wrote to
        stderr so far: the transport then asks it to end and waits seconds before it
        kills it, and the first request waits for the reason no longer than its limit."""
        written = running.errlog.so_far() if running.errlog is not None else ""
        stderr = stderr_lines(written, self._secrets)
        self._fail(settings.name, describe_start_failure(TimeoutError(), settings, stderr))

    async def _call(
        self, server: str, tool: str, arguments: dict[str, Any], timeout: float
    ) -> CallOutcome:
        import anyio

        running = self._running.get(server)
        session = running.session if running is not None else None
        if running is None or session is None:
            return CallOutcome(failure=f"the MCP server {server} is not running")
        strays = running.strays
        try:
            with anyio.fail_after(timeout):
                result = await session.call_tool(tool, arguments)
        except TimeoutError:
            reason = f"a call of {tool} got no answer in {timeout:g} s"
            if running.strays > strays and running.stray is not None:
                reason += describe_stray_line(quote_line(running.stray, self._secrets))
            if running.probe is not None and running.probe.is_overdue(anyio.current_time()):
                written = running.errlog.so_far() if running.errlog is not None else ""
                reason += (
                    "; the process agent-cli started for it had exited and the server did "
                    "not answer a ping either"
                ) + describe_stderr(stderr_lines(written, self._secrets))
            await self._stop_failed(server, reason)
            return CallOutcome(failure=f"{reason}; the server was stopped")
        except Exception as error:  # an error answer, a broken connection, a malformed one
            return await self._call_failed(server, tool, running, error)
        content = getattr(result, "content", None)
        if not isinstance(content, list):
            return CallOutcome(failure=f"{server} answered {tool} without content")
        items = tuple(_dump(item) for item in content)
        structured = getattr(result, "structured_content", None)
        return CallOutcome(items, bool(getattr(result, "is_error", False)), None, structured)

    async def _call_failed(
        self, server: str, tool: str, running: LiveServer, error: Exception
    ) -> CallOutcome:
        """What a call that raised `error` gave: an error answer leaves the server ready;
        a broken message or a broken connection stops it."""
        if is_too_deep_to_send(error):
            return CallOutcome(
                failure=f"the call of {tool} was not sent to {server}: its input is nested "
                "deeper than the MCP SDK can send (about 250 levels)"
            )
        too_long = read_over_limit(error)
        if too_long is not None:
            return CallOutcome(
                failure=f"{server} answered {tool} with {describe_over_limit(too_long)} (the "
                f"server stays ready: ask the tool for less, a narrower query or one page)"
            )
        answered = error_answer(error)
        if answered is not None and running.session is not None:
            said = one_line(answered[1], self._secrets)
            return CallOutcome(failure=f"{server} answered {tool} with error {answered[0]}: {said}")
        if running.broken is not None:  # the broken line ended the connection
            reason = self._describe_broken(running, f"during a call of {tool}")
            await self._stop_failed(server, reason)
            return CallOutcome(
                failure=f"the MCP server {server} was stopped: {reason}{_start_again(server)}"
            )
        unanswered = _unanswered_for(running)
        if unanswered is not None:  # agent-cli ended it: the ping went unanswered
            stderr = await self._last_stderr(running)
            reason = describe_unanswered(unanswered, f"during a call of {tool}", stderr)
            await self._stop_failed(server, reason)
            return CallOutcome(
                failure=f"the MCP server {server} was stopped: {reason}{_start_again(server)}"
            )
        if is_broken_connection(error) or running.session is None:
            why = describe_exception(error, self._secrets)
            reason = f"its connection broke during a call of {tool} ({why})"
            reason += describe_stderr(await self._last_stderr(running))  # why it died
            await self._stop_failed(server, reason)
            return CallOutcome(
                failure=f"the MCP server {server} stopped: {reason}{_start_again(server)}"
            )
        return CallOutcome(failure=f"{server} answered {tool} with something unreadable")

    async def _last_stderr(self, running: LiveServer) -> str:
        """The last lines of what a stdio server that is gone wrote to stderr, redacted
        (waiting at most `TAIL_WAIT_SECONDS` for the last bytes in the pipe)."""
        if running.errlog is None:
            return ""
        written = await asyncio.to_thread(running.errlog.text, TAIL_WAIT_SECONDS)
        return stderr_lines(written, self._secrets)

    def _describe_broken(self, running: LiveServer, during: str) -> str:
        """Why `running` was stopped by the broken message it wrote `during` a call or the
        handshake ("": between calls)."""
        quoted = quote_line(running.broken or "", self._secrets)
        return describe_broken_message(quoted, during, too_deep=running.too_deep)

    async def _stop_failed(self, name: str, reason: str) -> None:
        self._fail(name, reason, in_call=True)
        await self._stop(name)

    async def _stop(self, name: str) -> None:
        running = self._running.pop(name, None)
        if running is None or running.task is None:
            return
        assert running.stop is not None
        running.stop.set()  # the transport's own exit ends the process group, politely
        polite = STOP_SECONDS if running.session is not None else 0.0  # still starting: now
        with contextlib.suppress(Exception, asyncio.CancelledError):  # first, then by force
            await asyncio.wait_for(asyncio.shield(running.task), polite)
        if not running.task.done():
            running.task.cancel()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(running.task, 1.0)

    async def _stop_all(self) -> None:
        await asyncio.gather(*(self._stop(name) for name in list(self._running)))

    async def _restart(self, name: str) -> None:
        await self._stop(name)
        if self._settings[name].enabled:
            self._set_state(name, ServerState(name, STARTING))
            self._launch(name)

    def _open_transport(
        self, settings: McpServerSettings, running: LiveServer, errlog: IO[str], pid_file: Path
    ) -> Any:
        """The transport for `settings`: a stdio process (started through `launcher`,
        under the lifeline; `stdio_transport`, its stray lines noted in `running`), or the
        SDK's streamable HTTP."""
        if settings.command is None:
            return _open_http_transport(settings)
        assert self._lifeline is not None
        running.probe = ExitProbe(settings.timeout)  # a call's time holds the ping's verdict
        passed = ["1" if "LC_CTYPE" in settings.env else "0", settings.command, *settings.args]
        return open_stdio(
            sys.executable,
            ["-I", "-S", str(LAUNCHER), str(pid_file), str(self._lifeline.path)]
            + [str(os.getpid()), *passed],
            settings.env,
            settings.cwd or str(self._cwd),
            cast(TextIO, errlog),
            running.note_stray,
            lambda: self._note_outlived(settings.name, running),
            running.probe,
            lambda: self._answer_seconds(settings),
        )

    def _answer_seconds(self, settings: McpServerSettings) -> float:
        """How long a server whose launcher exited has to answer the transport's ping:
        `ANSWER_SECONDS`, or, while it is still starting, what is left of its
        `startup_timeout` (a server the launcher forked may still be coming up)."""
        with self._lock:
            state = self._states.get(settings.name)
            if state is None or state.status != STARTING:
                return ANSWER_SECONDS
            deadline = self._deadlines.get(settings.name)
        left = settings.startup_timeout if deadline is None else deadline - time.monotonic()
        return max(ANSWER_SECONDS, left)

    # --- state ---------------------------------------------------------------------------

    def _submit(self, coroutine: Any) -> concurrent.futures.Future[Any]:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    def _state(self, name: str) -> ServerState | None:
        with self._lock:
            return self._states.get(name)

    def _state_status(self, name: str) -> str:
        state = self._state(name)
        return state.status if state is not None else ""

    def _set_state(self, name: str, state: ServerState) -> None:
        with self._lock:
            before = self._states.get(name)
            self._states[name] = state
            if before is None or before.tools != state.tools:
                self.version += 1
            self._lock.notify_all()

    def _set_ready(self, name: str, listing: Listing, relisted: int = 0) -> None:
        """Mark `name` ready with the tools of `listing` it can offer (`offer_tools`, with
        the secrets in force: read under the lock, which `use_secrets` holds while it
        swaps them, so no offer made with fewer lands after it), but those whose offered
        names another server already offers (`mcp__a__b__esc` is tool `b__esc` of `a` and
        tool `esc` of `a__b`): two tools of one name make the API refuse every request, so
        the later one is skipped, with the reason. The listing (kept, so the offer can be
        made again), what it left out past the cap, and why it was cut short, go with
        the state."""
        with self._lock:
            before = self._states.get(name)  # (a restart starts from a fresh state)
            outlived = before is not None and before.status in (STARTING, READY)
            outlived = outlived and before is not None and before.launcher_exited
            offered, skipped = offer_tools(name, listing.tools, self._secrets)
            taken = {
                tool.name: other
                for other, state in self._states.items()
                if other != name
                for tool in state.tools
            }
            kept = [tool for tool in offered if tool.name not in taken]
            clashes = [
                Skipped(
                    name,
                    tool.tool,
                    f"its offered name {tool.name} is already offered by the MCP server "
                    f"{taken[tool.name]}",
                )
                for tool in offered
                if tool.name in taken
            ]
            state = ServerState(
                name,
                READY,
                "",
                tuple(kept),
                (*skipped, *clashes),
                left_out=listing.left_out,
                left_out_count=listing.left_out_count,
                listing_cut=self._secrets.redact(listing.cut_short),
                relisted=relisted,
                listing=listing,
                launcher_exited=outlived,
            )
            self._set_state(name, state)

    def _note_outlived(self, name: str, running: LiveServer) -> None:
        """The process started for `name` exited and the server answered on
        (`exit_probe`): a launcher left it running; its state says so and it stays."""
        with self._lock:
            state = self._states.get(name)
            if self._running.get(name) is not running or state is None:
                return
            if state.status in (STARTING, READY):
                self._set_state(name, replace(state, launcher_exited=True))

    def _fail_local_servers(self, error: OSError) -> None:
        """Mark every stdio server still starting failed: without the lifeline nothing
        would end it when agent-cli is killed, so it is not started (servers over HTTP
        need none and go on)."""
        reason = (
            f"not started: agent-cli could not make the lifeline that ends its servers "
            f"with it in {tempfile.gettempdir()} ({error.strerror or error}); make that "
            f"folder writable (or set TMPDIR) and run /mcp restart"
        )
        for name, settings in self._settings.items():
            state = self._state(name)
            if settings.command is not None and state is not None and state.status == STARTING:
                self._fail(name, reason)

    def _fail(self, name: str, reason: str, in_call: bool = False) -> None:
        reason = self._secrets.redact(reason)  # whatever a server's words it was built of
        state = self._state(name) or ServerState(name, FAILED)
        failed = replace(
            state, status=FAILED, reason=reason, tools=(), failed_in_call=in_call, listing=None
        )
        self._set_state(name, failed)


def _open_http_transport(settings: McpServerSettings) -> Any:
    """The SDK's streamable-HTTP transport for `settings`."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    assert settings.url is not None
    client = httpx2.AsyncClient(headers=dict(settings.headers)) if settings.headers else None
    return streamable_http_client(settings.url, http_client=client)


def end_group(group: int | None) -> None:
    """Kill process group `group` (a stopped server's children, left behind), if any."""
    if group is None or group <= 1 or group == os.getpgrp():
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)


def _read_group(pid_file: Path) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        return int(pid_file.read_text(encoding="ascii").strip())
    return None


def _unanswered_for(running: LiveServer) -> float | None:
    """How long `running` was asked with a ping it never answered, when agent-cli ended
    it for that (`exit_probe`); None otherwise."""
    return running.probe.unanswered_for if running.probe is not None else None


class _ServerEnded(Exception):
    """A ready server's connection ended without agent-cli stopping it."""


def _quiet_sdk_logs() -> None:
    """Keep the SDK's log records (a server's garbage line, with its traceback) off the
    user's terminal: what they mean reaches the user as a state or an error result."""
    import logging

    for name in ("mcp", "httpx", "httpx2"):
        logger = logging.getLogger(name)
        logger.addHandler(logging.NullHandler())
        logger.propagate = False


def _ignore_loop_noise(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """What the loop would print about a server's transport it could not close politely
    (a crashed server's): the state already says what happened, the terminal is the
    user's."""


def _answer_of(future: concurrent.futures.Future[CallOutcome] | None) -> CallOutcome | None:
    """The call's answer when Ctrl-C or a termination signal came once it was there
    (then it is kept); else None, the call cancelled. A future that can no longer be
    cancelled is being given its answer on the hub's loop that very moment."""
    if future is None or future.cancel():
        return None
    try:
        return future.result(CLOSE_SECONDS)
    except Exception:  # noqa: BLE001  no answer after all: the Ctrl-C ends the call
        return None


def _start_again(server: str) -> str:
    """How the user gets a stopped server back, for the model: words true in a session
    at the prompt and in `-p` alike."""
    return (
        f"; the user can start it again (/mcp restart {server} at agent-cli's prompt, or a "
        "new run of agent-cli)"
    )


def _because(reason: str) -> str:
    return f": {reason}" if reason else ""


def _dump(item: Any) -> dict[str, Any]:
    dumped = item.model_dump(by_alias=True, mode="json") if hasattr(item, "model_dump") else item
    return dumped if isinstance(dumped, dict) else {"type": "unknown"}
