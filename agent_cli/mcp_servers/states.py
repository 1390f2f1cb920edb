"""Where each MCP server stands and what a call gave: plain data, light to import.

`hub.McpHub` (which imports asyncio and, on its own thread, the SDK) produces these;
the session and the toolbox read them through `McpTools` without importing the hub.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from agent_cli.errors import TerminationRequested
from agent_cli.mcp_servers.offered_tools import OfferedTool, Skipped, split_offered_name
from agent_cli.mcp_servers.paged_listing import MAX_LISTED_TOOLS, Listing

STARTING, READY, FAILED, DISABLED = "starting", "ready", "failed", "disabled"


@dataclass(frozen=True)
class Relisting:
    """How a ready server's `tools/list_changed` notices were followed since it started
    (`tool_list_changes`): how many it sent, how many listings they cost (notices are
    merged and listings paced), the least time between two listings now, why the last
    listing failed ("" when it did not), and how long the listing under way has waited
    for its answer (0 when none is under way)."""

    notices: int = 0
    listings: int = 0
    interval: float = 0.0
    failed: str = ""
    waiting: float = 0.0


@dataclass(frozen=True)
class ServerState:
    """Where one server stands: its status, why it failed, the tools it offers and those
    it does not (with the reason); the names it listed past the most agent-cli offers of
    one server (`left_out`, `left_out_count` of them) and why its listing was cut short,
    if it was (`listing_cut`: `paged_listing`)."""

    name: str
    status: str
    reason: str = ""
    tools: tuple[OfferedTool, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    failed_in_call: bool = False  # the call's error result already said why
    left_out: frozenset[str] = frozenset()
    left_out_count: int = 0
    listing_cut: str = ""
    relisted: int = 0  # how often its tools were listed again since it started
    relisting: Relisting = Relisting()  # a ready server's, as `McpHub.states` read it
    # a ready server's listing (the tools screened out too): what `tools` and `skipped`
    # were offered from, kept so the offer can be made again (`McpHub.use_secrets`)
    listing: Listing | None = None
    # the process agent-cli started for it exited, but the server answered on: a launcher
    # that left it running (`exit_probe`); until it is started again
    launcher_exited: bool = False


@dataclass(frozen=True)
class CallOutcome:
    """What one call gave: content items (dicts) and the server's error flag, or a
    `failure` saying why there is no answer."""

    items: tuple[dict[str, Any], ...] = ()
    is_error: bool = False
    failure: str | None = None
    structured: Any = None  # the result's `structuredContent` (MCP 2025-06-18), if any


class CallInterrupted(KeyboardInterrupt):
    """Ctrl-C came once the server had answered the call (while its new tool list was
    awaited): `outcome` is that answer. A KeyboardInterrupt, so the turn ends as with any
    Ctrl-C; whoever records the call records `outcome`, not "did not finish"."""

    def __init__(self, outcome: CallOutcome) -> None:
        self.outcome = outcome
        super().__init__("the call was answered")


class CallTerminated(TerminationRequested):
    """A termination signal (SIGTERM, SIGHUP, SIGQUIT) came once the server had answered
    the call: `outcome` is that answer, recorded as the call's result before the process
    ends. A TerminationRequested, so agent-cli still ends; as `CallInterrupted` for Ctrl-C."""

    def __init__(self, signal_number: int, outcome: CallOutcome) -> None:
        self.outcome = outcome
        super().__init__(signal_number)


class McpTools(Protocol):
    """What the toolbox needs of the session's MCP servers: the offered tools, a number
    that changes when they do, why a name is not offered (`describe_not_offered`), and
    one call (which may raise `CallInterrupted` or `CallTerminated`, carrying its answer,
    or `TerminationRequested` when a signal came before it)."""

    @property
    def version(self) -> int: ...

    def offered_tools(self) -> list[OfferedTool]: ...

    def not_offered(self, name: str) -> str | None: ...

    def call(self, server: str, tool: str, arguments: dict[str, Any]) -> CallOutcome: ...


def describe_not_offered(name: str, states: Iterable[ServerState]) -> str | None:
    """Why the offered-style `name` (`mcp__<server>__<tool>`) is not among the offered
    tools, as one sentence for the model, when a ready server explains it: the server
    lists that tool but it was left out (the `Skipped` reason `/mcp` shows, or past the
    most agent-cli offers of one server), or the
    server runs and lists no such tool. None otherwise (no such server, or it is not
    ready): the caller then says what it says of a server that is not running. The
    sentence names the server and the reason, never the tool's name (the model's input)."""
    parts = split_offered_name(name)
    if parts is None:
        return None
    server, tool = parts
    state = next((state for state in states if state.name == server), None)
    if state is None or state.status != READY:
        return None
    if tool in state.left_out:
        return (
            f"That tool is not offered: the MCP server {server} lists it, but past the first "
            f"{MAX_LISTED_TOOLS} tools, the most agent-cli offers of one server, so it was "
            f"left out with the {state.left_out_count:,} listed after them; /mcp shows the "
            "user the same."
        )
    problem = next((skipped.problem for skipped in state.skipped if skipped.tool == tool), None)
    if problem is not None:
        return (
            f"That tool is not offered: the MCP server {server} lists it, but agent-cli left "
            f"it out because {problem}; /mcp shows the user the same."
        )
    if state.listing_cut:
        return (
            f"There is no tool by that name among those agent-cli read: the MCP server {server} "
            f"is running, but its tool listing was cut short ({state.listing_cut})."
        )
    return (
        f"There is no tool by that name among those agent-cli read: the MCP server {server} "
        "is running, and it was not in the server's list of tools when agent-cli last read "
        "it (read again when the server says its tools changed, or when the user restarts "
        f"it: /mcp restart {server})."
    )


def count_tool_changes(
    before: Iterable[OfferedTool], after: Iterable[OfferedTool]
) -> dict[str, int]:
    """How the offered tools `after` differ from `before`: how many were `added`,
    `removed`, and `changed` (offered under the same name with another definition)."""
    old = {tool.name: tool.definition for tool in before}
    new = {tool.name: tool.definition for tool in after}
    return {
        "added": len(new.keys() - old.keys()),
        "removed": len(old.keys() - new.keys()),
        "changed": sum(1 for name in new.keys() & old.keys() if new[name] != old[name]),
    }
