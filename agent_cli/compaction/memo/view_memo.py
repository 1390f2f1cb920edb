"""The per-turn check: validate and count a view in time that follows the new messages.

A session appends a turn or two to a long view and asks again. Re-validating and
re-summing thousands of messages every turn would grow with the history, so each counter
remembers the last few views it measured: structural snapshots of the messages, the token
total and the tool_use ids. A view whose first k messages still equal those snapshots is
measured by validating and counting only the messages after k: a prefix that was valid
and fully answered stays so, and a new message can only clash with it through an id,
which the id set catches.

The snapshots (`tokens.build_snapshot`: fresh dicts and lists, shared strings) make the
prefix test one C-level list comparison that still sees any change: a message edited in
place after it was measured no longer equals its snapshot, so the view is measured in
full and no stale figure survives. For plain dicts that comparison walks every message
(about half a millisecond for 3,000). A frozen message (`agent_cli.frozen`, what the
session keeps) is its own snapshot, so comparing it is one identity check and the whole
test costs a few microseconds: the check then follows the new messages, not the
history. Not thread-safe, like the counter it hangs on.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent_cli.compaction.memo.facts import FactsIndex, RecordedFacts, record_facts
from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.errors import ToolProtocolError
from agent_cli.protocol import ProtocolScan
from agent_cli.tokens import TokenCounter, build_snapshot

MEMOS_PER_COUNTER = 4


@dataclass(frozen=True)
class _MeasuredView:
    """A validated view: snapshots of its messages, its tokens, its tool_use ids and its
    messages' facts (`facts.RecordedFacts`).

    `snapshots`, `tool_ids` and `facts` are handed on to the view that extends this one
    (which then replaces this memo), so extending costs what was appended, not a copy.
    """

    snapshots: list[Any]
    tokens: int
    tool_ids: set[str]
    facts: RecordedFacts


_memos: weakref.WeakKeyDictionary[TokenCounter, list[_MeasuredView]] = weakref.WeakKeyDictionary()


def _is_prefix_of(measured: _MeasuredView, messages: Sequence[dict[str, Any]]) -> bool:
    """True when `messages` starts with messages equal to the measured snapshots.

    The last message is compared first, so a view that diverged is refused cheaply; a
    message replaced by an equal copy still matches, one changed in place does not.
    """
    known = measured.snapshots
    if not known or len(known) > len(messages):
        return False
    last = messages[len(known) - 1]
    if last is not known[-1] and last != known[-1]:
        return False
    prefix = messages[: len(known)]
    return (prefix if isinstance(prefix, list) else list(prefix)) == known


def _find_longest_prefix(
    memos: list[_MeasuredView], messages: Sequence[dict[str, Any]]
) -> _MeasuredView | None:
    """The longest memo that is a prefix of `messages`; longest tried first, so one
    successful comparison is all an extended view costs."""
    for measured in sorted(memos, key=lambda memo: len(memo.snapshots), reverse=True):
        if _is_prefix_of(measured, messages):
            return measured
    return None


def _remember(
    memos: list[_MeasuredView], measured: _MeasuredView, extended: _MeasuredView | None
) -> None:
    """Keep `measured` first, without the view it extended; keep at most a few."""
    memos[:] = [measured] + [old for old in memos if old is not extended]
    del memos[MEMOS_PER_COUNTER:]


def measure_view(messages: Sequence[dict[str, Any]], counter: TokenCounter) -> int:
    """Validate the tool protocol of `messages` and return their tokens.

    Raises ToolProtocolError for an invalid view (and then remembers nothing new).
    """
    return measure_view_facts(messages, counter)[0]


def measure_view_facts(
    messages: Sequence[dict[str, Any]],
    counter: TokenCounter,
    policy: CompactionPolicy | None = None,
) -> tuple[int, FactsIndex]:
    """`measure_view`, and the index of the view's message facts (`facts`) for a
    compaction run: those of the new messages are built here, once each (with the reads
    L2 compares under `policy`, when given), the others were built by an earlier check
    of a view this one extends."""
    memos = _memos.setdefault(counter, [])
    known = _find_longest_prefix(memos, messages)
    start = len(known.snapshots) if known else 0
    new_messages = messages[start:]
    scan = ProtocolScan(known=known.tool_ids if known else None)
    scan.feed(new_messages, start)
    added = scan.finish()
    tokens = (known.tokens if known else 0) + counter.count_messages(new_messages)
    if known is not None:  # extended in place below: out of the memos first, so that a
        memos.remove(known)  # failure (Ctrl-C, a bad input) loses it, never leaves it wrong
    tool_ids = known.tool_ids if known else set()
    tool_ids.update(added)
    snapshots = known.snapshots if known else []
    snapshots.extend(build_snapshot(m) for m in new_messages)
    facts = known.facts if known else RecordedFacts()
    record_facts(facts, new_messages, start, added, counter, policy)
    _remember(memos, _MeasuredView(snapshots, tokens, tool_ids, facts), known)
    return tokens, FactsIndex(counter, facts, messages)


def count_view(
    messages: Sequence[dict[str, Any]],
    counter: TokenCounter,
    policy: CompactionPolicy | None = None,
) -> int:
    """Tokens of `messages`, as `measure_view` finds them, also for a view that is not
    valid yet (a tool call whose results are still running): those are counted message by
    message, which costs the history but never raises. `policy`: the session's, so the
    new messages' reads are keyed as its L2 will compare them (`measure_view_facts`)."""
    try:
        return measure_view_facts(messages, counter, policy)[0]
    except ToolProtocolError:
        return counter.count_messages(messages)
