"""The index of one prompt view: its tokens, each message's count and facts, its tool ids and
superseded reads. Kept by the view's owner (`session.conversation.Conversation`); not thread-safe.
Pure.

Contract:
- `measure(messages, policy)` validates `messages` and returns their tokens: the sum of their
  counts and what the notes of the images a request leaves out weigh beyond those images
  (`image_notes.left_out_excess`; the images are indexed with their messages). When the view indexed
  last is a prefix of `messages` (exactly: each message is kept with a structural snapshot, a
  frozen one is its own), only the messages after it are indexed (none for the very `FrozenList`
  measured last: it cannot change); any other view is rebuilt, never
  patched, and so is the index under another read rule or other secret forms. A ToolProtocolError
  leaves the index as it was; any other failure empties it.
- `message_counts()`, `superseded_reads`, `largest_result` and `facts()` describe the view measured
  last; `holds_sized_content(messages)` answers from the index for that view and walks any other. Recorded facts are given only where the view holds the very object they were recorded for.
- A long tail is indexed in runs as appended turns would be (`closed_runs`); digest lines of calls
  (reads excepted) and of long texts are recorded only as far back as a refit reaches.
- `count(messages, policy)`: `measure`, or for a view not valid yet, counted and not indexed.
"""

from __future__ import annotations

import operator
from collections.abc import Collection, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from agent_cli.compaction.layers.dedup import ReadHistory, note_superseded, without_blocks
from agent_cli.compaction.layers.read_keys import find_reads, read_rule
from agent_cli.compaction.layers.truncate import cut_message
from agent_cli.compaction.message_facts import (
    CutFacts,
    MessageFacts,
    build_message_facts,
    note_calls,
    note_requests,
    with_caller_after_cut,
    without_calls,
)
from agent_cli.compaction.policy import CompactionPolicy, ReadRule
from agent_cli.errors import ToolProtocolError
from agent_cli.frozen import FrozenList, freeze, is_frozen
from agent_cli.image_notes import ViewImage, left_out_excess, view_images
from agent_cli.protocol import ProtocolScan
from agent_cli.secret_forms import SecretForms
from agent_cli.tokens import TokenCounter, holds_content_sized_by_the_api

Message = dict[str, Any]
Terms = tuple[ReadRule, SecretForms]  # what recorded facts depend on of a policy
Indexed = tuple[
    int, Sequence[Message], list[int], list[Any], list[MessageFacts], list[ViewImage], bool
]
DEFAULT_POLICY = CompactionPolicy()
RUN_MESSAGES = 512  # a long tail is indexed in runs of about this many (docs/performance.md)


