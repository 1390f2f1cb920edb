"""The per-turn check: validate and count a view in time that follows the new messages.

A session appends a turn or two to a long view and asks again. Re-validating and
re-summing thousands of messages every turn would grow with the history, so each counter
remembers the last few views it measured: the message objects (pinned, so their ids stay
theirs), the token total and the answered interactions. A view whose first k messages are
those very objects, in that order (one C-level identity pass), is measured by validating
and counting only the messages after k.

The contract this relies on: messages are values. The core never mutates a message; a
caller that changes one passes a new dict in its place, which breaks the prefix and
brings a full measure. Editing a dict in place AFTER it was measured is not seen by this
memo (the per-message memo of `TokenCounter` does see it, so `estimate_tokens` and the
layers stay exact). Not thread-safe, like the counter it hangs on.
"""

from __future__ import annotations

import operator
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent_cli.protocol import Interaction, ProtocolScan
from agent_cli.tokens import TokenCounter

MEMOS_PER_COUNTER = 4


@dataclass(frozen=True)
class _MeasuredView:
    messages: tuple[dict[str, Any], ...]
    tokens: int
    interactions: dict[str, Interaction]


_memos: weakref.WeakKeyDictionary[TokenCounter, list[_MeasuredView]] = (
    weakref.WeakKeyDictionary())


def _is_prefix_of(measured: _MeasuredView, messages: Sequence[dict[str, Any]]) -> bool:
    known = measured.messages
    if not known or len(known) > len(messages) or messages[len(known) - 1] is not known[-1]:
        return False
    return all(map(operator.is_, known, messages))


def _find_longest_prefix(memos: list[_MeasuredView],
                         messages: Sequence[dict[str, Any]]) -> _MeasuredView | None:
    matches = [measured for measured in memos if _is_prefix_of(measured, messages)]
    return max(matches, key=lambda measured: len(measured.messages), default=None)


def _remember(memos: list[_MeasuredView], measured: _MeasuredView) -> None:
    """Keep `measured` first; drop views it extends and the oldest beyond the limit."""
    memos[:] = [measured] + [old for old in memos if not _is_prefix_of(old, measured.messages)]
    del memos[MEMOS_PER_COUNTER:]


def measure_view(messages: Sequence[dict[str, Any]], counter: TokenCounter) -> int:
    """Validate the tool protocol of `messages` and return their tokens.

    Raises ToolProtocolError for an invalid view (and then remembers nothing).
    """
    memos = _memos.setdefault(counter, [])
    known = _find_longest_prefix(memos, messages)
    start = len(known.messages) if known else 0
    new_messages = messages[start:]
    scan = ProtocolScan(known=known.interactions if known else None)
    scan.feed(new_messages, start)
    added = scan.finish()
    tokens = (known.tokens if known else 0) + counter.count_messages(new_messages)
    if known is None:
        interactions = added
    else:
        interactions = {**known.interactions, **added} if added else known.interactions
    _remember(memos, _MeasuredView(tuple(messages), tokens, interactions))
    return tokens
