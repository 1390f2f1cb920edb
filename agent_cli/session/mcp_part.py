"""The session's MCP servers: started when the REPL is ready, waited for before a
request, reported once when they fail, listed with what their tool schemas cost.

Contract: `McpPart(hub, counter)` wraps the session's `McpHub`. `start()` starts the
servers in the background. `before_request(limit)` yields, before a turn's request: a
`mcp_waiting` notice naming the servers still starting (then waits for them, at most
`limit` seconds), and one `mcp_failed` notice per server that failed since the last
call (each failure is reported once; a restart that fails again is reported again; a
server that failed during a tool call is not: that call's error result said why, so a
crash costs one error line).
`servers()` lists every server with its state, its offered tools and the tokens their
schemas add to every request (`McpServerView`). `restart(name)` restarts one; False when
no server has that name. `close()` stops them all.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from agent_cli.events import Notice
from agent_cli.mcp_servers.hub import FAILED, McpHub
from agent_cli.tokens import TokenCounter

DEFAULT_STARTUP_WAIT = 10.0


@dataclass(frozen=True)
class McpServerView:
    """One server as `/mcp` shows it."""

    name: str
    status: str  # starting, ready, failed, disabled
    reason: str
    tools: tuple[str, ...]  # the tools' own names, sorted
    skipped: tuple[tuple[str, str], ...]  # (tool, why) for each tool not offered
    schema_tokens: int  # what its offered tools' definitions add to every request


class McpPart:
    """The session's MCP servers (module contract)."""

    def __init__(self, hub: McpHub, counter: TokenCounter) -> None:
        self._hub = hub
        self._counter = counter
        self._reported: dict[str, str] = {}  # server -> the failure reason reported

    def start(self) -> None:
        self._hub.start()

    def before_request(self, limit: float = DEFAULT_STARTUP_WAIT) -> Iterator[Notice]:
        starting = [s.name for s in self._hub.states() if s.status == "starting"]
        if starting:
            yield Notice("info", "mcp_waiting", {"servers": ", ".join(starting), "limit": limit})
            still = self._hub.wait_for_start(limit)
            if still:
                yield Notice("warning", "mcp_still_starting", {"servers": ", ".join(still)})
        for state in self._hub.states():
            if state.status == FAILED and self._reported.get(state.name) != state.reason:
                self._reported[state.name] = state.reason
                if state.failed_in_call:
                    continue
                yield Notice(
                    "warning", "mcp_failed", {"server": state.name, "reason": state.reason}
                )
            elif state.status != FAILED:
                self._reported.pop(state.name, None)

    def servers(self) -> tuple[McpServerView, ...]:
        return tuple(
            McpServerView(
                state.name,
                state.status,
                state.reason,
                tuple(sorted(tool.tool for tool in state.tools)),
                tuple((skipped.tool, skipped.problem) for skipped in state.skipped),
                sum(self._counter.count_json(dict(tool.definition)) for tool in state.tools),
            )
            for state in self._hub.states()
        )

    def restart(self, name: str) -> bool:
        if name not in {state.name for state in self._hub.states()}:
            return False
        self._hub.restart(name)
        return True

    def close(self) -> None:
        self._hub.close()