class ViewIndex:
    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self._snapshots: list[Any] = []
        self._messages: Sequence[Message] = ()
        self._tokens = 0  # the sum of the messages' counts
        self._counts: list[int] = []
        self._images: list[ViewImage] = []  # of the view, oldest first
        self._sized = False  # whether it holds an image or a document block anywhere
        self._tool_ids: set[str] = set()
        self._recorded: list[Message] = []  # the objects `_facts` were recorded for
        self._facts: list[MessageFacts] = []
        self._largest_result = 0
        self._terms: Terms | None = None
        self._reads = ReadHistory()

    @property
    def tokens(self) -> int:
        """Tokens of the view measured last (`measure`)."""
        return self._tokens + left_out_excess(self._images, self.counter.count_text)

    @property
    def holds_images(self) -> bool:
        """Whether the view measured last holds any image block."""
        return bool(self._images)

    def holds_sized_content(self, messages: Sequence[Message]) -> bool:
        """Whether `messages` hold an image or a document block anywhere, which the API bills by
        its own sizing (`tokens.holds_content_sized_by_the_api`)."""
        if messages is self._messages:
            return self._sized
        return holds_content_sized_by_the_api(messages)

    @property
    def largest_result(self) -> int:
        """Tokens of the largest tool_result (0 without one)."""
        return self._largest_result

    @property
    def superseded_reads(self) -> Mapping[str, int]:
        """File reads a later read of the same thing supersedes (`dedup.note_superseded`): tool_use
        id -> the position of its message."""
        return MappingProxyType(self._reads.superseded)

    @property
    def length(self) -> int:
        """How many messages the index holds."""
        return len(self._snapshots)

    def measure(self, messages: Sequence[Message], policy: CompactionPolicy | None = None) -> int:
        """Validate `messages` and return their tokens (module doc). Raises ToolProtocolError."""
        policy = DEFAULT_POLICY if policy is None else policy
        terms = (read_rule(policy), policy.secret_forms)
        if messages is self._messages and type(messages) is FrozenList and terms == self._terms:
            return self.tokens  # measured last, and neither it nor its messages can change
        if terms != self._terms or not self._is_prefix_of(messages):
            self._clear(terms)
        start = len(self._snapshots)
        added = messages[start:]
        scan = ProtocolScan(known=self._tool_ids)
        scan.feed(added, start)
        answered = scan.finish()  # an invalid view raises here and leaves the index as it was
        try:
            runs = list(closed_runs(added, start, answered, RUN_MESSAGES))
            rooms = [policy.digest_tokens] * 2  # (lines, texts) a refit may keep
            made = [self._index_run(run, at, answered, policy, rooms) for at, run in runs[::-1]]
            for indexed in reversed(made):
                self._extend(indexed, policy)
        except BaseException:  # a bad view or Ctrl-C: never leave a half-extended index
            self._clear(None)
            raise
        self._tool_ids.update(answered)
        self._messages = messages
        return self.tokens

    def _index_run(
        self,
        run: Sequence[Message],
        start: int,
        answered: Mapping[str, tuple[int, int]],
        policy: CompactionPolicy,
        rooms: list[int],
    ) -> Indexed:
        """`run` (from message `start`, every call answered within it) with its counts, snapshots
        and facts; lines are recorded while `rooms` (what a refit would keep of lines and of
        requests, newest first) is not spent, and each run spends it."""
        counts = list(map(self.counter.count_message, run))
        snapshots = list(map(self.counter.snapshot_of, run))  # (counted just now)
        ahead = (rooms[0] > 0, rooms[1] > 0)
        facts = record_facts(run, start, answered, self.counter, policy, ahead)
        for found in facts:
            rooms[0] -= sum(entry.counted[1] for entry in found.in_order if entry.counted)
            for request in found.requests:
                shown = (request, request.heads and request.heads[1])
                rooms[1] -= min((e.counted[1] for e in shown if e and e.counted), default=0)
        sized = any(map(holds_content_sized_by_the_api, run))
        return start, run, counts, snapshots, facts, view_images(run), sized

    def _extend(self, indexed: Indexed, policy: CompactionPolicy) -> None:
        start, added, counts, snapshots, facts, images, sized = indexed
        self._images.extend(images)
        self._sized = self._sized or sized
        note_superseded(facts, start, policy, self._reads)
        self._recorded.extend(added)
        self._facts.extend(facts)
        largest = max((found.largest_result or 0 for found in facts), default=0)
        self._largest_result = max(self._largest_result, largest)
        self._snapshots.extend(snapshots)
        self._counts.extend(counts)
        self._tokens += sum(counts)

    def count(self, messages: Sequence[Message], policy: CompactionPolicy | None = None) -> int:
        """Tokens of `messages`, valid or not yet (module doc)."""
        try:
            return self.measure(messages, policy)
        except ToolProtocolError:
            return count_messages_as_sent(messages, self.counter)

    def message_counts(self) -> list[int]:
        return list(self._counts)

    def facts(self) -> list[MessageFacts]:
        """One `MessageFacts` per message of the view measured last (module doc)."""
        view, recorded = self._messages, self._recorded
        if all(map(operator.is_, view, recorded)):
            return list(self._facts)
        build, counter = build_message_facts, self.counter
        return [
            facts if message is known else build(message, counter)
            for message, known, facts in zip(view, recorded, self._facts, strict=True)
        ]

    def _is_prefix_of(self, messages: Sequence[Message]) -> bool:
        known = self._snapshots
        if len(known) > len(messages):
            return False
        head = messages[: len(known)]  # (a list's slice is a list: compared as it is)
        return (head if isinstance(head, list) else list(head)) == known

    def _clear(self, terms: Terms | None) -> None:
        self._snapshots, self._messages, self._tokens, self._counts = [], (), 0, []
        self._images, self._sized = [], False
        self._recorded, self._facts, self._largest_result = [], [], 0
        self._tool_ids, self._terms = set(), terms
        self._reads = ReadHistory()


