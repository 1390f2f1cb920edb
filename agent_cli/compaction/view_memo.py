"""The per-turn check: validate and count a view in time that follows the new messages.

A session appends a turn or two to a long view and asks again. Re-validating and
re-summing thousands of messages every turn would grow with the history, so each counter
remembers the last few views it measured: the messages, the token total and the tool_use
ids. A view whose first k messages are those messages (one C-level list comparison that
tries identity first, so about 0.1 ms for 6,000 messages) is measured by validating and
counting only the messages after k: a prefix that was valid and fully answered stays so,
and a new message can only clash with it through an id, which the id set catches.

The contract this relies on: messages are values. The core never mutates a message; a
caller that changes one passes a new dict in its place, which no longer compares equal
and brings a full measure. Editing a dict in place AFTER it was measured is not seen by
this memo, because the memo holds that very dict (the per-message memo of `TokenCounter`
does see it, so `estimate_tokens` and the layers stay exact). Not thread-safe, like the
counter it hangs on.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent_cli.protocol import ProtocolScan
from agent_cli.tokens import TokenCounter

MEMOS_PER_COUNTER = 4


@dataclass(frozen=True)
class _MeasuredView:
    """A validated view: its messages, its tokens and the tool_use ids it holds.

    `tool_ids` is handed on to the view that extends this one (which then replaces this
    memo), so extending costs what was appended, not a copy of every id.
    """

    messages: list[dict[str, Any]]
    tokens: int
    tool_ids: set[str]


_memos: weakref.WeakKeyDictionary[TokenCounter, list[_MeasuredView]] = (
    weakref.WeakKeyDictionary())


def _is_prefix_of(measured: _MeasuredView, messages: Sequence[dict[str, Any]]) -> bool:
    """True when `messages` starts with the measured messages.

    List equality runs in C and compares by identity first, so an unchanged prefix costs a
    few nanoseconds a message; a message replaced by an equal copy still matches.
    """
    known = measured.messages
    if not known or len(known) > len(messages) or messages[len(known) - 1] is not known[-1]:
        return False
    prefix = messages[:len(known)]
    return (prefix if isinstance(prefix, list) else list(prefix)) == known


def _find_longest_prefix(memos: list[_MeasuredView],
                         messages: Sequence[dict[str, Any]]) -> _MeasuredView | None:
    matches = [measured for measured in memos if _is_prefix_of(measured, messages)]
    return max(matches, key=lambda measured: len(measured.messages), default=None)


def _remember(memos: list[_MeasuredView], measured: _MeasuredView,
              extended: _MeasuredView | None) -> None:
    """Keep `measured` first, without the view it extended; keep at most a few."""
    memos[:] = [measured] + [old for old in memos if old is not extended]
    del memos[MEMOS_PER_COUNTER:]


def measure_view(messages: Sequence[dict[str, Any]], counter: TokenCounter) -> int:
    """Validate the tool protocol of `messages` and return their tokens.

    Raises ToolProtocolError for an invalid view (and then remembers nothing new).
    """
    memos = _memos.setdefault(counter, [])
    known = _find_longest_prefix(memos, messages)
    start = len(known.messages) if known else 0
    new_messages = messages[start:]
    scan = ProtocolScan(known=known.tool_ids if known else None)
    scan.feed(new_messages, start)
    added = scan.finish()
    tokens = (known.tokens if known else 0) + counter.count_messages(new_messages)
    tool_ids = known.tool_ids if known else set()
    tool_ids.update(added)  # safe: `known` is dropped from the memos just below
    _remember(memos, _MeasuredView(list(messages), tokens, tool_ids), known)
    return tokens
