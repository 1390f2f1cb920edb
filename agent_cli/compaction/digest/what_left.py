"""What a layer step took out of a view: user texts and interactions, with pointers.

Contract: `collect_removed(before, after)` (neither holding the digest) returns the user texts and
tool interactions of `before` missing from `after`, newest first. Layers share what they keep, so
only messages that changed are visited; a rebuilt message keeps its texts. Pointers come from each
message's `SOURCE_KEY`. Pure.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from typing import Any

from agent_cli.compaction.digest.entries import sequence_of
from agent_cli.compaction.digest.removed_items import (
    RemovedInteraction,
    RequestEntry,
)
from agent_cli.compaction.message_facts import MessageFacts, build_view_facts
from agent_cli.tokens import TokenCounter


def collect_removed(
    before: Sequence[dict[str, Any]],
    after: Sequence[dict[str, Any]],
    facts: Sequence[MessageFacts] | None = None,
) -> tuple[list[RequestEntry], list[RemovedInteraction]]:
    """The user texts and interactions of `before` missing from `after`, newest first (`facts`:
    those of `before`)."""
    after_ids = set(map(id, after))
    gone = [position for position, message in enumerate(before) if id(message) not in after_ids]
    if not gone:
        return [], []
    before_ids = set(map(id, before))
    came = [message for message in after if id(message) not in before_ids]
    gone_facts = (
        build_view_facts([before[i] for i in gone], None)
        if facts is None
        else [facts[i] for i in gone]
    )
    return collect_changed([before[i] for i in gone], gone_facts, build_view_facts(came, None))


def collect_changed(
    gone: Sequence[dict[str, Any]],
    gone_facts: Sequence[MessageFacts],
    came_facts: Sequence[MessageFacts],
) -> tuple[list[RequestEntry], list[RemovedInteraction]]:
    """`collect_removed` for a layer that knows what changed: `gone` (in view order) and their
    facts, and the facts of the messages that came. Recorded entries (`in_order`) are taken where
    every result's message left too."""
    still_there = Counter(text for found in came_facts for text in found.texts)
    kept = {use.get("id") for found in came_facts for use in found.uses}
    requests: list[RequestEntry] = []
    interactions: list[RemovedInteraction] = []
    gone_ids = functools.cache(lambda: set(map(id, gone)))
    results = CallResults(gone_facts)
    last = len(gone) - 1
    for position in range(last, -1, -1):
        found = gone_facts[position]
        if found.uses:
            answered = found.answered_in  # the messages holding its calls' results
            recorded = found.in_order and (not kept or kept.isdisjoint(found.calls or ()))
            if recorded and (
                (len(answered) == 1 and position < last and answered[0] is gone[position + 1])
                or gone_ids().issuperset(map(id, answered))
            ):
                interactions.extend(found.in_order)  # every call left whole, as recorded
            else:
                _add_calls(interactions, found, position, kept, results)
        if found.texts:
            _add_lost_texts(requests, found, still_there)
    return requests, interactions


Found = tuple[int, dict[str, Any], MessageFacts]  # (position, tool_result, its message's facts)


class CallResults:
    """A call's tool_result among the messages of `facts` (mapped when first asked)."""

    def __init__(self, facts: Sequence[MessageFacts]) -> None:
        self._facts = facts
        self._all: dict[Any, Found] | None = None

    def after(self, position: int, tool_id: str) -> Found | None:
        """The result of `tool_id` after `position`, or None."""
        if self._all is None:
            self._all = {
                r.get("tool_use_id"): (at, r, f)
                for at, f in enumerate(self._facts)
                for r in f.results
            }
        found = self._all.get(tool_id)
        return found if found is not None and found[0] > position else None


def _add_calls(
    interactions: list[RemovedInteraction],
    found: MessageFacts,
    position: int,
    kept: set[Any],
    results: CallResults,
) -> None:
    """Add the entries of a message's calls not in `kept`, newest first."""
    for use in reversed(found.uses):
        tool_id = use.get("id")
        if isinstance(tool_id, str) and tool_id not in kept:
            interactions.append(removed_call(use, tool_id, found, results.after(position, tool_id)))


def _add_lost_texts(
    requests: list[RequestEntry], found: MessageFacts, still_there: Counter[str]
) -> None:
    """Add the texts of a message that left, newest first, except those `still_there` (used up as
    matched)."""
    texts, recorded = found.texts, found.requests  # (the same texts, counted: `note_requests`)
    if recorded and not still_there:  # (the usual case: no rebuilt message holds a text)
        requests.extend(reversed(recorded))
        return
    for index in range(len(texts) - 1, -1, -1):
        if still_there[texts[index]] > 0:
            still_there[texts[index]] -= 1
        else:
            requests.append(
                recorded[index]
                if recorded
                else RequestEntry(
                    texts[index], found.pointer, None, None, sequence_of(found.pointer)
                )
            )


def call_tokens(entry: RemovedInteraction, counter: TokenCounter) -> int:
    """The tokens of `entry`'s two blocks: as carried, else counted."""
    if entry.block_tokens is not None:
        return entry.block_tokens
    use = counter.count_block(entry.use)
    return use if entry.result is None else use + counter.count_block(entry.result)


def removed_call(
    use: dict[str, Any],
    tool_id: str,
    use_facts: MessageFacts,
    found: Found | None,
) -> RemovedInteraction:
    """The entry of a removed call (`found`: its result, None when the result stayed); its recorded
    entry when that names these very blocks and pointer."""
    result, pointer = None, use_facts.pointer
    if found is not None:
        result, pointer = found[1], found[2].pointer or use_facts.pointer
    made = use_facts.calls.get(tool_id) if use_facts.calls else None
    if made is not None and made.use is use and made.result is result and made.pointer == pointer:
        return made
    return RemovedInteraction(tool_id, use, result, pointer, number=sequence_of(pointer))
