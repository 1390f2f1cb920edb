"""Running one layer on its own, as the public layer functions do.

Contract: the history is validated first (ToolProtocolError for an invalid one), missing
policy and counter get their defaults, and the layer's outcome is reduced to the pair
every public layer returns: (new view, tokens saved).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.compaction.results import LayerOutcome
from agent_cli.protocol import validate_tool_protocol
from agent_cli.tokens import TokenCounter, default_counter

LayerBuilder = Callable[[Sequence[dict[str, Any]], CompactionPolicy, TokenCounter], LayerOutcome]


def run_layer_alone(
    build: LayerBuilder,
    messages: Sequence[dict[str, Any]],
    policy: CompactionPolicy | None,
    counter: TokenCounter | None,
) -> tuple[list[dict[str, Any]], int]:
    """Validate `messages`, apply `build` with defaults filled in, return (view, saved)."""
    validate_tool_protocol(messages)
    outcome = build(messages, policy or CompactionPolicy(), counter or default_counter())
    return outcome.messages, outcome.tokens_saved
