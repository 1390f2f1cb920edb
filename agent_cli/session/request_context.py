"""What a request carries outside the view: the durable block and the reserved tokens.

Contract: `render_durable` resolves every durable source pointer now (reading files
through the resolver) and renders the block the wire puts in the newest user turn; it
changes nothing. `reserved_tokens` counts the fixed parts of a request (system prompt,
project instructions, durable block, tool schemas) with the session's counter. Both
take only what they need, not the `Session`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agent_cli.durable import DurableContextState, render_durable_context
from agent_cli.sources import SourceResolution, resolve_durable_sources


def render_durable(
    state: DurableContextState, resolver: Any
) -> tuple[tuple[SourceResolution, ...], str]:
    """(the resolutions now, the durable block rendered with them)."""
    resolutions = tuple(resolve_durable_sources(state, resolver))
    return resolutions, render_durable_context(state, source_resolutions=resolutions)


def reserved_tokens(counter: Any, texts: Iterable[str], tool_schemas: Any) -> int:
    """Tokens of `texts` (system prompt, instructions, durable block) and the tools."""
    schema_tokens: int = counter.count_json(tool_schemas)
    return sum(int(counter.count_text(text)) for text in texts) + schema_tokens
