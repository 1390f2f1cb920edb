"""Measuring what a layer saved, from the messages that changed only.

A view's count is the sum of its messages' counts and layers share every message they
do not change, so the saving is what the messages that left the view cost minus what
the messages that came cost, found by identity (as a multiset: a dict may appear twice).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from agent_cli.tokens import TokenCounter


def measure_savings(
    before: Sequence[dict[str, Any]],
    after: Sequence[dict[str, Any]],
    counter: TokenCounter,
    before_tokens: int | None = None,
) -> int:
    """Tokens of `before` minus tokens of `after`, by the same counter (`before_tokens`:
    the count of `before`, when the caller knows it)."""
    if before_tokens is not None and len(after) * 4 < len(before):
        return before_tokens - counter.count_messages(after)
    before_ids, after_ids = set(map(id, before)), set(map(id, after))
    if len(before_ids) < len(before) or len(after_ids) < len(after):
        return _measure_with_repeats(before, after, counter)
    gone = [message for message in before if id(message) not in after_ids]
    came = [message for message in after if id(message) not in before_ids]
    return counter.count_messages(gone) - counter.count_messages(came)


def _measure_with_repeats(
    before: Sequence[dict[str, Any]], after: Sequence[dict[str, Any]], counter: TokenCounter
) -> int:
    """The same, for lists that hold one dict more than once (counted as many times)."""
    balance = Counter(map(id, before))
    balance.subtract(Counter(map(id, after)))
    by_id = {id(message): message for message in (*before, *after)}
    return sum(counter.count_message(by_id[key]) * times for key, times in balance.items() if times)
