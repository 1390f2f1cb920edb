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

import json
from collections.abc import Sequence
from typing import Any

from agent_cli.compaction.facts import FactsIndex
from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.compaction.removed import collect_removed_calls
from agent_cli.compaction.results import NO_CHANGE, LayerOutcome
from agent_cli.compaction.savings import measure_removal_savings
from agent_cli.compaction.standalone import run_layer_alone
from agent_cli.protocol import apply_changes, locate_interactions, strip_interactions
from agent_cli.tokens import MESSAGE_OVERHEAD_TOKENS, TokenCounter


def normalize_read_path(path: str) -> str:
    """A path string with cosmetic differences removed; `..` is left alone on purpose."""
    text = path.strip()
    is_absolute = text.startswith("/")
    parts = [part for part in text.split("/") if part not in ("", ".")]
    joined = "/".join(parts)
    return "/" + joined if is_absolute else joined


def build_read_key(
    block: dict[str, Any], policy: CompactionPolicy, paths: dict[str, str] | None = None
) -> tuple[str, ...] | None:
    """What a read tool_use reads (tool, path, other inputs), or None if it is no read.
    `paths` memoizes normalized paths over one scan (a session reads the same files)."""
    name = block.get("name")
    if name not in policy.read_tool_names:
        return None
    tool_input = block.get("input")
    if not isinstance(tool_input, dict):
        return None
    path = tool_input.get(policy.read_path_key)
    if not isinstance(path, str) or not path.strip():
        return None
    normalized = paths.get(path) if paths is not None else None
    if normalized is None:
        normalized = normalize_read_path(path)
        if paths is not None:
            paths[path] = normalized
    if len(tool_input) == 1:
        return (name, normalized, "")
    others = {key: value for key, value in tool_input.items() if key != policy.read_path_key}
    return (name, normalized, json.dumps(others, sort_keys=True, default=str))


def find_superseded_reads(
    messages: Sequence[dict[str, Any]],
    policy: CompactionPolicy,
    facts: FactsIndex | None = None,
) -> dict[str, int]:
    """Reads that a later read of the same thing made redundant: id -> tool_use index.
    With the run's `facts` only the tool_use blocks they list are looked at."""
    newest: dict[tuple[str, ...], tuple[str, int]] = {}
    superseded: dict[str, int] = {}
    names, paths = policy.read_tool_names, dict[str, str]()
    for index, uses in enumerate(_tool_uses(messages, facts)):
        for block in uses:
            if block.get("name") not in names:  # most calls are no reads
                continue
            key = build_read_key(block, policy, paths)
            if key is None:
                continue
            if key in newest:
                older_id, older_index = newest[key]
                superseded[older_id] = older_index
            newest[key] = (block["id"], index)
    return superseded


def _tool_uses(
    messages: Sequence[dict[str, Any]], facts: FactsIndex | None
) -> list[tuple[dict[str, Any], ...]]:
    """The tool_use blocks of each assistant message (none for the others): read from the
    run's `facts` when given (in a valid view only assistant messages hold calls)."""
    if facts is not None:
        return [found.uses for found in facts.of_all(messages)]
    return [
        tuple(b for b in content if isinstance(b, dict) and b.get("type") == "tool_use")
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
    removed, blocks = collect_removed_calls(messages, located, facts)
    if blocks is None or len(removed) != len(superseded):  # not all recorded: count them
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
