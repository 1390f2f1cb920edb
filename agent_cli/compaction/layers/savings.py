"""Measuring what a layer saved, from the messages that changed only.

A view's count is the sum of its messages' counts, and layers share every message they
do not change. So the saving is what the messages that left the view cost minus what the
messages that entered it cost, found by identity (as a multiset: the same dict may
appear twice). This keeps a layer's cost proportional to what it changed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from agent_cli.tokens import MESSAGE_OVERHEAD_TOKENS, TokenCounter


def measure_savings(
    before: Sequence[dict[str, Any]],
    after: Sequence[dict[str, Any]],
    counter: TokenCounter,
    before_tokens: int | None = None,
) -> int:
    """Tokens of `before` minus tokens of `after`, by the same counter.

    `before_tokens`, when the caller already knows the count of `before`, turns this into
    a count of `after` alone, which is cheaper when `after` is much shorter.
    """
    if before_tokens is not None and len(after) * 4 < len(before):
        return before_tokens - counter.count_messages(after)
    after_ids = set(map(id, after))
    if len(after_ids) == len(after) and len(set(map(id, before))) == len(before):
        gone = [message for message in before if id(message) not in after_ids]
        if len(after) == len(before) - len(gone):
            return counter.count_messages(gone)  # nothing new came in
        before_ids = set(map(id, before))
        came = [message for message in after if id(message) not in before_ids]
        return counter.count_messages(gone) - counter.count_messages(came)
    return _measure_with_repeats(before, after, counter)


def _measure_with_repeats(
    before: Sequence[dict[str, Any]], after: Sequence[dict[str, Any]], counter: TokenCounter
) -> int:
    """The same, for lists that hold one dict more than once (counted as many times)."""
    balance = Counter(map(id, before))
    balance.subtract(Counter(map(id, after)))
    by_id = {id(message): message for message in (*before, *after)}
    return sum(counter.count_message(by_id[key]) * times for key, times in balance.items() if times)


def measure_removal_savings(
    messages: Sequence[dict[str, Any]],
    changes: Mapping[int, dict[str, Any] | None],
    counter: TokenCounter,
) -> int:
    """Tokens saved by the `changes` of `protocol.strip_interactions` (index -> the message
    left, or None where it goes).

    A message's count is its overhead plus its blocks' counts, so a shrunk message saves
    its count minus that of the blocks it keeps (usually short text, counted from the
    memo) and a dropped one all of it: no new message is counted as a whole, and no tool
    input is serialized again, which made removal from a long view costly.
    """
    saved = 0
    for index, replacement in changes.items():
        saved += counter.count_message(messages[index])
        if replacement is not None:
            saved -= MESSAGE_OVERHEAD_TOKENS
            for block in replacement["content"]:
                saved -= counter.count_block(block)
    return saved
