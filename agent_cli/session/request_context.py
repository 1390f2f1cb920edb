"""What a request carries outside the view: its reserved tokens.

Contract: `reserved_tokens` counts the fixed parts of a request (system prompt, project
instructions, durable block, tool schemas) with the session's counter; it takes only
what it needs, not the `Session`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def reserved_tokens(counter: Any, texts: Iterable[str], tool_schemas: Any) -> int:
    """Tokens of `texts` (system prompt, instructions, durable block) and the tools."""
    schema_tokens: int = counter.count_json(tool_schemas)
    return sum(int(counter.count_text(text)) for text in texts) + schema_tokens
