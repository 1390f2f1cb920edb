"""What a layer took out of a view: the user's words and the interactions, with pointers.

Contract: `collect_removed(before, after)` compares two views of one layer step (neither
holding the digest) and returns the user texts and the tool interactions that are in
`before` but no longer in `after`, newest first. Only messages that changed are visited:
layers share every message they keep, so a message of `before` that is still in `after`
(same object) lost nothing, and a message a layer rebuilt (fewer blocks) keeps its text,
which is matched against what came back. Pointers come from the private `SOURCE_KEY`
the session attaches to each message it recorded (`transcript:<session>:<sequence>`);
a message without one gives an entry without a pointer. Blocks are read from the run's
message facts (`facts`) when given, so a long removal does not rescan them; a layer that
knows what it changed says so (`collect_changed`, `collect_removed_calls`) and gets the
same entries without the two views being compared. Pure: no I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from agent_cli.compaction.facts import FactsIndex, MessageFacts, user_texts
from agent_cli.compaction.lines import (
    KEY_INPUTS,
    describe_interaction,
    describe_key_input,
    result_size,
)
from agent_cli.protocol import Interaction

__all__ = [  # the line writers live in `lines`; their names stay importable from here
    "KEY_INPUTS",
    "RemovedInteraction",
    "RemovedRequest",
    "collect_changed",
    "collect_removed",
    "collect_removed_calls",
    "describe_interaction",
    "describe_key_input",
    "result_size",
    "user_texts",
]


class RemovedRequest(NamedTuple):
    """A user text that left the view, with the record it came from."""

    text: str
    pointer: str | None


class RemovedInteraction(NamedTuple):
    """One tool call (both halves) that left the view, with its pointer. Its line is
    written only when asked (`describe`): most of a long removal folds into a range.
    (Tuples, not dataclasses: a long removal makes thousands of them.)"""

    tool_use_id: str
    use: dict[str, Any]
    result: dict[str, Any] | None
    pointer: str | None
    line: str | None = None  # written already (`facts`), else written by `describe`

    def describe(self) -> str:
        return self.line if self.line is not None else describe_interaction(self.use, self.result)


def collect_removed(
    before: Sequence[dict[str, Any]],
    after: Sequence[dict[str, Any]],
    facts: FactsIndex | None = None,
) -> tuple[list[RemovedRequest], list[RemovedInteraction]]:
    """The user texts and interactions of `before` missing from `after`, newest first.
    `facts` (the run's index) spares rescanning the blocks of messages it knows."""
    after_ids = set(map(id, after))
    gone = [message for message in before if id(message) not in after_ids]
    if not gone:
        return [], []
    before_ids = set(map(id, before))
    came = [message for message in after if id(message) not in before_ids]
    return collect_changed(gone, came, facts)


def collect_changed(
    gone: Sequence[dict[str, Any]],
    came: Sequence[dict[str, Any]],
    facts: FactsIndex | None = None,
) -> tuple[list[RemovedRequest], list[RemovedInteraction]]:
    """`collect_removed` for a layer that knows what changed: `gone` are the messages of
    its view that are not in the new one (in view order), `came` the new ones (rebuilt
    messages, in view order). Both views are valid, so a call's result never stands
    before it: one pass from the newest message back meets each result before its call.
    One plain loop: L3 runs it over every message it drops."""
    facts_of = (FactsIndex(None) if facts is None else facts).of
    still_there = Counter(text for message in came for text in facts_of(message).texts)
    kept = {use.get("id") for message in came for use in facts_of(message).uses}
    requests: list[RemovedRequest] = []
    interactions: list[RemovedInteraction] = []
    add, new = interactions.append, tuple.__new__
    results: dict[Any, tuple[dict[str, Any], MessageFacts]] = {}
    for message in reversed(gone):
        found = facts_of(message)
        for result in found.results:
            results[result.get("tool_use_id")] = (result, found)
        for use in reversed(found.uses):
            tool_id = use.get("id")
            if isinstance(tool_id, str) and tool_id not in kept:
                add(new(RemovedInteraction, _interaction_parts(use, tool_id, found, results)))
        for text in reversed(found.texts):  # rebuilt messages keep their texts: matched
            if still_there[text] > 0:
                still_there[text] -= 1
            else:
                requests.append(RemovedRequest(text, found.pointer))
    return requests, interactions


def collect_removed_calls(
    messages: Sequence[dict[str, Any]],
    located: Mapping[str, Interaction],
    facts: FactsIndex | None = None,
) -> list[RemovedInteraction]:
    """`collect_removed` for a step that removed exactly the calls `located` (id -> the
    indices in `messages` of its tool_use and tool_result messages) and no user text
    (L2: it drops tool blocks, and only messages they leave empty): the same entries in
    the same order, newest call first, found from where they are instead of by comparing
    the two views."""
    facts_of = (FactsIndex(None) if facts is None else facts).of
    removed: list[RemovedInteraction] = []
    for index in sorted({where.tool_use_message for where in located.values()}, reverse=True):
        use_facts = facts_of(messages[index])
        for use in reversed(use_facts.uses):
            where = located.get(use.get("id"))
            if where is None or where.tool_use_message != index:
                continue
            tool_id: str = use["id"]
            result_facts = facts_of(messages[where.tool_result_message])
            results = {
                result.get("tool_use_id"): (result, result_facts) for result in result_facts.results
            }
            parts = _interaction_parts(use, tool_id, use_facts, results)
            removed.append(RemovedInteraction(*parts))
    return removed


def _interaction_parts(
    use: dict[str, Any],
    tool_id: str,
    use_facts: MessageFacts,
    results: dict[Any, tuple[dict[str, Any], MessageFacts]],
) -> tuple[str, dict[str, Any], dict[str, Any] | None, str | None, str | None]:
    """A removed call's fields: its result (None when it was not removed with it), the
    pointer of the result's message (else of the call's) and the line its facts hold
    for that very tool_use block (None: `describe` writes it)."""
    found = results.get(tool_id)
    if found is None:
        return tool_id, use, None, use_facts.pointer, None
    result, result_facts = found
    written = result_facts.lines.get(tool_id) if result_facts.lines else None
    line = written[1] if written is not None and written[0] is use else None
    return tool_id, use, result, result_facts.pointer or use_facts.pointer, line
