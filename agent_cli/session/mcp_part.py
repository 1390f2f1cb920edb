"""The session's MCP servers: started when the REPL is ready, waited for before a
request, reported once when they fail, listed with what their tool schemas cost.

Contract: `McpPart(servers, cwd, counter, secrets)` holds the session's servers; nothing
of the hub (asyncio) or the SDK is imported until `start()` creates and starts the hub,
so a session opens as fast with servers configured as without. Until then every enabled
server reads as starting and no tool is offered. It is the toolbox's `McpTools`:
`version`, `offered_tools()`, `not_offered()`, `call()`. `before_request()` yields,
before a turn's request: a `mcp_waiting` notice naming the servers still starting (then
waits for them, each at most its `startup_timeout` from its handshake's start:
`McpHub.wait_for_start`), a `mcp_still_starting` notice for those that did not make it,
and one `mcp_failed` notice per server that failed since the last call (each failure is
reported once; a restart that fails again is reported again; a server that failed during
a tool call is not: that call's error result said why, so a crash costs one error line),
one `mcp_launcher_exited` notice per server whose launched process exited while the
server answered on (a launcher that forked it and left: `hub` module contract; said
once for each start of it, here or after a `call()`, like a tool change below), and one
`mcp_tools_changed` notice per server whose tools changed when they were listed again
(it said they changed: `hub` module contract), counting the tools added, removed and
changed since it was last said (none when a listing found the same tools). A change
found once a `call()` has returned (the server said it during that call) goes to the
`say` given to `say_tool_changes_with` at once (the session's, which says it after the
call's result), not at the next turn; each change is said once either way.
`servers()` lists every server with its state, its offered tools, the tokens their
schemas add to every request and how its notices that its tools changed were followed
(`McpServerView`). A call the user stopped with Ctrl-C once its server answered raises
`CallInterrupted` with that answer (`hub` module contract); its tool changes are said
before the next request. `restart(name)` restarts one; False when
no server has that name. `close()` stops them all. `secrets` (the toolbox's forms) go to
the hub, which redacts them from everything a server says (`hub` module contract);
`use_secrets` hands both a grown set (a secret learned mid-session) and returns an
`mcp_tools_withdrawn` notice per server that no longer offers a tool whose name holds one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_cli.events import Notice
from agent_cli.mcp_servers.offered_tools import OfferedTool
from agent_cli.mcp_servers.settings import McpServerSettings
from agent_cli.mcp_servers.states import (
    DISABLED,
    FAILED,
    READY,
    STARTING,
    CallOutcome,
    Relisting,
    ServerState,
    count_tool_changes,
    describe_not_offered,
)
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.tokens import TokenCounter

if TYPE_CHECKING:
    from agent_cli.mcp_servers.hub import McpHub


@dataclass(frozen=True)
class McpServerView:
    """One server as `/mcp` shows it."""

    name: str
    status: str  # starting, ready, failed, disabled
    reason: str
    tools: tuple[str, ...]  # the tools' own names, sorted
    skipped: tuple[tuple[str, str], ...]  # (tool, why) for each tool not offered
    schema_tokens: int  # what its offered tools' definitions add to every request
    left_out: int = 0  # tools it listed past the most agent-cli offers of one server
    listing_cut: str = ""  # why its listing was cut short (a pagination loop), if it was
    relisting: Relisting = Relisting()  # how its notices that its tools changed were followed
    launcher_exited: bool = False  # the process started for it exited; it answers on
    # (tool, ((server's name, offered name), ...)) for each tool whose top-level property
    # names the Messages API refuses were renamed (`property_names`), sorted by tool
    renamed: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()


class McpPart:
    """The session's MCP servers (module contract)."""

    def __init__(
        self,
        servers: Sequence[McpServerSettings],
        cwd: Path,
        counter: TokenCounter,
        secrets: SecretForms = NO_SECRETS,
    ) -> None:
        self._settings = tuple(servers)
        self._cwd = cwd
        self._counter = counter
        self._secrets = secrets
        self._hub: McpHub | None = None
        self._reported: dict[str, str] = {}  # server -> the failure reason reported
        self._outlived_said: set[str] = set()  # servers whose launcher's exit was said
        # server -> (its state's `relisted`, its tools) as the last request saw them
        self._seen_tools: dict[str, tuple[int, tuple[OfferedTool, ...]]] = {}
        self._say: Callable[[Notice], None] | None = None

    def start(self) -> None:
        if self._hub is None:
            from agent_cli.mcp_servers.hub import McpHub

            self._hub = McpHub(self._settings, self._cwd, self._secrets)
        self._hub.start()

    # --- McpTools, for the toolbox ---------------------------------------------------------

    @property
    def version(self) -> int:
        return 0 if self._hub is None else self._hub.version

    def offered_tools(self) -> list[OfferedTool]:
        return [] if self._hub is None else self._hub.offered_tools()

    def not_offered(self, name: str) -> str | None:
        return describe_not_offered(name, self._states())

    def call(self, server: str, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        if self._hub is None:
            return CallOutcome(failure=f"the MCP server {server} has not been started")
        outcome = self._hub.call(server, tool, arguments)
        if self._say is not None:
            for state in self._hub.states():
                for notice in (*self._tool_changes(state), *self._launcher_exit(state)):
                    self._say(notice)
        return outcome

    def say_tool_changes_with(self, say: Callable[[Notice], None]) -> None:
        """Hand the tool changes a call brings to `say` from now on (module contract)."""
        self._say = say

    # --- the session's ------------------------------------------------------------------

    def before_request(self) -> Iterator[Notice]:
        if self._hub is None:
            return
        starting = [s.name for s in self._hub.states() if s.status == STARTING]
        if starting:
            limits = {server.name: server.startup_timeout for server in self._settings}
            limit = max(limits[name] for name in starting)
            yield Notice("info", "mcp_waiting", {"servers": ", ".join(starting), "limit": limit})
            still = self._hub.wait_for_start(limit)
            if still:
                yield Notice("warning", "mcp_still_starting", {"servers": ", ".join(still)})
        for state in self._hub.states():
            yield from self._tool_changes(state)
            yield from self._launcher_exit(state)
            if state.status == FAILED and self._reported.get(state.name) != state.reason:
                self._reported[state.name] = state.reason
                if state.failed_in_call:
                    continue
                yield Notice(
                    "warning", "mcp_failed", {"server": state.name, "reason": state.reason}
                )
            elif state.status != FAILED:
                self._reported.pop(state.name, None)

    def _launcher_exit(self, state: ServerState) -> Iterator[Notice]:
        """The `mcp_launcher_exited` notice, once per start of a ready server whose
        launched process exited while it answered on (module contract)."""
        if not state.launcher_exited:
            self._outlived_said.discard(state.name)  # started again: said again
        elif state.status == READY and state.name not in self._outlived_said:
            self._outlived_said.add(state.name)
            yield Notice("info", "mcp_launcher_exited", {"server": state.name})

    def _tool_changes(self, state: ServerState) -> Iterator[Notice]:
        """The `mcp_tools_changed` notice for a ready server listed again since the last
        request, when what it offers changed (module contract)."""
        if state.status != READY:
            return
        seen = self._seen_tools.get(state.name)
        self._seen_tools[state.name] = (state.relisted, state.tools)
        if seen is None or state.relisted <= seen[0]:  # a (re)start is not a change said
            return
        counts = count_tool_changes(seen[1], state.tools)
        if any(counts.values()):
            yield Notice("info", "mcp_tools_changed", {"server": state.name, **counts})

    def servers(self) -> tuple[McpServerView, ...]:
        return tuple(
            McpServerView(
                state.name,
                state.status,
                state.reason,
                tuple(sorted(tool.tool for tool in state.tools)),
                tuple((skipped.tool, skipped.problem) for skipped in state.skipped),
                sum(self._counter.count_json(dict(tool.definition)) for tool in state.tools),
                state.left_out_count,
                state.listing_cut,
                state.relisting,
                state.launcher_exited,
                tuple(sorted((tool.tool, tool.renamed) for tool in state.tools if tool.renamed)),
            )
            for state in self._states()
        )

    def restart(self, name: str) -> bool:
        """Restart server `name`; False when no enabled server has that name (config.toml
        turns a server off for the whole run)."""
        if name not in {server.name for server in self._settings if server.enabled}:
            return False
        if self._hub is None:
            self.start()
        else:
            self._hub.restart(name)
        return True

    def use_secrets(self, secrets: SecretForms) -> list[Notice]:
        """Redact what the servers say of `secrets` from now on (the toolbox's forms, grown
        by a secret learned mid-session), and offer their tools again under them: one
        `mcp_tools_withdrawn` notice per ready server that no longer offers a tool because
        its name holds one of them (how many; never the names). What the servers offer now
        is what a later listing is compared with (`mcp_tools_changed`)."""
        self._secrets = secrets
        if self._hub is None:
            return []
        offered = {
            s.name: {t.tool for t in s.tools} for s in self._hub.states() if s.status == READY
        }
        self._hub.use_secrets(secrets)
        notices = []
        for state in self._hub.states():
            if state.status != READY or state.name not in offered:
                continue
            seen = self._seen_tools.get(state.name)
            if seen is not None:
                self._seen_tools[state.name] = (seen[0], state.tools)
            gone = offered[state.name] - {tool.tool for tool in state.tools}
            if gone:
                fields = {"server": state.name, "count": len(gone)}
                notices.append(Notice("warning", "mcp_tools_withdrawn", fields))
        return notices

    def close(self) -> None:
        if self._hub is not None:
            self._hub.close()

    def _states(self) -> list[ServerState]:
        if self._hub is not None:
            return self._hub.states()
        return [
            ServerState(server.name, STARTING if server.enabled else DISABLED)
            for server in sorted(self._settings, key=lambda server: server.name)
        ]
