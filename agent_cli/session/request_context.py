"""What a request carries outside the view, and the tokens that reserves.

Contract: a `RequestFrame` holds the fixed parts of the next request (system prompt,
project instructions, the rendered durable block, tool schemas) and the tokens they
reserve, counted once with the session's counter when the frame is built, so compaction gives the view what is left.
`count_offered_schema_tokens` is the part of those tokens MCP servers' tool schemas add.
Plain values: building a frame reads no file (the durable block is rendered before).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_cli.tokens import TokenCounter


@dataclass(frozen=True)
class RequestFrame:
    """The parts of a request around its messages, and the tokens they take from every
    request's budget (counted once, when the frame is built: `build_frame`)."""

    system: str
    project_instructions: str
    durable_text: str
    tools: tuple[dict[str, Any], ...]
    reserved_tokens: int
    durable_tokens: int = 0  # the durable block's part of `reserved_tokens`
    instructions_tokens: int = 0  # the project instructions' part of it
    instructions_source: str | None = None  # their file ("AGENTS.md"), None: none


def build_frame(
    counter: TokenCounter,
    system: str,
    project_instructions: str,
    durable_text: str,
    tools: tuple[dict[str, Any], ...],
    instructions_source: str | None = None,
) -> RequestFrame:
    """A frame with its reserved tokens counted by `counter`; `instructions_source`: the
    file the project instructions come from."""
    durable = counter.count_text(durable_text)
    instructions = counter.count_text(project_instructions)
    reserved = counter.count_text(system) + instructions + durable
    reserved += counter.count_json(list(tools))
    return RequestFrame(
        system,
        project_instructions,
        durable_text,
        tools,
        reserved,
        durable,
        instructions,
        instructions_source,
    )


def reserved_tokens(
    counter: TokenCounter, texts: Iterable[str], tool_schemas: list[dict[str, Any]]
) -> int:
    """Tokens of `texts` (system prompt, instructions, durable block) and the tools."""
    return sum(counter.count_text(text) for text in texts) + counter.count_json(tool_schemas)


def count_offered_schema_tokens(counter: TokenCounter, schemas: list[dict[str, Any]]) -> int:
    """What the tool schemas MCP servers offer add to `reserved_tokens`: every schema
    counted as a request carries them, less the built-in ones counted alone (0 when no
    server offers a tool)."""
    from agent_cli.mcp_servers.offered_tools import split_offered_name

    built_in = [s for s in schemas if split_offered_name(str(s.get("name", ""))) is None]
    if len(built_in) == len(schemas):
        return 0
    return counter.count_json(schemas) - counter.count_json(built_in)
