"""L2: when a file was read more than once, keep only the newest read.

Contract: a read is a tool_use whose name is one of the policy's `read_tool_names` and
whose input holds a string path under `read_path_key`. Two reads are of the same thing
when their paths match after light normalisation (surrounding blanks, `./` and `//`
segments, a trailing `/`) AND every other input (offset, limit...) is equal: a read of a
different range is not made redundant by a later one. Older reads leave as whole
interactions (tool_use and tool_result together); other blocks of those messages stay and
a message left empty is dropped. Nothing private is needed: reads are recognised from
what the API itself carries.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_cli.compaction.digest.what_left import collect_removed_calls
from agent_cli.compaction.facts_index import FactsIndex
from agent_cli.compaction.layers.read_keys import (
    find_reads,
    read_rule,
)
from agent_cli.compaction.layers.savings import measure_removal_savings
from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.compaction.results import NO_CHANGE, LayerOutcome, run_layer_alone
from agent_cli.protocol import apply_changes, locate_interactions, strip_interactions
from agent_cli.tokens import MESSAGE_OVERHEAD_TOKENS, TokenCounter


def find_superseded_reads(
    messages: Sequence[dict[str, Any]],
    policy: CompactionPolicy,
    facts: FactsIndex | None = None,
) -> dict[str, int]:
    """Reads that a later read of the same thing made redundant: id -> tool_use index.
    With the run's `facts` the reads the per-turn check found under this policy's read
    rule are taken as they are (`MessageFacts.reads`)."""
    newest: dict[tuple[str, ...], tuple[str, int]] = {}
    superseded: dict[str, int] = {}
    for index, reads in enumerate(_reads(messages, policy, facts)):
        for tool_id, key in reads:
            if key in newest:
                older_id, older_index = newest[key]
                superseded[older_id] = older_index
            newest[key] = (tool_id, index)
    return superseded


def _reads(
    messages: Sequence[dict[str, Any]], policy: CompactionPolicy, facts: FactsIndex | None
) -> list[tuple[tuple[str, tuple[str, ...]], ...]]:
    """The reads of each message, (tool_use id, read key) in block order (none but for an
    assistant message's): from the run's `facts` when given (in a valid view only
    assistant messages hold calls), recorded or found now, else from the blocks."""
    rule, paths = read_rule(policy), dict[str, str]()
    if facts is not None:
        return [
            found.reads
            if not found.uses or (found.read_rule == rule and found.reads is not None)
            else find_reads(found.uses, policy, paths)
            for found in facts.of_all(messages)
        ]
    return [
        find_reads(
            [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"],
            policy,
            paths,
        )
        if message.get("role") == "assistant"
        and isinstance(content := message.get("content"), list)
        else ()
        for message in messages
    ]


def build_dedup_outcome(
    messages: Sequence[dict[str, Any]],
    policy: CompactionPolicy,
    counter: TokenCounter,
    facts: FactsIndex | None = None,
) -> LayerOutcome:
    """Apply L2 to a valid view and say what it did (`facts`: the run's index)."""
    superseded = find_superseded_reads(messages, policy, facts)
    if not superseded:
        return LayerOutcome(list(messages), 0, outcome=NO_CHANGE)
    located = locate_interactions(messages, superseded)
    changes = strip_interactions(messages, superseded, located)
    view = apply_changes(messages, changes)
    removed, blocks = collect_removed_calls(messages, located, counter, facts)
    if len(removed) != len(superseded):  # a call not found where located: count the change
        saved = measure_removal_savings(messages, changes, counter)
    else:  # a message counts its overhead and its blocks: these left, and emptied ones
        saved = blocks + MESSAGE_OVERHEAD_TOKENS * (len(messages) - len(view))
    return LayerOutcome(
        view,
        saved,
        removed_tool_use_ids=tuple(superseded),
        messages_removed=len(messages) - len(view),
        removed=([], removed),
    )


def dedup_file_reads(
    messages: Sequence[dict[str, Any]],
    policy: CompactionPolicy | None = None,
    counter: TokenCounter | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """L2: drop older reads of the same file; return (new view, tokens saved).

    Raises ToolProtocolError for an invalid history.
    """
    return run_layer_alone(build_dedup_outcome, messages, policy, counter)
