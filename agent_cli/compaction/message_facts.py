"""The facts of one message: what the layers and the digest read of it, found once.

Contract: `build_message_facts(message, counter)` gives a message's `MessageFacts` (its
user texts, tool blocks, pointer and largest result); `note_calls` adds, for the calls
answered among a batch of messages, the digest entry each would leave (its line and the
tokens of its blocks counted ahead where L1 leaves its result whole), and for a message
whose calls were all answered, those entries in order and the messages holding their
results. The view's index records them
(`view_index`) and a compaction run carries them beside the view, one per message
(`LayerOutcome.facts`). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from agent_cli.compaction.digest.entries import sequence_of
from agent_cli.compaction.digest.removed_items import (
    RemovedInteraction,
    RemovedRequest,
    count_line,
    describe_interaction,
    whole_request_line,
    with_pointer,
)
from agent_cli.compaction.markers import SOURCE_KEY, is_digest_message, is_summary_message
from agent_cli.compaction.policy import CompactionPolicy, ReadRule
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.tokens import TokenCounter

Message = dict[str, Any]
COUNTED_REQUEST_CHARS = 4_000  # the longest user text whose digest line is counted ahead


class MessageFacts(NamedTuple):
    """What compaction reads of one message (module doc). A tuple: a view has thousands."""

    texts: tuple[str, ...]
    uses: tuple[dict[str, Any], ...]
    results: tuple[dict[str, Any], ...]
    pointer: str | None
    # tokens of its largest tool_result (None: built without a counter); once a removal
    # took some results out (`without_calls`), a bound on those left
    largest_result: int | None
    calls: dict[str, RemovedInteraction] | None = None
    reads: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (id, read key), under `read_rule`
    read_rule: ReadRule | None = None  # None: `reads` not found (messages with calls)
    # every call's entry, newest first, and the messages that hold their results: a
    # removal that takes both takes these as they are (`what_left.collect_changed`)
    in_order: tuple[RemovedInteraction, ...] = ()
    answered_in: tuple[Message, ...] = ()
    cut: CutFacts | None = None  # L1's cut of a frozen message (`view_index.record_facts`)
    # L2's removal of every file read a frozen message makes (its read tool_uses) or
    # answers (their results), not both: the smaller message (frozen) and its facts
    # (`view_index.record_facts`)
    without_reads: tuple[Message, MessageFacts] | None = None
    # its texts as the digest takes them when they leave, each line counted
    # (`note_requests`; () when not recorded)
    requests: tuple[RemovedRequest, ...] = ()


NO_CALLS = tuple(MessageFacts._field_defaults.values())  # the fields after `largest_result`
_ANSWERED_IN = MessageFacts._fields.index("answered_in")


class CutFacts(NamedTuple):
    """What L1 makes of one message: the per-result budget it was cut to and the secret
    forms its cuts keep whole (a run under others cuts again), the smaller message
    (frozen, so every run may share it), how many results it cut, the tokens that saves,
    and the smaller message's facts. When every call of one earlier message (its caller)
    is answered in this one: how many messages back the caller stands (`caller_back`, 0
    without one), its facts, and its facts after the cut (`with_caller_after_cut`), which
    L1 puts in their place."""

    budget: int
    secrets: SecretForms
    message: Message
    results_cut: int
    saved: int
    facts: MessageFacts
    caller_back: int = 0
    caller_before: MessageFacts | None = None
    caller_after: MessageFacts | None = None


def user_texts(message: Message) -> Iterator[str]:
    """The texts a user message carries (string content or text blocks), non-blank only."""
    if message.get("role") != "user" or is_summary_message(message) or is_digest_message(message):
        return
    content = message.get("content")
    if isinstance(content, str):
        if content.strip():
            yield content
        return
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str) and text.strip():
                yield text


def build_message_facts(message: Message, counter: TokenCounter | None) -> MessageFacts:
    """The facts of one message (module doc); `calls` are added by `note_calls`."""
    pointer = message.get(SOURCE_KEY)
    pointer = pointer if isinstance(pointer, str) and pointer else None
    texts = tuple(user_texts(message)) if message.get("role") == "user" else ()
    content = message.get("content")
    if not isinstance(content, list):
        return MessageFacts(texts, (), (), pointer, 0)
    uses, results = [], []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "tool_use":
            uses.append(block)
        elif kind == "tool_result":
            results.append(block)
    largest = None if counter is None else 0
    if counter is not None and results:
        largest = max(map(counter.count_result_content, results))
    return MessageFacts(texts, tuple(uses), tuple(results), pointer, largest)


def build_view_facts(
    messages: Sequence[Message], counter: TokenCounter | None
) -> list[MessageFacts]:
    """The facts of each message of a view no index followed (no recorded call entries)."""
    return [build_message_facts(message, counter) for message in messages]


def without_calls(
    found: MessageFacts, ids: Collection[str], moved: Mapping[int, Message] | None = None
) -> MessageFacts:
    """The facts of a message once the tool_use and tool_result blocks of the calls `ids`
    are taken out (`dedup.without_blocks`), from its facts `found`: the same texts and
    pointer; the calls, reads, entries and results left; `largest_result` as it was (a
    bound on the results left, which is all L1 asks of it). The calls left keep their
    recorded entries in order, and the messages holding their results (`answered_in`)
    are named through `moved` (id of a message -> what replaced it in the view), so a
    later removal still takes those entries as they are."""
    results = found.results
    if results:
        results = tuple(block for block in results if block.get("tool_use_id") not in ids)
    uses = found.uses and tuple(use for use in found.uses if use.get("id") not in ids)
    if not uses:  # (the usual case: all of them; a tuple made in C, a view has thousands)
        return tuple.__new__(
            MessageFacts,
            (
                found.texts,
                (),
                results,
                found.pointer,
                found.largest_result,
                *NO_CALLS[:-1],
                found.requests,
            ),
        )
    calls, answered_in = found.calls, found.answered_in
    if moved:
        answered_in = tuple(moved.get(id(message), message) for message in answered_in)
    return tuple.__new__(
        MessageFacts,
        (
            found.texts,
            uses,
            results,
            found.pointer,
            found.largest_result,
            None if calls is None else {k: v for k, v in calls.items() if k not in ids},
            tuple(read for read in found.reads if read[0] not in ids),
            found.read_rule,
            tuple(entry for entry in found.in_order if entry.tool_use_id not in ids),
            answered_in,
            None,
            None,
            found.requests,
        ),
    )


def note_calls(
    facts: list[MessageFacts],
    messages: Sequence[Message],
    start: int,
    interactions: Mapping[str, tuple[int, int]],
    counter: TokenCounter,
    policy: CompactionPolicy,
) -> None:
    """Write the digest entry of each call in `interactions` (id -> indices of its
    tool_use and tool_result messages; `facts[i]` is message `start + i`) into its
    call's message's facts: both blocks, the pointer (the result's message's, else the
    call's) and the line, counted as the digest shows it, and the tokens of its two
    blocks. A compaction that later removes the call takes the entry as it is, the line
    already counted, and what removing it saves without counting again. A call whose
    result is over `policy`'s per-result budget gets its entry uncounted: L1 cuts that
    result first, so the entry a removal takes is the one written for the cut
    (`with_caller_after_cut`), else described when it leaves. Each call's message also
    gets its entries in order (`in_order`) and `answered_in`."""
    budget, secrets = policy.max_tool_result_tokens, policy.secret_forms
    results = {block.get("tool_use_id"): block for found in facts for block in found.results}
    for at, found in enumerate(facts):
        calls: dict[str, RemovedInteraction] = {}
        answered: dict[int, Message] = {}
        for use in found.uses:
            tool_id = use.get("id")
            if not isinstance(tool_id, str) or (where := interactions.get(tool_id)) is None:
                continue
            result, holder = results[tool_id], where[1] - start
            pointer = facts[holder].pointer or found.pointer
            entry = RemovedInteraction(
                tool_id, use, result, pointer, "", None, sequence_of(pointer)
            )
            if counter.count_result_content(result) <= budget:
                blocks = counter.count_block(use) + counter.count_block(result)
                entry = _with_counted_line(entry._replace(block_tokens=blocks), counter, secrets)
            calls[tool_id] = entry
            answered[id(messages[holder])] = messages[holder]
        if calls:  # a valid view answers every call of a message
            in_order = tuple(calls[use["id"]] for use in reversed(found.uses))
            facts[at] = found._replace(
                calls=calls, in_order=in_order, answered_in=tuple(answered.values())
            )


def note_requests(found: MessageFacts, counter: TokenCounter) -> MessageFacts:
    """`found` with its texts as the digest's entries when they leave (`requests`), each
    line counted as the digest counts it shown whole, so a removal takes them as they are;
    a text over `COUNTED_REQUEST_CHARS` is left uncounted (a paste the digest will shorten
    anyway: counting it twice on every such turn would cost more than it saves). Each
    entry carries its pointer's record number."""
    number = sequence_of(found.pointer)
    return found._replace(
        requests=tuple(
            RemovedRequest(
                text,
                found.pointer,
                None
                if len(text) > COUNTED_REQUEST_CHARS
                else (counter, count_line(whole_request_line(text), counter)),
                number,
            )
            for text in found.texts
        )
    )


def with_caller_after_cut(
    caller: MessageFacts,
    answered_in: Message,
    cut: CutFacts,
    counter: TokenCounter,
    secrets: SecretForms = NO_SECRETS,
) -> MessageFacts | None:
    """The facts of a message whose calls `note_calls` recorded (`caller`) after L1 cut
    `answered_in`, the message answering all of them, to `cut`: each call's entry written
    with its result in the cut message (the line and both blocks counted), and
    `answered_in` naming the cut message, so a removal after L1 takes them as they are.
    None when its calls are not all answered in `answered_in`."""
    if not caller.in_order or caller.answered_in != (answered_in,) or caller.calls is None:
        return None
    calls = dict(caller.calls)
    for block in cut.facts.results:
        tool_id = block.get("tool_use_id")
        entry = calls.get(tool_id) if isinstance(tool_id, str) else None
        if entry is None or entry.result is block or not isinstance(tool_id, str):
            continue
        blocks = counter.count_block(entry.use) + counter.count_block(block)
        cut_entry = entry._replace(result=block, block_tokens=blocks)
        calls[tool_id] = _with_counted_line(cut_entry, counter, secrets)
    in_order = tuple(calls[entry.tool_use_id] for entry in caller.in_order)
    after = caller._replace(calls=calls, in_order=in_order, answered_in=(cut.message,))
    if caller.without_reads is None:
        return after
    smaller = caller.without_reads[0]  # (L1 leaves a call's message as it is)
    left = without_calls(after, {tool_id for tool_id, _ in after.reads})
    return after._replace(without_reads=(smaller, left))


def with_answered_in(found: MessageFacts, moved: Mapping[int, Message]) -> MessageFacts:
    """`found` with the messages that hold its calls' results (`answered_in`) named
    through `moved` (id of a message -> what replaced it in the view)."""
    fields = list(found)  # (a tuple made in C: L2 may name thousands)
    fields[_ANSWERED_IN] = tuple([moved.get(id(message), message) for message in found.answered_in])
    return tuple.__new__(MessageFacts, fields)


def _with_counted_line(
    entry: RemovedInteraction, counter: TokenCounter, secrets: SecretForms
) -> RemovedInteraction:
    """`entry` with its digest line written from its blocks and counted as the digest
    counts it (with its pointer), so a removal takes both as they are."""
    line = describe_interaction(entry.use, entry.result, secrets)
    tokens = count_line(with_pointer(line, entry.pointer), counter)
    return entry._replace(line=line, counted=(counter, tokens))
