"""L2 kept up to date turn by turn: which reads a later read made redundant, and what
removing them changes, for the view the per-turn check is following.

The view's index (`facts.record_facts`) keeps them as messages come in; L2 takes them
in one step when its view is the one the index followed (why: docs/performance.md).

Contract:
- `RunningReads.add(...)` takes the messages the check just recorded (positions
  `start` onwards of its view, their facts, the calls answered among them) in view
  order, and keys their reads under the check's read rule, exactly as
  `dedup.find_superseded_reads` walks a view: `superseded` (tool_use id -> the read)
  then holds what that function gives for the whole view, in its order.
- For each message a superseded read touches it keeps the message L2 leaves there (the
  original without the removed blocks, or None where nothing is left) and, where they
  can be told without counting, that message's facts (`facts_without_calls`).
- `plan(rule, length)` gives L2's whole outcome for the view the check followed: the changes by
  position, the removed calls' digest entries newest first (as
  `what_left.collect_removed_calls` names them), and the tokens saved (the calls' blocks,
  recorded when their interaction completed, plus each message left empty). None when
  it cannot: another read rule, or a read the check could not key or did not see
  answered (`broken`). A message L2 rebuilds from a frozen one is frozen (shared by
  every plan: no one can change it); one rebuilt from a plain dict is a new dict in
  each plan, never that of an earlier one. A plan names the messages followed where it
  changes the view (`originals`), so it is applied only where those very objects stand.
- Moving the plan onto the list L2 is given (see "Alignment" below).

Alignment: L2 runs on the followed view minus the digest message (`layer_step` takes it
out), after L1, which may have cut some results. `align_plan(plan, messages, view,
count_block)` gives the plan with positions in `messages`, or None when it does not apply
(and L2 scans). The messages the plan changes must be, in `view`, the very objects the
check followed (an equal copy of a plain dict does not do: its blocks are not those the
plan names). It applies when `messages` is `view`, or `view` without its digest message
(positions after it move down by one), where a message may be another object than the
followed one if neither holds a tool_use block and either the plan leaves it alone or
the plan drops it whole and it holds the same tool results, cut (L1): the removed calls
then name the cut result, and the saving counts it (`count_block`, the run's counter)
instead of the result the check recorded. That is exactly what scanning `messages` finds.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, NamedTuple

from agent_cli.compaction.digest.removed_items import RemovedInteraction
from agent_cli.compaction.markers import SOURCE_KEY, is_digest_message
from agent_cli.compaction.memo.message_facts import MessageFacts
from agent_cli.compaction.policy import ReadRule
from agent_cli.frozen import freeze, is_frozen
from agent_cli.tokens import MESSAGE_OVERHEAD_TOKENS

Message = dict[str, Any]
Block = dict[str, Any]


class _Read(NamedTuple):
    """A read the check saw answered: where its halves are, and its digest entry."""

    entry: RemovedInteraction
    tokens: int  # both blocks, as the digest's saving counts them
    use_at: int
    use_place: int  # the tool_use block's place among its message's tool_use blocks
    use_message: Message
    use_facts: MessageFacts
    result_at: int
    result_message: Message
    result_facts: MessageFacts


@dataclass(slots=True)
class _Touched:
    """A message some superseded reads take blocks from, and the blocks they take."""

    original: Message
    facts: MessageFacts
    removed_ids: set[str] = field(default_factory=set)
    blocks: list[dict[str, Any]] = field(default_factory=list)


class ReadsPlan(NamedTuple):
    """L2's outcome on the followed view (module doc); positions are the view's."""

    changes: dict[int, Message | None]
    removed: list[RemovedInteraction]  # newest call first
    superseded: tuple[str, ...]  # in `find_superseded_reads`' order
    tokens_saved: int
    rebuilt: list[tuple[Message, MessageFacts]]  # L2's new messages and their facts
    originals: dict[int, Message]  # the messages followed where `changes` change them


@dataclass
class RunningReads:
    """What L2 would do to the view followed so far (module doc)."""

    rule: ReadRule | None = None
    broken: bool = False
    followed: int = 0  # messages followed: the view's length
    newest: dict[tuple[str, ...], _Read] = field(default_factory=dict)
    superseded: dict[str, _Read] = field(default_factory=dict)
    touched: dict[int, _Touched] = field(default_factory=dict)
    # kept as reads are superseded, so a plan is a few C-level copies: what L2 leaves at
    # each touched position, the messages followed there, the new messages with their
    # facts, the tokens of the removed calls and how many messages L2 empties
    changes: dict[int, Message | None] = field(default_factory=dict)
    originals: dict[int, Message] = field(default_factory=dict)
    rebuilt: dict[int, tuple[Message, MessageFacts]] = field(default_factory=dict)
    tokens: int = 0
    emptied: int = 0
    plain_left: int = 0  # rebuilt messages that are plain dicts: copied for each plan

    def add(
        self,
        messages: Sequence[Message],
        facts: Sequence[MessageFacts],
        start: int,
        interactions: Mapping[str, tuple[int, int]],
        rule: ReadRule,
    ) -> None:
        """Follow the check's newly recorded messages (module doc)."""
        self.followed = start + len(messages)
        if self.rule is None:
            self.rule = rule
        if self.broken or self.rule != rule:
            self.broken = True
            return
        for offset, found in enumerate(facts):
            if found.uses and found.read_rule != rule:
                self.broken = True
                return
            for tool_id, key in found.reads:
                read = _answered_read(messages, facts, start, start + offset, tool_id, interactions)
                if read is None:
                    self.broken = True
                    return
                older = self.newest.get(key)
                if older is not None:
                    self._supersede(older)
                self.newest[key] = read

    def _supersede(self, read: _Read) -> None:
        """Mark `read` redundant and rebuild the two messages it takes blocks from."""
        self.superseded[read.entry.tool_use_id] = read
        self.tokens += read.tokens
        halves = (
            (read.use_at, read.use_message, read.use_facts, read.entry.use),
            (read.result_at, read.result_message, read.result_facts, read.entry.result),
        )
        for position, message, message_facts, block in halves:
            touched = self.touched.get(position)
            if touched is None:
                touched = self.touched[position] = _Touched(message, message_facts)
            touched.removed_ids.add(read.entry.tool_use_id)
            touched.blocks.append(block)  # type: ignore[arg-type]  # answered: a block
            self._forget(position)
            self._note(position, touched.original, *_rebuild(touched))

    def _forget(self, position: int) -> None:
        """Take what L2 left at `position` out of the running figures."""
        if position not in self.changes:
            return
        left = self.changes.pop(position)
        self.rebuilt.pop(position, None)
        self.emptied -= left is None
        self.plain_left -= left is not None and not is_frozen(left)

    def _note(
        self, position: int, original: Message, left: Message | None, facts: MessageFacts | None
    ) -> None:
        """Put what L2 now leaves at `position` (None: nothing) into the running figures."""
        self.changes[position] = left
        self.originals[position] = original
        self.emptied += left is None
        self.plain_left += left is not None and not is_frozen(left)
        if left is not None and facts is not None:
            self.rebuilt[position] = (left, facts)

    def plan(self, rule: ReadRule, length: int) -> ReadsPlan | None:
        """L2's outcome on the followed view under `rule`, or None (module doc); also
        None unless `length` messages were followed, so a plan never outruns its view."""
        if self.broken or self.rule != rule or self.followed != length:
            return None
        changes, rebuilt = dict(self.changes), list(self.rebuilt.values())
        if self.plain_left:  # each plan its own new dicts, where a caller could edit them
            changes, rebuilt = _copy_plain(changes, self.rebuilt)
        in_order = sorted(self.superseded.values(), key=_NEWEST_LAST, reverse=True)
        return ReadsPlan(
            changes,
            [read.entry for read in in_order],
            tuple(self.superseded),
            self.tokens + MESSAGE_OVERHEAD_TOKENS * self.emptied,
            rebuilt,
            self.originals,
        )


