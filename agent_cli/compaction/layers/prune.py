"""L3: keep the user's first message and the recent tail, drop what lies between.

Contract: message 0 and the last `keep_recent_messages` messages are kept, and always the step the
model is in: when the view ends with tool results, the message that made those calls too. An
interaction with a half outside what is kept leaves whole, text in a mixed message stays, and a
message left empty is dropped. The result starts with a user message (leading non-user messages go,
with their interactions). When message 0 is not the user's, the tail reaches back to the nearest
user message; a view with none is left as it is. Adjacent user messages are not merged (the API
joins them).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import Any, cast

from agent_cli.compaction.digest.entries import DigestLine, InteractionEntry, sequence_of
from agent_cli.compaction.digest.removed_items import (
    RemovedInteraction,
    RequestEntry,
    describe_answer,
)
from agent_cli.compaction.digest.what_left import collect_changed
from agent_cli.compaction.markers import SOURCE_KEY, is_acknowledgement
from agent_cli.compaction.message_facts import MessageFacts, build_message_facts, build_view_facts
from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.compaction.results import NO_CHANGE, LayerOutcome, measure_savings, run_layer_alone
from agent_cli.protocol import collect_tool_ids, remove_tool_interactions
from agent_cli.tokens import TokenCounter


def _drop_leading_non_user(view: list[dict[str, Any]]) -> list[dict[str, Any]]:
    while view and view[0].get("role") != "user":
        ids = collect_tool_ids(view[:1], "tool_use") + collect_tool_ids(view[:1], "tool_result")
        view = remove_tool_interactions(view[1:], ids)
    return view


def _step_in_progress_start(messages: Sequence[dict[str, Any]], tail_start: int) -> int:
    """`tail_start`, moved back to the message whose calls the last message answers."""
    count = len(messages)
    if count >= 3 and collect_tool_ids(messages[-1:], "tool_result"):
        return min(tail_start, count - 2)
    return tail_start


def _last_user_index(messages: Sequence[dict[str, Any]], at_most: int) -> int:
    """The last user message at or before `at_most`, else `at_most`."""
    for index in range(min(at_most, len(messages) - 1), -1, -1):
        if messages[index].get("role") == "user":
            return index
    return at_most


def _collect_dropped(
    messages: Sequence[dict[str, Any]],
    facts: Sequence[MessageFacts],
    view: Sequence[dict[str, Any]],
    view_facts: Sequence[MessageFacts],
    ends: tuple[int, int],
) -> tuple[list[RequestEntry], list[RemovedInteraction]]:
    """`collect_removed(messages, view, facts)` for a view that kept only the first `ends[0]`
    messages and those from `ends[1]` on."""
    head, tail_start = ends
    in_view = set(map(id, view))
    gone, gone_facts = list(messages[head:tail_start]), list(facts[head:tail_start])
    if not in_view.isdisjoint(map(id, gone)):
        pairs = [pair for pair in zip(gone, gone_facts, strict=True) if id(pair[0]) not in in_view]
        gone, gone_facts = [message for message, _ in pairs], [found for _, found in pairs]
    at_ends = [*range(head), *range(tail_start, len(messages))]
    head_gone = [i for i in at_ends[:head] if id(messages[i]) not in in_view]
    tail_gone = [i for i in at_ends[head:] if id(messages[i]) not in in_view]
    gone = [*(messages[i] for i in head_gone), *gone, *(messages[i] for i in tail_gone)]
    gone_facts = [*(facts[i] for i in head_gone), *gone_facts, *(facts[i] for i in tail_gone)]
    kept_ids = {id(messages[i]) for i in at_ends}
    came_facts = [
        found
        for message, found in zip(view, view_facts, strict=True)
        if id(message) not in kept_ids
    ]
    return collect_changed(gone, gone_facts, came_facts) if gone else ([], [])


def answer_entries(dropped: Sequence[dict[str, Any]]) -> list[InteractionEntry]:
    """A digest line per model answer among `dropped`, newest first, with its pointer; L4's
    acknowledgement is no answer."""
    entries = []
    for message in reversed(dropped):
        if message.get("role") != "assistant" or is_acknowledgement(message):
            continue
        text = answer_text(message)
        if text.strip():
            pointer = message.get(SOURCE_KEY)
            pointer = pointer if isinstance(pointer, str) and pointer else None
            entries.append(InteractionEntry(describe_answer(text), pointer, sequence_of(pointer)))
    return entries


def answer_text(message: dict[str, Any]) -> str:
    """An assistant message's string content, or its text blocks joined."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    blocks = content if isinstance(content, list) else ()
    texts = [b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
    return "\n".join(text for text in texts if isinstance(text, str))


def with_answers(
    interactions: Sequence[DigestLine], answers: list[InteractionEntry]
) -> list[DigestLine]:
    """Both, newest first by record number when every entry has one; else the answers after the
    calls."""
    merged: list[DigestLine] = [*interactions, *answers]
    if not answers or any(entry.number is None for entry in merged):
        return merged
    return sorted(merged, key=lambda entry: cast(int, entry.number), reverse=True)


def build_prune_outcome(
    messages: Sequence[dict[str, Any]],
    policy: CompactionPolicy,
    counter: TokenCounter,
    view_tokens: int | None = None,
    facts: Sequence[MessageFacts] | None = None,
    *,
    name_answers: bool = False,
) -> LayerOutcome:
    """Apply L3 to a valid view (`view_tokens`: its count, if known; `facts`: those of each
    message), with what left for the digest. `name_answers`: each dropped model answer gets a digest
    line too."""
    count = len(messages)
    tail_start = max(count - policy.keep_recent_messages, 1)
    tail_start = _step_in_progress_start(messages, tail_start)
    starts_with_user = count > 0 and messages[0].get("role") == "user"
    found = build_view_facts(messages, counter) if facts is None else facts
    if count == 0 or (tail_start == 1 and starts_with_user):
        return LayerOutcome(list(messages), 0, outcome=NO_CHANGE, facts=list(found))
    if not starts_with_user:  # no user intent at 0: reach back to a user message instead
        tail_start = _last_user_index(messages, tail_start)
    head = 1 if starts_with_user else 0
    kept = [*messages[:head], *messages[tail_start:]]
    uses, results = collect_tool_ids(kept, "tool_use"), collect_tool_ids(kept, "tool_result")
    crossing = set(uses).symmetric_difference(results)
    view = _drop_leading_non_user(remove_tool_interactions(kept, crossing))
    if not view:  # nothing would start with a user message: emptying the view helps no one
        return LayerOutcome(list(messages), 0, outcome=NO_CHANGE, facts=list(found))
    kept_facts = [*found[:head], *found[tail_start:]]
    known = dict(zip(map(id, kept), kept_facts, strict=True))
    view_facts = [
        known[id(message)] if id(message) in known else build_message_facts(message, counter)
        for message in view
    ]
    requests, calls = _collect_dropped(messages, found, view, view_facts, (head, tail_start))
    # oldest first; each once, as a valid view holds each call once
    removed_ids = tuple(map(attrgetter("tool_use_id"), reversed(calls)))
    lines: Sequence[DigestLine] = calls
    if name_answers:
        in_view = set(map(id, view))
        dropped = [m for m in messages[head:tail_start] if id(m) not in in_view]
        lines = with_answers(calls, answer_entries(dropped))
    return LayerOutcome(
        view,
        measure_savings(messages, view, counter, view_tokens),
        removed_tool_use_ids=removed_ids,
        messages_removed=count - len(view),
        removed=(requests, lines),
        facts=view_facts,
    )


def prune_old_messages(
    messages: Sequence[dict[str, Any]],
    policy: CompactionPolicy | None = None,
    counter: TokenCounter | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """L3: keep message 0 and the recent tail; (new view, tokens saved). Raises ToolProtocolError
    for an invalid history."""
    return run_layer_alone(build_prune_outcome, messages, policy, counter)
