"""Where each MCP server stands and what a call gave: plain data, light to import.

`hub.McpHub` (which imports asyncio and, on its own thread, the SDK) produces these;
the session and the toolbox read them through `McpTools` without importing the hub.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from agent_cli.mcp_servers.offered_tools import OfferedTool, Skipped

STARTING, READY, FAILED, DISABLED = "starting", "ready", "failed", "disabled"


@dataclass(frozen=True)
class ServerState:
    """Where one server stands: its status, why it failed, the tools it offers and those
    it does not (with the reason)."""

    name: str
    status: str
    reason: str = ""
    tools: tuple[OfferedTool, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    failed_in_call: bool = False  # the call's error result already said why


@dataclass(frozen=True)
class CallOutcome:
    """What one call gave: content items (dicts) and the server's error flag, or a
    `failure` saying why there is no answer."""

    items: tuple[dict[str, Any], ...] = ()
    is_error: bool = False
    failure: str | None = None
    structured: Any = None  # the result's `structuredContent` (MCP 2025-06-18), if any


class McpTools(Protocol):
    """What the toolbox needs of the session's MCP servers: the offered tools, a number
    that changes when they do, and one call."""

    @property
    def version(self) -> int: ...

    def offered_tools(self) -> list[OfferedTool]: ...

    def call(self, server: str, tool: str, arguments: dict[str, Any]) -> CallOutcome: ...
