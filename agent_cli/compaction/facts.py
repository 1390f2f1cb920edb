"""Per-message facts: what the layers and the digest read of each message, found once.

Why: a full compaction of a long view visits every message several times (L1 looks for
large results, L2 for reads, L3 and the digest for the calls and user texts it drops).
Scanning blocks each time cost most of a run. The per-turn check (`view_memo`) already
visits each new message once; it records the message's facts there, so a compaction
reads them instead of rescanning.

Contract:
- `MessageFacts` of a message: its user texts (`user_texts`), its tool_use and tool_result
  blocks (dicts, in order), its `SOURCE_KEY` pointer, the tokens of its largest
  tool_result by the counter it was built with (None without one), and for its calls
  that were answered, the digest entry they would leave if removed (`calls`: tool_use
  id -> `RemovedInteraction`, with its line, already counted as the digest counts it)
  and the tokens of their two blocks (`call_tokens`); with the policy the per-turn check
  runs under, its file reads as L2 keys them (`reads`, for that `read_rule`). Facts
  are a function of the
  message's content (and, for `calls`, of the result blocks and pointer they name: a
  reader checks that those are still the ones it finds), never stale while it is
  unchanged.
- `FactsIndex.of(message)` gives the facts by identity: an entry recorded for that very
  object (each entry keeps the object, so its id cannot be reused while the entry lives)
  or, for any other message, facts built on the spot and kept for the index's lifetime
  (one compaction run). Recorded entries come from `view_memo`, for messages it has
  validated: a frozen message (`agent_cli.frozen`) cannot change, so its facts hold for
  good; a plain dict's are used only at the position where `view_memo` has just found
  it equal to its snapshot, so a dict changed in place is never read from a stale entry.
  `FactsIndex.largest_result` is the largest tool_result of the view it was built for.
- Memory: recorded facts live in `view_memo`'s few memos per counter, beside the
  snapshots they mirror, and go with them; an index lives for one run.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from agent_cli.compaction.digest_render import with_pointer
from agent_cli.compaction.lines import (
    RemovedInteraction,
    count_line,
    describe_interaction,
)
from agent_cli.compaction.markers import SOURCE_KEY, is_digest_message, is_summary_message
from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.compaction.read_keys import ReadRule, find_reads, read_rule
from agent_cli.frozen import is_frozen
from agent_cli.tokens import TokenCounter

Message = dict[str, Any]
KnownFacts = dict[int, tuple[Message, "MessageFacts"]]  # id -> (the message, its facts)


class MessageFacts(NamedTuple):
    """What compaction reads of one message (module doc). A tuple: a view has thousands."""

    texts: tuple[str, ...]
    uses: tuple[dict[str, Any], ...]
    results: tuple[dict[str, Any], ...]
    pointer: str | None
    largest_result: int | None
    calls: dict[str, RemovedInteraction] | None = None
    call_tokens: dict[str, int] | None = None  # both blocks of each of `calls`, counted
    reads: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (id, read key), under `read_rule`
    read_rule: ReadRule | None = None  # None: `reads` not found (messages with calls)
    # every call's entry, newest first, when all of them were answered (`calls`), and
    # the messages that hold their results: a removal that takes both takes these as
    # they are (`removed.collect_changed`)
    in_order: tuple[RemovedInteraction, ...] = ()
    answered_in: tuple[Message, ...] = ()


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
        largest = max(counter.count_content(block.get("content")) for block in results)
    return MessageFacts(texts, tuple(uses), tuple(results), pointer, largest)


def note_calls(
    facts: list[MessageFacts],
    messages: Sequence[Message],
    start: int,
    interactions: Mapping[str, tuple[int, int]],
    counter: TokenCounter,
) -> None:
    """Write the digest entry of each call in `interactions` (id -> indices of its
    tool_use and tool_result messages; `facts[i]` is message `start + i`) into its
    call's message's facts: both blocks, the pointer (the result's message's, else the
    call's) and the line, counted as the digest shows it; and the tokens of its two
    blocks. A compaction that later removes the call takes the entry as it is, the line
    already counted, and what removing it saves without counting again. A message whose
    calls were all answered also gets them in order (`in_order`, `answered_in`)."""
    answered: dict[int, list[Message]] = {}
    for tool_id, (use_index, result_index) in interactions.items():
        use_facts, result_facts = facts[use_index - start], facts[result_index - start]
        use = next(block for block in use_facts.uses if block.get("id") == tool_id)
        result = next(b for b in result_facts.results if b.get("tool_use_id") == tool_id)
        pointer = result_facts.pointer or use_facts.pointer
        line = describe_interaction(use, result)
        count_line(with_pointer(line, pointer), counter)
        if use_facts.calls is None or use_facts.call_tokens is None:
            use_facts = facts[use_index - start] = use_facts._replace(calls={}, call_tokens={})
        assert use_facts.calls is not None and use_facts.call_tokens is not None  # for mypy
        use_facts.calls[tool_id] = RemovedInteraction(tool_id, use, result, pointer, line)
        use_facts.call_tokens[tool_id] = counter.count_block(use) + counter.count_block(result)
        answered.setdefault(use_index - start, []).append(messages[result_index - start])
    for position, result_messages in answered.items():
        _note_order(facts, position, result_messages)


def _note_order(facts: list[MessageFacts], position: int, result_messages: list[Message]) -> None:
    """Set `in_order` and `answered_in` of `facts[position]` when every call is answered."""
    found = facts[position]
    calls = found.calls or {}
    if len(calls) != len(found.uses):
        return
    in_order = tuple(calls.get(use.get("id")) for use in reversed(found.uses))
    if None in in_order:
        return
    unique = tuple({id(message): message for message in result_messages}.values())
    facts[position] = found._replace(in_order=in_order, answered_in=unique)  # type: ignore[arg-type]


@dataclass
class RecordedFacts:
    """Facts recorded by the per-turn check for the messages of one view: frozen ones by
    identity (they cannot change), plain ones by position (index, message, facts), since
    a plain dict is known unchanged only where it was just compared with its snapshot;
    and the largest tool_result of the view (tokens), kept as messages are recorded."""

    frozen: KnownFacts = field(default_factory=dict)
    plain: list[tuple[int, Message, MessageFacts]] = field(default_factory=list)
    largest_result: int = 0


def record_facts(
    recorded: RecordedFacts,
    messages: Sequence[Message],
    start: int,
    interactions: Mapping[str, tuple[int, int]],
    counter: TokenCounter,
    policy: CompactionPolicy | None = None,
) -> None:
    """Build the facts of `messages` (message `start` of a view onwards, just validated;
    `interactions` are the calls answered among them) and record them; with the policy
    the check runs under, the reads L2 will compare too (`read_keys`)."""
    facts = [build_message_facts(message, counter) for message in messages]
    note_calls(facts, messages, start, interactions, counter)
    if policy is not None:
        rule = read_rule(policy)
        for index, found in enumerate(facts):
            if found.uses:
                reads = find_reads(found.uses, policy)
                facts[index] = found._replace(reads=reads, read_rule=rule)
    for index, (message, message_facts) in enumerate(zip(messages, facts, strict=True), start):
        recorded.largest_result = max(recorded.largest_result, message_facts.largest_result or 0)
        if is_frozen(message):
            recorded.frozen[id(message)] = (message, message_facts)
        else:
            recorded.plain.append((index, message, message_facts))


class FactsIndex:
    """Facts by message identity for one compaction run (module doc)."""

    def __init__(
        self,
        counter: TokenCounter | None,
        recorded: RecordedFacts | None = None,
        view: Sequence[Message] = (),
    ) -> None:
        """`recorded` facts are those of `view`; its plain messages are taken only where
        they still stand at the position they were recorded at (looked at on the first
        message the frozen entries do not answer, so a per-turn check pays nothing)."""
        self._counter = counter
        # the largest tool_result of `view`: no layer adds a result or makes one larger,
        # so it bounds every result of every view a run derives from `view` (None: unknown)
        self.largest_result = None if recorded is None else recorded.largest_result
        self._known: KnownFacts = {} if recorded is None else recorded.frozen
        self._made: KnownFacts | None = None
        self._plain = (recorded.plain, view) if recorded and recorded.plain else None
        self._digests: dict[int, tuple[Message, Any]] = {}

    def note_digest(self, message: Message, digest: Any) -> None:
        """Keep the digest a step of this run built `message` from (`traced`)."""
        self._digests[id(message)] = (message, digest)

    def digest_of(self, message: Message) -> Any:
        """The digest a step of this run built `message` from, else None."""
        entry = self._digests.get(id(message))
        return entry[1] if entry is not None and entry[0] is message else None

    def of(self, message: Message) -> MessageFacts:
        """The facts of `message`: recorded, or built now and kept for the run."""
        key = id(message)
        entry = self._known.get(key)
        if entry is None or entry[0] is not message:
            made = self._made if self._made is not None else self._start_made()
            entry = made.get(key)
            if entry is None or entry[0] is not message:
                entry = made[key] = (message, build_message_facts(message, self._counter))
        return entry[1]

    def note(self, message: Message, facts: MessageFacts) -> None:
        """Take `facts` as those of `message` for the rest of the run: a layer that rebuilt
        the message knows them from the one it replaced (`call_removal`)."""
        made = self._made if self._made is not None else self._start_made()
        made[id(message)] = (message, facts)

    def of_all(self, messages: Iterable[Message]) -> list[MessageFacts]:
        """`[self.of(m) for m in messages]`, in one loop: the layers read every message."""
        get, of = self._known.get, self.of
        made = (self._made if self._made is not None else self._start_made()).get
        return [
            entry[1]
            if ((entry := get(key := id(m))) is not None and entry[0] is m)
            or ((entry := made(key)) is not None and entry[0] is m)
            else of(m)
            for m in messages
        ]

    def _start_made(self) -> KnownFacts:
        """The map of facts beyond the frozen entries: the plain ones still in place."""
        made: KnownFacts = {}
        plain, view = self._plain or ((), ())
        for index, message, facts in plain:
            if index < len(view) and view[index] is message:
                made[id(message)] = (message, facts)
        self._made = made
        return made