_NEWEST_LAST = attrgetter("use_at", "use_place")


def _copy_plain(
    changes: dict[int, Message | None], rebuilt: dict[int, tuple[Message, MessageFacts]]
) -> tuple[dict[int, Message | None], list[tuple[Message, MessageFacts]]]:
    """`changes` with a fresh copy of each plain dict it holds, and the facts of those."""
    copies: list[tuple[Message, MessageFacts]] = []
    for position, left in changes.items():
        if left is None:
            continue
        if not is_frozen(left):
            left = changes[position] = {**left, "content": list(left["content"])}
        if position in rebuilt:
            copies.append((left, rebuilt[position][1]))
    return changes, copies


def _answered_read(
    messages: Sequence[Message],
    facts: Sequence[MessageFacts],
    start: int,
    use_at: int,
    tool_id: str,
    interactions: Mapping[str, tuple[int, int]],
) -> _Read | None:
    """The read `tool_id` (its tool_use at `use_at`) with its recorded entry, or None
    when the check did not see it answered among these messages."""
    where = interactions.get(tool_id)
    use_facts = facts[use_at - start]
    entry = use_facts.calls.get(tool_id) if use_facts.calls else None
    if where is None or entry is None or use_facts.call_tokens is None or entry.result is None:
        return None
    result_at = where[1]
    place = next(i for i, use in enumerate(use_facts.uses) if use is entry.use)
    return _Read(
        entry,
        use_facts.call_tokens[tool_id],
        use_at,
        place,
        messages[use_at - start],
        use_facts,
        result_at,
        messages[result_at - start],
        facts[result_at - start],
    )


