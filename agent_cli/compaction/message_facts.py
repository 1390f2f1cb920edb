"""The facts of one message that the layers and the digest read, found once. Pure.

`build_message_facts` finds a message's texts, tool blocks, pointer and largest result. The index
adds the digest entries of calls answered within a batch (`note_calls`, `with_entries`), of calls
answered in a message L1 cut (`with_caller_after_cut`), of user texts (`note_requests`), and L1's
and L2's recorded outcomes (`CutFacts`, `without_reads`). A run carries the facts beside its view,
one per message (`LayerOutcome.facts`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from agent_cli.compaction.digest.entries import sequence_of
from agent_cli.compaction.digest.removed_items import (
    SHORTEST_REQUEST_CHARS,
    RemovedInteraction,
    RequestEntry,
    count_line,
    describe_interaction,
    whole_request_line,
    with_heads,
    with_pointer,
)
from agent_cli.compaction.markers import SOURCE_KEY, is_digest_message, is_summary_message
from agent_cli.compaction.policy import CompactionPolicy, ReadRule
from agent_cli.secret_forms import SecretForms
from agent_cli.tokens import TokenCounter

Message = dict[str, Any]
COUNTED_REQUEST_CHARS = 4_000  # a longer user text's line is counted where a refit reaches


class MessageFacts(NamedTuple):
    texts: tuple[str, ...]
    uses: tuple[dict[str, Any], ...]
    results: tuple[dict[str, Any], ...]
    pointer: str | None
    largest_result: int | None  # None without a counter; a bound once results were taken out
    calls: dict[str, RemovedInteraction] | None = None  # each call's entry (`with_entries`)
    reads: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (id, read key), under `read_rule`
    read_rule: ReadRule | None = None  # None: `reads` not found (messages with calls)
    in_order: tuple[RemovedInteraction, ...] = ()  # every call's entry, newest first
    answered_in: tuple[Message, ...] = ()  # the messages holding their results
    cut: CutFacts | None = None  # L1's cut of a frozen message
    # what L2 makes of a frozen message when all its reads go (frozen), and its facts
    without_reads: tuple[Message, MessageFacts] | None = None
    requests: tuple[RequestEntry, ...] = ()  # its texts' digest entries (`note_requests`)
    result_tokens: tuple[int, ...] = ()  # each result's tokens (() without a counter)


_ANSWERED_IN = MessageFacts._fields.index("answered_in")


class CutFacts(NamedTuple):
    """What L1 makes of one message under `budget` and `secrets` (a run under others cuts again):
    the smaller message (frozen), how many results it cut, the tokens saved, its facts. When every
    call of one earlier message is answered here: how far back it stands (`caller_back`, 0 without
    one) and its facts before and after the cut, which L1 puts in their place."""

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
    """The non-blank texts of a user message (string content or text blocks); none for the summary
    or the digest."""
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
    """The facts of one message; `largest_result` None without a counter."""
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
    if counter is None:
        return MessageFacts(texts, tuple(uses), tuple(results), pointer, None)
    tokens = tuple(map(counter.count_result_content, results))
    largest = max(tokens, default=0)
    return MessageFacts(texts, tuple(uses), tuple(results), pointer, largest, result_tokens=tokens)


def build_view_facts(
    messages: Sequence[Message], counter: TokenCounter | None
) -> list[MessageFacts]:
    return [build_message_facts(message, counter) for message in messages]


def without_calls(found: MessageFacts, ids: Collection[str]) -> MessageFacts:
    """The facts of a message once the calls `ids` are taken out (`dedup.without_blocks`): same
    texts and pointer, the calls, reads, entries and results left; `largest_result` kept as a bound."""
    kept = [i for i, block in enumerate(found.results) if block.get("tool_use_id") not in ids]
    tokens = found.result_tokens and tuple(found.result_tokens[i] for i in kept)
    uses = tuple(use for use in found.uses if use.get("id") not in ids)
    head = (found.texts, uses, tuple(found.results[i] for i in kept), found.pointer)
    if not uses:
        return MessageFacts(
            *head, found.largest_result, requests=found.requests, result_tokens=tokens
        )
    return MessageFacts(
        *head,
        found.largest_result,
        found.calls and {key: entry for key, entry in found.calls.items() if key not in ids},
        tuple(read for read in found.reads if read[0] not in ids),
        found.read_rule,
        tuple(entry for entry in found.in_order if entry.tool_use_id not in ids),
        found.answered_in,
        requests=found.requests,
        result_tokens=tokens,
    )


def note_calls(
    facts: list[MessageFacts],
    messages: Sequence[Message],
    start: int,
    interactions: Mapping[str, tuple[int, int]],
    counter: TokenCounter,
    policy: CompactionPolicy,
    lines: bool = True,
) -> None:
    """Give each message among `messages` whose calls are all answered in `interactions` (id ->
    indices of its tool_use and tool_result messages; `facts[i]` is message `start + i`) its calls'
    digest entries (`with_entries`). A message with a result over the per-result budget gets none:
    L1 cuts it first (`with_caller_after_cut`)."""
    budget, reads = policy.max_tool_result_tokens, policy.read_tool_names
    results = {block.get("tool_use_id"): block for found in facts for block in found.results}
    for at, found in enumerate(facts):
        answers: list[tuple[dict[str, Any], dict[str, Any], str | None]] = []
        holders: dict[int, Message] = {}
        for use in found.uses:
            tool_id = use.get("id")
            if not isinstance(tool_id, str) or (where := interactions.get(tool_id)) is None:
                break
            result = results[tool_id]
            if counter.count_result_content(result) > budget:
                break
            holder = where[1] - start
            answers.append((use, result, facts[holder].pointer))
            holders[holder] = messages[holder]
        else:
            if answers:
                answered_in = tuple(holders.values())
                facts[at] = with_entries(found, answers, answered_in, counter, reads, lines)


def with_entries(
    found: MessageFacts,
    answers: Sequence[tuple[dict[str, Any], dict[str, Any], str | None]],
    answered_in: tuple[Message, ...],
    counter: TokenCounter,
    reads: Collection[str],
    lines: bool = True,
) -> MessageFacts:
    """`found` with a digest entry per call (`answers`: tool_use, tool_result, pointer of the
    result's message), newest first in `in_order`, and the messages holding the results
    (`answered_in`). A line is counted where `lines`; a call of a tool in `reads` also carries its
    two blocks' tokens and is always counted."""
    calls: dict[str, RemovedInteraction] = {}
    for use, result, pointer in answers:
        pointer = pointer or found.pointer
        is_read = use.get("name") in reads
        blocks = counter.count_block(use) + counter.count_block(result) if is_read else None
        entry = RemovedInteraction(
            use["id"], use, result, pointer, "", None, sequence_of(pointer), blocks
        )
        calls[use["id"]] = _with_counted_line(entry, counter) if lines or is_read else entry
    in_order = tuple(reversed(calls.values()))
    return found._replace(calls=calls, in_order=in_order, answered_in=answered_in)


def note_requests(
    found: MessageFacts, counter: TokenCounter, secrets: SecretForms, long: bool = True
) -> MessageFacts:
    """`found` with its texts as the digest's request entries, each whole line counted (over
    `COUNTED_REQUEST_CHARS` only where `long`), with heads cut under `secrets` (`with_heads`)."""
    number, pointer, requests = sequence_of(found.pointer), found.pointer, []
    for text in found.texts:
        whole = None
        if long or len(text) <= COUNTED_REQUEST_CHARS:
            whole = (counter, count_line(whole_request_line(text), counter))
        entry = RequestEntry(text, pointer, None, whole, number)
        if len(text) > SHORTEST_REQUEST_CHARS:
            entry = with_heads(entry, counter, secrets)
        requests.append(entry)
    return found._replace(requests=tuple(requests))


def with_caller_after_cut(
    caller: MessageFacts,
    cut: CutFacts,
    counter: TokenCounter,
    reads: Collection[str],
    lines: bool = True,
) -> MessageFacts | None:
    """The facts of `caller` once L1 cut the message answering its calls to `cut`: entries written
    against the cut results, `answered_in` the cut message. None unless all its calls are answered
    there."""
    by_id = {block.get("tool_use_id"): block for block in cut.facts.results}
    answers = []
    for use in caller.uses:
        result = by_id.get(use.get("id"))
        if result is None:
            return None
        answers.append((use, result, cut.facts.pointer))
    after = with_entries(caller, answers, (cut.message,), counter, reads, lines)
    if caller.without_reads is None:
        return after
    smaller = caller.without_reads[0]  # (L1 leaves a call's message as it is)
    left = without_calls(after, {tool_id for tool_id, _ in after.reads})
    return after._replace(without_reads=(smaller, left))


def with_answered_in(found: MessageFacts, moved: Mapping[int, Message]) -> MessageFacts:
    """`found` with `answered_in` renamed through `moved` (id of a message -> its replacement)."""
    fields = list(found)
    fields[_ANSWERED_IN] = tuple([moved.get(id(message), message) for message in found.answered_in])
    return tuple.__new__(MessageFacts, fields)


def _with_counted_line(entry: RemovedInteraction, counter: TokenCounter) -> RemovedInteraction:
    """`entry` with its digest line written and counted with its pointer."""
    line = describe_interaction(entry.use, entry.result)
    tokens = count_line(with_pointer(line, entry.pointer), counter)
    return entry._replace(line=line, counted=(counter, tokens))