def closed_runs(
    added: Sequence[Message],
    start: int,
    answered: Mapping[str, tuple[int, int]],
    size: int,
) -> Iterator[tuple[int, Sequence[Message]]]:
    """(start, run) for consecutive runs of about `size` messages of `added` (from message `start`),
    each ending where every call made in it is answered (`answered`: id -> positions of its tool_use
    and tool_result)."""
    if len(added) <= size:
        yield start, added
        return
    answered_by: dict[int, int] = {}
    for use_at, result_at in answered.values():
        answered_by[use_at] = max(answered_by.get(use_at, result_at), result_at)
    run_start, open_until = start, -1
    for position in range(start, start + len(added) - 1):
        open_until = max(open_until, answered_by.get(position, -1))
        if position + 1 - run_start >= size and open_until <= position:
            yield run_start, added[run_start - start : position + 1 - start]
            run_start = position + 1
    yield run_start, added[run_start - start :]


def record_facts(
    messages: Sequence[Message],
    start: int,
    interactions: Mapping[str, tuple[int, int]],
    counter: TokenCounter,
    policy: CompactionPolicy,
    ahead: tuple[bool, bool] = (True, True),
) -> list[MessageFacts]:
    """The facts of `messages` (from message `start` of a validated view; `interactions`: the calls
    answered among them), reads keyed under `policy`, and for a frozen message L1's cut of it and
    L2's removal of its reads. `ahead`: whether call lines and long texts' lines are recorded."""
    facts = [build_message_facts(message, counter) for message in messages]
    note_calls(facts, messages, start, interactions, counter, policy, ahead[0])
    rule, budget = read_rule(policy), policy.max_tool_result_tokens
    reads: set[str] = set()  # the reads of the batch so far (its results come after them)
    for index, found in enumerate(facts):
        message = messages[index]
        if found.texts:
            found = note_requests(found, counter, policy.secret_forms, ahead[1])
        if found.uses:
            found = found._replace(reads=find_reads(found.uses, policy), read_rule=rule)
            reads.update(tool_id for tool_id, _ in found.reads)
        if is_frozen(message):
            found = _with_without_reads(message, found, reads)
            if (found.largest_result or 0) > budget:
                made = cut_message(message, found, budget, counter, policy.secret_forms)
                if made is not None:
                    batch = (start, interactions, ahead[0])
                    made = _note_caller(facts, index, made, batch, counter, policy)
                    made = made._replace(facts=_with_without_reads(made.message, made.facts, reads))
                    found = found._replace(cut=made)
        facts[index] = found
    return facts


def _with_without_reads(
    message: Message, found: MessageFacts, reads: Collection[str]
) -> MessageFacts:
    """`found` with what L2 makes of frozen `message` when every call among `reads` it makes or
    answers leaves (frozen), and its facts; as it is when it holds none, when nothing would be left,
    or when it both makes calls and holds results."""
    own = [use.get("id") for use in found.uses] + [b.get("tool_use_id") for b in found.results]
    ids = {tool_id for tool_id in own if isinstance(tool_id, str) and tool_id in reads}
    if not ids or len(ids) == len(message["content"]) or (found.uses and found.results):
        return found
    smaller = freeze(without_blocks(message, found, ids))
    return found._replace(without_reads=(smaller, without_calls(found, ids)))


def _note_caller(
    facts: list[MessageFacts],
    position: int,
    cut: CutFacts,
    batch: tuple[int, Mapping[str, tuple[int, int]], bool],
    counter: TokenCounter,
    policy: CompactionPolicy,
) -> CutFacts:
    """`cut` (L1's cut of the message at `position` of `facts`) with its caller, when all calls of
    one earlier message are answered in it (`with_caller_after_cut`). `batch`: where `facts` start
    in the view, the calls answered among them, and whether lines are recorded."""
    start, interactions, lines = batch
    callers = {interactions[block["tool_use_id"]][0] for block in facts[position].results}
    if len(callers) != 1:
        return cut
    caller = callers.pop() - start
    before = facts[caller]
    after = with_caller_after_cut(before, cut, counter, policy.read_tool_names, lines)
    if after is None:
        return cut
    return cut._replace(caller_back=position - caller, caller_before=before, caller_after=after)


def count_messages_as_sent(messages: Sequence[Message], counter: TokenCounter) -> int:
    """Tokens of `messages` as a request carries them: their counts and the excess of the
    notes sent in place of the images it leaves out (`image_notes.left_out_excess`)."""
    excess = left_out_excess(view_images(messages), counter.count_text)
    return counter.count_messages(messages) + excess


def measure_view(messages: Sequence[Message], counter: TokenCounter) -> int:
    """`ViewIndex.measure` on a fresh index."""
    return ViewIndex(counter).measure(messages)


def count_view(
    messages: Sequence[Message], counter: TokenCounter, policy: CompactionPolicy | None = None
) -> int:
    """`ViewIndex.count` on a fresh index."""
    return ViewIndex(counter).count(messages, policy)
