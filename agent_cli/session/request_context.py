"""What a request carries outside the view, and the tokens that reserves.

Contract: a `RequestFrame` holds the fixed parts of the next request (system prompt,
project instructions, the rendered durable block, tool schemas); `reserved_tokens`
counts them with the session's counter, so compaction gives the view what is left.
Plain values: building a frame reads no file (the durable block is rendered before).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RequestFrame:
    """The parts of a request around its messages."""

    system: str
    project_instructions: str
    durable_text: str
    tools: tuple[dict[str, Any], ...]

    def reserved_tokens(self, counter: Any) -> int:
        """Tokens the frame takes from every request's budget."""
        texts = (self.system, self.project_instructions, self.durable_text)
        return reserved_tokens(counter, texts, list(self.tools))


def reserved_tokens(counter: Any, texts: Iterable[str], tool_schemas: Any) -> int:
    """Tokens of `texts` (system prompt, instructions, durable block) and the tools."""
    schema_tokens: int = counter.count_json(tool_schemas)
    return sum(int(counter.count_text(text)) for text in texts) + schema_tokens
