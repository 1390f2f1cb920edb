"""L2: when a file was read more than once, keep only the newest read.

Contract: a read is a tool_use named in `read_tool_names` with a string path under `read_path_key`.
Two reads are of the same thing when their paths match after light normalisation (`read_keys`) and
every other input is equal. Only a read whose result is no error supersedes. Older reads leave as
whole interactions; other blocks of their messages stay and a message left empty is dropped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress
from typing import Any

from agent_cli.compaction.digest.removed_items import RemovedInteraction
from agent_cli.compaction.digest.what_left import CallResults, call_tokens, removed_call
from agent_cli.compaction.layers.read_keys import find_reads, read_rule
from agent_cli.compaction.message_facts import (
    MessageFacts,
    build_view_facts,
    with_answered_in,
    without_calls,
)
from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.compaction.results import NO_CHANGE, LayerOutcome, run_layer_alone
from agent_cli.tokens import MESSAGE_OVERHEAD_TOKENS, TokenCounter

ReadKey = tuple[str, ...]


@dataclass
class ReadHistory:
    """A walk's reads in view order: the newest error-free read per key (id, position), the
    superseded reads (id -> position) and the reads not yet answered (id -> key, position)."""

    newest: dict[ReadKey, tuple[str, int]] = field(default_factory=dict)
    superseded: dict[str, int] = field(default_factory=dict)
    unanswered: dict[str, tuple[ReadKey, int]] = field(default_factory=dict)


def note_superseded(
    found: Sequence[MessageFacts], start: int, policy: CompactionPolicy, history: ReadHistory
) -> None:
    """Walk the facts of the messages from position `start` on, adding to `history`: an error-free
    read supersedes the newest earlier read of the same key. Reads recorded under this policy's rule
    are taken as they are."""
    rule = read_rule(policy)
    unanswered, newest = history.unanswered, history.newest
    for position, facts in enumerate(found, start):
        for result in facts.results if unanswered else ():
            tool_id = result.get("tool_use_id")
            if not isinstance(tool_id, str) or (read := unanswered.pop(tool_id, None)) is None:
                continue
            if result.get("is_error"):  # a failed read supersedes nothing
                continue
            key, use_position = read
            older = newest.get(key)
            if older is not None:
                history.superseded[older[0]] = older[1]
            newest[key] = (tool_id, use_position)
        if not facts.uses:
            continue
        reads = facts.reads if facts.read_rule == rule else find_reads(facts.uses, policy)
        for tool_id, key in reads:
            unanswered[tool_id] = (key, position)


def build_dedup_outcome(
    messages: Sequence[dict[str, Any]],
    policy: CompactionPolicy,
    counter: TokenCounter,
    facts: Sequence[MessageFacts] | None = None,
    superseded: Mapping[str, int] | None = None,
) -> LayerOutcome:
    """Apply L2 to a valid view (`facts`: those of each message; `superseded`: the view's superseded
    reads, when known)."""
    found = build_view_facts(messages, counter) if facts is None else facts
    if superseded is None:
        history = ReadHistory()
        note_superseded(found, 0, policy, history)
        superseded = history.superseded
    if not superseded:
        return LayerOutcome(list(messages), 0, outcome=NO_CHANGE, facts=list(found))
    removed, tokens, taken = _name_calls(messages, found, superseded, counter)
    view, new_facts = list(messages), list(found)
    stays = bytearray(b"\x01") * len(messages)  # 0 where the whole message leaves
    changed = []  # messages that stay with fewer blocks
    for position, leaving in taken.items():
        known, record = found[position], found[position].without_reads
        if record is not None and leaving == _blocks_taken(known, record[1]):
            view[position], new_facts[position] = record  # (recorded once)
        elif leaving == len(messages[position]["content"]):  # (a valid view holds a block once)
            stays[position] = 0  # all of it leaves
            continue
        else:
            view[position] = without_blocks(messages[position], known, superseded)
            new_facts[position] = without_calls(known, superseded)
        changed.append(position)
    # the calls left name the messages that replaced those holding their results
    moved = {id(messages[position]): view[position] for position in changed}
    for position in changed:
        if new_facts[position].answered_in:
            new_facts[position] = with_answered_in(new_facts[position], moved)
    kept = list(compress(view, stays))
    return LayerOutcome(  # a message counts its overhead and its blocks
        kept,
        tokens + MESSAGE_OVERHEAD_TOKENS * (len(messages) - len(kept)),
        removed_tool_use_ids=tuple(superseded),
        messages_removed=len(messages) - len(kept),
        removed=([], removed),
        facts=list(compress(new_facts, stays)),
    )


def _blocks_taken(found: MessageFacts, left: MessageFacts) -> int:
    """How many tool blocks a message with facts `found` loses to have facts `left`."""
    return len(found.uses) + len(found.results) - len(left.uses) - len(left.results)


def without_blocks(
    message: dict[str, Any], found: MessageFacts, ids: Collection[str]
) -> dict[str, Any]:
    """`message` without the tool_use and tool_result blocks of the calls `ids` (by identity); some
    block must stay."""
    taken = {id(use) for use in found.uses if use.get("id") in ids}
    taken.update(id(result) for result in found.results if result.get("tool_use_id") in ids)
    return {**message, "content": [b for b in message["content"] if id(b) not in taken]}


def _name_calls(
    messages: Sequence[dict[str, Any]],
    found: Sequence[MessageFacts],
    superseded: Mapping[str, int],
    counter: TokenCounter,
) -> tuple[list[RemovedInteraction], int, dict[int, int]]:
    """The digest entries of the superseded calls, newest first, the tokens of their blocks, and how
    many blocks leave each message. Recorded entries are taken where the call's results are recorded
    as answered in the very next message."""
    removed: list[RemovedInteraction] = []
    tokens, taken, last = 0, Counter[int](), len(messages) - 1
    results = CallResults(found)
    for use_index in sorted(set(superseded.values()), reverse=True):
        use_facts = found[use_index]
        answered = use_facts.answered_in
        if (
            use_index < last
            and len(answered) == 1
            and answered[0] is messages[use_index + 1]
            and use_facts.in_order
        ):
            for entry in use_facts.in_order:  # every call's entry, newest first
                if superseded.get(entry.tool_use_id) == use_index:
                    removed.append(entry)
                    tokens += call_tokens(entry, counter)
                    taken[use_index] += 1
                    taken[use_index + 1] += 1
            continue
        for use in reversed(use_facts.uses):
            tool_id = use.get("id")
            if superseded.get(tool_id) == use_index:
                result = results.after(use_index, tool_id)  # (a valid view answers every call)
                removed.append(entry := removed_call(use, tool_id, use_facts, result))
                tokens += call_tokens(entry, counter)
                taken[use_index] += 1
                if result is not None:
                    taken[result[0]] += 1
    return removed, tokens, taken


def dedup_file_reads(
    messages: Sequence[dict[str, Any]],
    policy: CompactionPolicy | None = None,
    counter: TokenCounter | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """L2: drop older reads of the same file; (new view, tokens saved). Raises ToolProtocolError for
    an invalid history."""
    return run_layer_alone(build_dedup_outcome, messages, policy, counter)
