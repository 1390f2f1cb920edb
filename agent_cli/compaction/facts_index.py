"""Per-message facts: what the layers and the digest read of each message, found once.

The view's index (`view_index`) visits each new message once and records its facts
here, so a compaction reads them instead of rescanning blocks (why: docs/performance.md).

Contract:
- `MessageFacts` of a message: its user texts (`user_texts`), its tool_use and tool_result
  blocks (dicts, in order), its `SOURCE_KEY` pointer, the tokens of its largest
  tool_result by the counter it was built with (None without one), and for its calls
  that were answered, the digest entry they would leave if removed (`calls`: tool_use
  id -> `RemovedInteraction`, with its line, already counted as the digest counts it)
  and the tokens of their two blocks (`call_tokens`); with the policy the per-turn check
  runs under (the default policy when it names none), its file reads as L2 keys them
  (`reads`, for that `read_rule`). Built in `message_facts`. Facts are a function of
  the message's content (and, for `calls`, of the result blocks and pointer they name:
  a reader checks that those are still the ones it finds), never stale while it is
  unchanged.
- `FactsIndex.of(message)` gives the facts by identity: an entry recorded for that very
  object (each entry keeps the object, so its id cannot be reused while the entry lives)
  or, for any other message, facts built on the spot and kept for the index's lifetime
  (one compaction run). Recorded entries come from the `ViewIndex`, for messages it has
  validated: a frozen message (`agent_cli.frozen`) cannot change, so its facts hold for
  good; a plain dict's are used only at the position where the index has just found
  it equal to its snapshot, so a dict changed in place is never read from a stale entry.
  `FactsIndex.largest_result` is the largest tool_result of the view it was built for.
  A layer that rebuilds a message may tell the index its facts (`note`); a digest step
  keeps the digest it built (`note_digest`, `digest_of`) for the next step of the run.
- Memory: recorded facts live in the view's `ViewIndex`, beside the snapshots
  they mirror, and go with them; an index lives for one run.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_cli.compaction.digest.entries import Digest
from agent_cli.compaction.layers.read_keys import find_reads, read_rule
from agent_cli.compaction.message_facts import (
    CutFacts,
    MessageFacts,
    build_message_facts,
    note_calls,
    with_caller_after_cut,
)
from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.frozen import is_frozen
from agent_cli.tokens import TokenCounter

Message = dict[str, Any]
KnownFacts = dict[int, tuple[Message, MessageFacts]]  # id -> (the message, its facts)
DEFAULT_POLICY = CompactionPolicy()


@dataclass
class RecordedFacts:
    """Facts recorded by the per-turn check for the messages of one view: frozen ones by
    identity (they cannot change; the smaller messages of their recorded cuts too), plain
    ones by position (index, message, facts), since a plain dict is known unchanged only
    where it was just compared with its snapshot; and the largest tool_result of the view
    (tokens), kept as messages are recorded."""

    frozen: KnownFacts = field(default_factory=dict)
    plain: list[tuple[int, Message, MessageFacts]] = field(default_factory=list)
    largest_result: int = 0


Cutter = Callable[[Message, MessageFacts], CutFacts | None]  # L1 on one message


def record_facts(
    recorded: RecordedFacts,
    messages: Sequence[Message],
    start: int,
    interactions: Mapping[str, tuple[int, int]],
    counter: TokenCounter,
    policy: CompactionPolicy | None = None,
    cut: Cutter | None = None,
) -> None:
    """Build the facts of `messages` (message `start` of a view onwards, just validated;
    `interactions` are the calls answered among them) and record them, with the reads
    keyed as L2 compares them under the policy the check runs under (the default one
    when it names none; `read_keys`) and, for a frozen message with a result over that
    policy's per-result budget, what `cut` (L1 on one message) makes of it."""
    policy = DEFAULT_POLICY if policy is None else policy
    facts = [build_message_facts(message, counter) for message in messages]
    note_calls(facts, messages, start, interactions, counter, policy.secret_forms)
    rule, budget = read_rule(policy), policy.max_tool_result_tokens
    for index, found in enumerate(facts):
        if found.uses:
            facts[index] = found._replace(reads=find_reads(found.uses, policy), read_rule=rule)
        elif cut is not None and (found.largest_result or 0) > budget:
            message = messages[index]
            made = cut(message, found) if is_frozen(message) else None
            if made is not None:
                facts[index] = found._replace(cut=made)
                recorded.frozen[id(made.message)] = (made.message, made.facts)
                _note_caller(facts, index, message, made, (start, interactions), counter, policy)
    for index, (message, message_facts) in enumerate(zip(messages, facts, strict=True), start):
        recorded.largest_result = max(recorded.largest_result, message_facts.largest_result or 0)
        if is_frozen(message):
            recorded.frozen[id(message)] = (message, message_facts)
        else:
            recorded.plain.append((index, message, message_facts))


def _note_caller(
    facts: list[MessageFacts],
    position: int,
    message: Message,
    cut: CutFacts,
    batch: tuple[int, Mapping[str, tuple[int, int]]],
    counter: TokenCounter,
    policy: CompactionPolicy,
) -> None:
    """Give the message whose calls `message` (at `position` of `facts`, which L1 cuts to
    `cut`) answers its facts after the cut (`with_caller_after_cut`), when that message is
    among `facts` (`batch`: where it starts in the view, and the calls answered in it)."""
    start, interactions = batch
    callers = {
        interactions[tool_id][0]
        for block in facts[position].results
        if isinstance(tool_id := block.get("tool_use_id"), str) and tool_id in interactions
    }
    if len(callers) != 1:
        return
    caller = callers.pop() - start
    if 0 <= caller < position:
        facts[caller] = with_caller_after_cut(
            facts[caller], message, cut, counter, policy.secret_forms
        )


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
        self._digests: dict[int, tuple[Message, Digest]] = {}

    def note_digest(self, message: Message, digest: Digest) -> None:
        """Keep the digest a step of this run built `message` from (`layer_step`)."""
        self._digests[id(message)] = (message, digest)

    def digest_of(self, message: Message) -> Digest | None:
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
        """Take `facts` as those of `message` for the rest of the run: a layer that built
        the message knows them from the one it replaced (L1's cut results)."""
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
        plain, view = self._plain or ((), ())
        length = len(view)
        made: KnownFacts = {  # one comprehension: a plain view has thousands
            id(message): (message, facts)
            for index, message, facts in plain
            if index < length and view[index] is message
        }
        self._made = made
        return made
