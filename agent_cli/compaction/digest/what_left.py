"""What a layer took out of a view: the user's words and the interactions, with pointers.

Contract: `collect_removed(before, after)` compares two views of one layer step (neither
holding the digest) and returns the user texts and the tool interactions that are in
`before` but no longer in `after`, newest first. Only messages that changed are visited:
layers share every message they keep, so a message of `before` that is still in `after`
(same object) lost nothing, and a message a layer rebuilt (fewer blocks) keeps its text,
which is matched against what came back. Pointers come from the private `SOURCE_KEY`
the session attaches to each message it recorded (`transcript:<session>:<sequence>`);
a message without one gives an entry without a pointer. A layer that knows what it
changed calls `collect_changed` (L3) or names its calls with `removed_call` (L2). Pure.
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
    """The user texts and interactions of `before` missing from `after`, newest first.
    `facts`, those of each message of `before`, spare rescanning its blocks."""
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
    """`collect_removed` for a layer that knows what changed: `gone` are the messages of
    its view that are not in the new one (in view order) and `gone_facts` theirs,
    `came_facts` those of the new ones (rebuilt messages, in view order). Both views are
    valid, so a call's result never stands before it: walking from the newest message
    back names the calls newest first. A message whose calls the per-turn check recorded
    in order (`MessageFacts.in_order`) and whose results' messages all left with it (the
    next one, where a session puts them, is looked at first) gives those entries as
    they are; any other call is matched with its result here. L3 runs
    this over every message it drops."""
    still_there = Counter(text for found in came_facts for text in found.texts)
    kept = {use.get("id") for found in came_facts for use in found.uses}
    requests: list[RequestEntry] = []
    interactions: list[RemovedInteraction] = []
    gone_ids = functools.cache(lambda: set(map(id, gone)))
    results = _Results(gone_facts)
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


class _Results:
    """The tool_result of a call among the messages that left, found after its call's
    message: in the next few (where a session puts it), else in a map of them all,
    built once, for the rare call whose result lies further (a valid view may answer a
    call later, or keep its result)."""

    NEAR = 8

    def __init__(self, facts: Sequence[MessageFacts]) -> None:
        self._facts = facts
        self._all: dict[Any, tuple[dict[str, Any], MessageFacts]] | None = None

    def after(self, position: int, tool_id: str) -> tuple[dict[str, Any], MessageFacts] | None:
        """The result of `tool_id` after `position`, with its message's facts, or None."""
        facts = self._facts
        for later in range(position + 1, min(position + 1 + self.NEAR, len(facts))):
            for result in facts[later].results:
                if result.get("tool_use_id") == tool_id:
                    return result, facts[later]
        if position + 1 + self.NEAR >= len(facts):  # every later one was searched
            return None
        if self._all is None:
            self._all = {r.get("tool_use_id"): (r, found) for found in facts for r in found.results}
        return self._all.get(tool_id)


def _add_calls(
    interactions: list[RemovedInteraction],
    found: MessageFacts,
    position: int,
    kept: set[Any],
    results: _Results,
) -> None:
    """Add the entries of the calls of the message at `position` of those that left
    (newest first), except those still in the view (`kept`), each with its result when
    that left too."""
    for use in reversed(found.uses):
        tool_id = use.get("id")
        if isinstance(tool_id, str) and tool_id not in kept:
            interactions.append(removed_call(use, tool_id, found, results.after(position, tool_id)))


def _add_lost_texts(
    requests: list[RequestEntry], found: MessageFacts, still_there: Counter[str]
) -> None:
    """Add the user texts of a message that left (newest first) to `requests`, except
    those a rebuilt message still holds (`still_there`, used up as they match)."""
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
    """The tokens of `entry`'s two blocks: as the entry carries them when it was made
    with its blocks counted (`RemovedInteraction.block_tokens`), else counted."""
    if entry.block_tokens is not None:
        return entry.block_tokens
    use = counter.count_block(entry.use)
    return use if entry.result is None else use + counter.count_block(entry.result)


def removed_call(
    use: dict[str, Any],
    tool_id: str,
    use_facts: MessageFacts,
    found: tuple[dict[str, Any], MessageFacts] | None,
) -> RemovedInteraction:
    """The entry of a removed call: its result and that result's message's facts (None
    when the result was not removed with it), the pointer of the result's message (else
    of the call's). The entry the call's facts hold is taken when it names these very
    blocks and pointer (its line then written and counted already)."""
    result, pointer = None, use_facts.pointer
    if found is not None:
        result, pointer = found[0], found[1].pointer or use_facts.pointer
    made = use_facts.calls.get(tool_id) if use_facts.calls else None
    if made is not None and made.use is use and made.result is result and made.pointer == pointer:
        return made
    return RemovedInteraction(tool_id, use, result, pointer, number=sequence_of(pointer))
