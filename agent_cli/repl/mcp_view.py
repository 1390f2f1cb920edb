"""`/mcp`: the MCP servers, how each stands, its tools and what their schemas cost."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from agent_cli.mcp_servers.paged_listing import MAX_LISTED_TOOLS
from agent_cli.mcp_servers.states import Relisting
from agent_cli.repl.safe_text import clip_line
from agent_cli.tools.output import count_noun

if TYPE_CHECKING:
    from agent_cli.session.mcp_part import McpServerView

NO_SERVERS = (
    "No MCP servers are configured. Add one to config.toml as a table, e.g. "
    '[mcp_servers.files] with command = "npx" and args = [...]; the README shows how.'
)
RESTART_HINT = "/mcp restart <server> starts a failed server again."
LAUNCHER_EXITED = (
    "the process agent-cli started for it exited; the server it launched answers on "
    "(asked with a ping), so it stays ready"
)
STATUS_STYLE = {"ready": "green", "starting": "yellow", "failed": "red", "disabled": "dim"}


def build_mcp_view(servers: Sequence[McpServerView]) -> RenderableType:
    """One block per server (state, whether its launcher exited while it answers on,
    tools, schema tokens per request), the property names renamed for the Messages API
    (`describe_renamed`), then what was not offered and why, and how its tools were listed again (`describe_relisting`); with a failed server, how to start it again."""
    if not servers:
        return Text(NO_SERVERS)
    lines: list[Text] = [Text("MCP servers", style="bold")]
    for server in servers:
        lines.append(_state_line(server))
        if server.launcher_exited and server.status == "ready":
            lines.append(Text("    " + LAUNCHER_EXITED, style="dim"))
        if server.tools:
            lines.append(Text("    " + clip_line(", ".join(server.tools), 400), style="dim"))
        lines.extend(describe_renamed(server.renamed))
        for tool, why in server.skipped:
            lines.append(Text(f"    not offered: {clip_line(tool, 60)!r}: {why}", style="yellow"))
        if server.left_out:
            lines.append(Text("    " + describe_left_out(server.left_out), style="yellow"))
        if server.listing_cut:
            cut = f"    tool listing cut short: {clip_line(server.listing_cut, 400)}"
            lines.append(
                Text(cut + "; the tools of the pages before it are offered", style="yellow")
            )
        lines.extend(describe_relisting(server.relisting))
    total = sum(server.schema_tokens for server in servers)
    lines.append(Text(f"tool schemas of MCP servers: {total:,} tokens in every request"))
    if any(server.status == "failed" for server in servers):  # reasons give no advice
        lines.append(Text(RESTART_HINT, style="dim"))
    return Group(*lines)


def describe_renamed(renamed: Sequence[tuple[str, Sequence[tuple[str, str]]]]) -> list[Text]:
    """One line per tool whose property names the Messages API refuses were renamed: the
    server's names (quoted, so a blank or odd one shows) and what the model calls them;
    calls reach the server under its own."""
    lines = []
    for tool, pairs in renamed:
        said = ", ".join(f"{clip_line(own, 40)!r} as {offered}" for own, offered in pairs)
        line = f"{clip_line(tool, 60)}: property names the Messages API refuses renamed: {said}"
        lines.append(Text("    " + clip_line(line, 400), style="dim"))
    return lines


def describe_left_out(count: int) -> str:
    """Why `count` tools a server listed are not offered: the cap on one server's tools."""
    return (
        f"not offered: {count_noun(count, 'more tool')} it lists past the first "
        f"{MAX_LISTED_TOOLS}, the most agent-cli offers of one server (each tool's schema "
        "rides in every request)"
    )


def describe_relisting(relisting: Relisting) -> list[Text]:
    """What following a server's notices that its tools changed came to: how many it sent
    and how many listings they cost (merged and paced when it sends more), a listing
    under way that waits for its answer, and why the last one failed."""
    lines: list[Text] = []
    if relisting.notices:
        said = (
            f"    said its tools changed {count_noun(relisting.notices, 'time')}; listed "
            f"again {count_noun(relisting.listings, 'time')}"
        )
        flooding = relisting.notices > 2 * max(relisting.listings, 1)
        if relisting.notices > relisting.listings:
            said += (
                f" (notices merged: one listing at most every {relisting.interval:g} s while "
                "they change nothing)"
            )
        lines.append(Text(said, style="yellow" if flooding else "dim"))
    if relisting.waiting >= 1:
        lines.append(
            Text(
                f"    listing its tools again: no answer for {relisting.waiting:.0f} s yet; the "
                "tools listed before are offered",
                style="yellow",
            )
        )
    if relisting.failed:
        lines.append(
            Text(
                f"    its last listing again failed: {clip_line(relisting.failed, 400)}; the "
                "tools listed before are offered",
                style="yellow",
            )
        )
    return lines


def _state_line(server: McpServerView) -> Text:
    style = STATUS_STYLE.get(server.status, "")
    line = Text.assemble(("  " + server.name, "bold"), " ", (server.status, style))
    if server.status == "ready":
        line.append(
            f" · {count_noun(len(server.tools), 'tool')}"
            f"{f' ({server.left_out:,} more left out)' if server.left_out else ''} · schemas "
            f"{server.schema_tokens:,} tokens a request"
        )
    elif server.reason:
        line.append(f": {clip_line(server.reason, 400)}")
    return line


def describe_restart_outcome(name: str, server: McpServerView | None) -> tuple[str, str]:
    """(words, style) for how `/mcp restart <name>` ended, from the server's state after
    it: ready with its tools, failed with the reason, or not yet ready."""
    shown = clip_line(name, 60)
    if server is None:
        return f"MCP server {shown} is gone; /mcp lists the servers.", "yellow"
    if server.status == "ready":
        return f"MCP server {shown} is ready ({count_noun(len(server.tools), 'tool')}).", "green"
    if server.status == "failed":
        return f"MCP server {shown} did not start: {clip_line(server.reason, 400)}", "red"
    return f"MCP server {shown} is still starting; /mcp shows when it is ready.", "yellow"
