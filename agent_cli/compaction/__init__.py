"""The compaction core: four layers that shrink the prompt view, never the transcript.

Pure: no file, network, clock or environment access. Messages are plain Anthropic-format
dicts (content a string or a list of blocks) and are never mutated. Layers, cheapest
first: L1 `truncate_tool_results`, L2 `dedup_file_reads`, L3 `prune_old_messages`,
L4 `generate_summary`; `compact_context` runs them in order until the view fits.
"""

from agent_cli.compaction.layers.dedup import dedup_file_reads
from agent_cli.compaction.layers.prune import prune_old_messages
from agent_cli.compaction.layers.summary import (
    Summarizer,
    generate_summary,
    has_older_messages_to_summarize,
)
from agent_cli.compaction.layers.truncate import truncate_tool_results
from agent_cli.compaction.pipeline import compact_context, compact_if_needed
from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.compaction.results import CompactionResult, LayerReport
from agent_cli.compaction.view_index import ViewIndex, count_view, measure_view
from agent_cli.errors import MessageViewLimitExceeded, ToolProtocolError
from agent_cli.protocol import Interaction, remove_tool_interactions, validate_tool_protocol
from agent_cli.tokens import estimate_tokens

__all__ = [
    "CompactionPolicy",
    "CompactionResult",
    "Interaction",
    "LayerReport",
    "MessageViewLimitExceeded",
    "Summarizer",
    "ToolProtocolError",
    "ViewIndex",
    "compact_context",
    "compact_if_needed",
    "count_view",
    "dedup_file_reads",
    "estimate_tokens",
    "generate_summary",
    "has_older_messages_to_summarize",
    "measure_view",
    "prune_old_messages",
    "remove_tool_interactions",
    "truncate_tool_results",
    "validate_tool_protocol",
]
