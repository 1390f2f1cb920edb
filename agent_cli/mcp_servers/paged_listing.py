"""A server's tools, listed page by page, within bounds that a broken server cannot pass.

Contract: `list_all_tools(session)` asks `tools/list` for each page the server's cursors
lead to and returns a `Listing`: the first `MAX_LISTED_TOOLS` tools (the most agent-cli
offers of one server: each rides in every request), the names of those listed past that
cap (`left_out`, so `/mcp` can count them and a call of one can be told why it is not
offered), and, when the listing was cut short, why (`cut_short`, words that blame the
server's listing). It stops at the first page without a further cursor, and also when a
cursor repeats one given before or a page with a further cursor adds no tools (a server
that pages in a loop would be asked again and again until its startup_timeout, both
processes spinning), or after `MAX_LISTED_PAGES` pages. The tools of the pages before are
kept either way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_cli.mcp_servers.offered_tools import ListedTool

MAX_LISTED_TOOLS = 500
MAX_LISTED_PAGES = 100
MAX_NAMES_LEFT_OUT = 50_000  # past the cap, kept to say why a call of one is refused


@dataclass(frozen=True)
class Listing:
    """What a server listed (module contract)."""

    tools: list[ListedTool]
    left_out: frozenset[str] = frozenset()
    left_out_count: int = 0
    cut_short: str = ""


async def list_all_tools(session: Any) -> Listing:
    """Every tool the server lists, page by page, within the bounds (module contract)."""
    tools: list[ListedTool] = []
    left_out: set[str] = set()
    left_out_count = 0
    cursors: set[str] = set()
    cursor: str | None = None
    for page_number in range(1, MAX_LISTED_PAGES + 1):
        page = await _page(session, cursor)
        for tool in page.tools:
            if len(tools) < MAX_LISTED_TOOLS:
                tools.append(ListedTool(tool.name, tool.description or "", tool.input_schema))
                continue
            left_out_count += 1
            if len(left_out) < MAX_NAMES_LEFT_OUT and isinstance(tool.name, str):
                left_out.add(tool.name)
        cursor = getattr(page, "next_cursor", None)
        if not cursor:
            return Listing(tools, frozenset(left_out), left_out_count)
        why = _loop_sign(page_number, cursor, cursors, bool(page.tools))
        if why:
            return Listing(tools, frozenset(left_out), left_out_count, why)
        cursors.add(cursor)
    cut = f"the server listed more than {MAX_LISTED_PAGES} pages of tools; agent-cli read no more"
    return Listing(tools, frozenset(left_out), left_out_count, cut)


def _loop_sign(page_number: int, cursor: str, cursors: set[str], has_tools: bool) -> str:
    """Why a listing whose page `page_number` points on to `cursor` is a loop, or ''."""
    if cursor in cursors:
        return (
            f"the server's page {page_number} of tools points on to a cursor it gave before, "
            "so its listing would never end (a pagination bug in the server)"
        )
    if not has_tools:
        return (
            f"the server's page {page_number} of tools holds none yet points on to another "
            "page, so its listing may never end (a pagination bug in the server)"
        )
    return ""


async def _page(session: Any, cursor: str | None) -> Any:
    if cursor is None:
        return await session.list_tools()
    from mcp.types import PaginatedRequestParams

    return await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
