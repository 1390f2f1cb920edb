"""The facts of one message: what the layers and the digest read of it, found once.

Contract: `build_message_facts(message, counter)` gives a message's `MessageFacts` (its
user texts, tool blocks, pointer and largest result); `note_calls` adds, to a message
whose calls are all answered within a batch of messages and whose results L1 leaves
whole, the digest entry each call would leave (its line and the tokens of its blocks
counted), in order, and the messages holding their results; `with_caller_after_cut`
does the same for a message whose results L1's recorded cut holds. The view's index
records them (`view_index`) and a compaction run carries them beside the view, one per
message (`LayerOutcome.facts`). Pure: no I/O.
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
    """What compaction reads of one message (module doc)."""

    texts: tuple[str, ...]
    uses: tuple[dict[str, Any], ...]
    results: tuple[dict[str, Any], ...]
    pointer: str | None
    # tokens of its largest tool_result (None: built without a counter); once a removal
    # took some results out (`without_calls`), a bound on those left
    largest_result: int | None
    calls: dict[str, RemovedInteraction] | None = None  # each call's entry (`with_entries`)
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
    requests: tuple[RequestEntry, ...] = ()
    # the tokens of each of `results`, in order, as `largest_result` was found (() when
    # built without a counter): L1 reads what it cuts from, not a count again
    result_tokens: tuple[int, ...] = ()


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
    if counter is None:
        return MessageFacts(texts, tuple(uses), tuple(results), pointer, None)
    tokens = tuple(map(counter.count_result_content, results))
    largest = max(tokens, default=0)
    return MessageFacts(texts, tuple(uses), tuple(results), pointer, largest, result_tokens=tokens)


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
    pointer; the calls, reads, entries and results (with their counts) left;
    `largest_result` as it was (a bound on the results left, which is all L1 asks of
    it). The calls left keep their recorded entries in order, and the messages holding their results (`answered_in`)
    are named through `moved` (id of a message -> what replaced it in the view), so a
    later removal still takes those entries as they are."""
    results, tokens = found.results, found.result_tokens
    if results and tokens:
        kept = [i for i, block in enumerate(results) if block.get("tool_use_id") not in ids]
        results, tokens = tuple(results[i] for i in kept), tuple(tokens[i] for i in kept)
    elif results:
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
                *NO_CALLS[:-2],
                found.requests,
                tokens,
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
            tokens,
        ),
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
    """Write the digest entries of the calls of each message among `messages` whose calls
    are all answered in `interactions` (id -> indices of its tool_use and tool_result
    messages; `facts[i]` is message `start + i`) with results within `policy`'s
    per-result budget into its facts (`with_entries`). A message with a result over the
    budget gets none: L1 cuts that result first, so the entries a removal could take are
    those written for the cut (`with_caller_after_cut`), else written when they leave.
    `lines`: as `with_entries` takes it."""
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
    """`found` (a message's facts) with the digest entry of each of its calls (`answers`:
    each tool_use in the message's order, its tool_result and the pointer of the message
    holding that), and the messages holding them (`answered_in`). Each entry names both
    blocks and the pointer (the result's message's, else the call's), its line counted as
    the digest shows it where `lines` (else written when a digest keeps it) and, for a
    call of a tool named in `reads` (one L2 may take out, however old it is), the tokens
    of its two blocks, its line always counted: a compaction that later removes the call
    takes it as it is, without counting again. `in_order` holds them newest first."""
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
    """`found` with its texts as the digest's entries when they leave (`requests`), each
    line counted as the digest counts it shown whole (one over `COUNTED_REQUEST_CHARS`
    only where `long`), and with its heads as a refit cuts them under `secrets`
    (`removed_items.with_heads`), so a removal takes them as they are. Each entry
    carries its pointer's record number."""
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
    """The facts of a message (`caller`) after L1 cut the message answering all its calls
    to `cut`: each call's entry written with its result in the cut message
    (`with_entries`, `reads` and `lines` as there), and `answered_in` naming the cut
    message, so a removal after L1 takes them as they are. None when its calls are not
    all answered in the cut message."""
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
    """`found` with the messages that hold its calls' results (`answered_in`) named
    through `moved` (id of a message -> what replaced it in the view)."""
    fields = list(found)  # (a tuple made in C: L2 may name thousands)
    fields[_ANSWERED_IN] = tuple([moved.get(id(message), message) for message in found.answered_in])
    return tuple.__new__(MessageFacts, fields)


def _with_counted_line(entry: RemovedInteraction, counter: TokenCounter) -> RemovedInteraction:
    """`entry` with its digest line written from its blocks and counted as the digest
    counts it (with its pointer), so a removal takes both as they are."""
    line = describe_interaction(entry.use, entry.result)
    tokens = count_line(with_pointer(line, entry.pointer), counter)
    return entry._replace(line=line, counted=(counter, tokens))
