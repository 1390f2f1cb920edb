"""A server's answer to `tools/list`, screened tool by tool before the SDK's session reads it.

Why: the SDK validates a listing as a whole, so one tool it cannot take (an input schema
of `{"type": "string"}`, a name that is a number) failed the whole listing, and with it
the server's start: its good tools were lost. Catching that failure would not do: the
session lists the tools again by itself when a call's answer comes from a tool it does
not know, and that listing would fail the call. So the answer is screened where it
arrives (`watched_streams`), and the session only ever sees tools it can take.

Contract: `screen_listing(result, version)` takes the `result` of a `tools/list` answer
and the protocol version the handshake settled on (None before it did: the SDK's own
fallback then) and returns the result to hand on and the tools taken out of it, each a
`ListedTool` as the server listed it with its `refusal`: a tool nested more than
`MAX_TOOL_DEPTH` objects and arrays deep (the SDK's checks and ours would walk it with a
frame a level; `schema_rules` says why), or, when the SDK would refuse the listing, each
tool it refuses on its own (its first complaint, the tool's place in the listing left
out). A result that is no listing, or that the SDK refuses for what no single tool
holds, is handed on as it is (the SDK then says why). The SDK is imported on first use;
this runs on the hub's loop, where it is loaded.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from agent_cli.mcp_servers.offered_tools import ListedTool
from agent_cli.mcp_servers.schema_rules import MAX_SCHEMA_DEPTH, nesting_depth

MAX_TOOL_DEPTH = MAX_SCHEMA_DEPTH + 1  # the tool object holds its schema
FALLBACK_VERSION = "2025-11-25"  # what the SDK's session validates by before a handshake


def screen_listing(
    result: Mapping[str, Any], version: str | None
) -> tuple[Mapping[str, Any], list[ListedTool]]:
    """The listing to hand on and the tools taken out of it (module contract)."""
    tools = result.get("tools")
    if not isinstance(tools, list):
        return result, []
    refusals = [_depth_refusal(item) for item in tools]
    if _sdk_refusal([t for t, why in zip(tools, refusals, strict=True) if not why], version):
        refusals = [
            why or _sdk_refusal([item], version) for item, why in zip(tools, refusals, strict=True)
        ]
    if not any(refusals):
        return result, []
    kept = [item for item, why in zip(tools, refusals, strict=True) if not why]
    taken = [read_listed_tool(item, why) for item, why in zip(tools, refusals, strict=True) if why]
    return {**result, "tools": kept}, taken


def _depth_refusal(item: Any) -> str | None:
    if nesting_depth(item, MAX_TOOL_DEPTH) <= MAX_TOOL_DEPTH:
        return None
    return f"the server lists it nested more than {MAX_TOOL_DEPTH} levels deep"


def read_listed_tool(item: Any, refusal: str = "") -> ListedTool:
    """A tool as the server listed it, whatever its shape, with why it was taken out."""
    if not isinstance(item, Mapping):
        return ListedTool(None, "", None, refusal or "the server lists it as no object")
    description = item.get("description")
    return ListedTool(
        item.get("name"),
        description if isinstance(description, str) else "",
        item.get("inputSchema"),
        refusal,
    )


def _sdk_refusal(tools: list[Any], version: str | None) -> str | None:
    """What the SDK's session says of a listing of `tools`, as it validates one (by the
    protocol version's own shape, then its model), or None when it takes it."""
    from mcp import types
    from mcp_types import methods
    from pydantic import ValidationError

    listing = {"tools": tools}
    try:
        with contextlib.suppress(KeyError):  # a version that shapes no tools/list: so does the SDK
            methods.validate_server_result("tools/list", version or FALLBACK_VERSION, listing)
        types.ListToolsResult.model_validate(listing, by_name=False)
    except ValidationError as error:
        found = error.errors(include_url=False, include_context=False)
        loc, msg = (tuple(found[0]["loc"]), found[0]["msg"]) if found else ((), "")
        where = ".".join(str(part) for part in loc[2:])  # past ("tools", <its place>)
        said = f"{where}: {msg}" if where else msg
        return f"the MCP SDK cannot read how the server lists it ({said})"
    return None