def _rebuild(touched: _Touched) -> tuple[Message | None, MessageFacts | None]:
    """What L2 leaves of `touched.original` without its removed blocks (None: nothing),
    frozen if the original was, and that message's facts when they can be told."""
    content = touched.original["content"]
    gone = set(map(id, touched.blocks))
    kept = [block for block in content if id(block) not in gone]
    if not kept:
        return None, None
    left = {**touched.original, "content": kept}
    left = freeze(left) if is_frozen(touched.original) else left
    return left, facts_without_calls(touched.facts, touched.removed_ids)


def facts_without_calls(facts: MessageFacts, ids: Collection[str]) -> MessageFacts | None:
    """The facts of the message `facts` describe once rebuilt without the tool_use and
    tool_result blocks of `ids` (other blocks and the pointer stay), found from these
    facts alone; None where that cannot be told without counting (a result that stays
    beside one that left: which was the largest?)."""
    uses = tuple(use for use in facts.uses if use.get("id") not in ids)
    results = tuple(r for r in facts.results if r.get("tool_use_id") not in ids)
    if results and len(results) != len(facts.results):
        return None
    largest = facts.largest_result if results or facts.largest_result is None else 0
    if not uses:
        return MessageFacts(facts.texts, (), results, facts.pointer, largest)
    calls, call_tokens = facts.calls, facts.call_tokens
    if calls is not None and call_tokens is not None:
        calls = {key: entry for key, entry in calls.items() if key not in ids} or None
        call_tokens = None if calls is None else {key: call_tokens[key] for key in calls}
    reads = tuple(read for read in facts.reads if read[0] not in ids)
    # no `in_order`: the calls left are matched with their results when they leave
    return MessageFacts(
        facts.texts,
        uses,
        results,
        facts.pointer,
        largest,
        calls,
        call_tokens,
        reads,
        facts.read_rule,
    )


# --- alignment: the plan on the list L2 is given ----------------------------------


def align_plan(
    plan: ReadsPlan,
    messages: Sequence[Message],
    view: Sequence[Message],
    count_block: Callable[[Block], int],
) -> ReadsPlan | None:
    """`plan` (for `view`) with positions in `messages`, or None (module doc,
    "Alignment")."""
    for at, original in plan.originals.items():  # a plain dict may be an equal copy
        if at >= len(view) or view[at] is not original:
            return None
    if len(messages) == len(view):
        lacking, followed = len(view), list(view)
    elif len(messages) == len(view) - 1:
        digest_at = next((i for i, m in enumerate(view) if is_digest_message(m)), None)
        if digest_at is None or digest_at in plan.changes:
            return None
        lacking, followed = digest_at, [*view[:digest_at], *view[digest_at + 1 :]]
    else:
        return None
    changes = plan.changes
    if lacking < len(view):  # positions after the missing message move down
        changes = {at - (at > lacking): left for at, left in changes.items()}
    plan = plan._replace(changes=changes)
    if list(messages) == followed:  # one C-level pass, by identity first
        return plan
    swapped: dict[int, Block] = {}  # id of a recorded result -> the cut one in its place
    for at, (given, kept) in enumerate(zip(messages, followed, strict=True)):
        if given is kept:
            continue
        if _has_calls(given) or _has_calls(kept):
            return None
        if at in changes and (changes[at] is not None or not _swap_cut(given, kept, swapped)):
            return None
    return _with_cut_results(plan, swapped, count_block) if swapped else plan


def _has_calls(message: Message) -> bool:
    """True when `message` holds a tool_use block (read from its blocks, not its facts:
    building facts counts results, and L1's cut ones are not counted yet)."""
    content = message.get("content")
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "tool_use" for block in content
    )


def _swap_cut(given: Message, kept: Message, swapped: dict[int, Block]) -> bool:
    """Note the results of `given` in place of those of `kept` when it holds the same
    tool results, block for block, under the same pointer (L1 cut some of them)."""
    new, old = given.get("content"), kept.get("content")
    if not isinstance(new, list) or not isinstance(old, list) or len(new) != len(old):
        return False
    if given.get(SOURCE_KEY) != kept.get(SOURCE_KEY):
        return False
    for cut, recorded in zip(new, old, strict=True):
        if not (isinstance(cut, dict) and cut.get("type") == "tool_result"):
            return False
        if cut.get("tool_use_id") != recorded.get("tool_use_id"):
            return False
        if cut is not recorded:
            swapped[id(recorded)] = cut
    return True


def _with_cut_results(
    plan: ReadsPlan, swapped: dict[int, Block], count_block: Callable[[Block], int]
) -> ReadsPlan:
    """`plan` whose removed calls name the cut results, and whose saving counts them."""
    removed, tokens = [], plan.tokens_saved
    for entry in plan.removed:
        cut = swapped.get(id(entry.result))
        if cut is None:
            removed.append(entry)
            continue
        tokens += count_block(cut) - count_block(entry.result)  # type: ignore[arg-type]
        removed.append(entry._replace(result=cut, line=None, counted=None))
    return plan._replace(removed=removed, tokens_saved=tokens)
