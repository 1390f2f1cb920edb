"""Measuring what a layer saved, from the messages that changed only.

A view's count is the sum of its messages' counts, and layers share every message they
do not change. So the saving is what the messages that left the view cost minus what the
messages that entered it cost, found by identity (as a multiset: the same dict may
appear twice). This keeps a layer's cost proportional to what it changed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from agent_cli.tokens import TokenCounter


def measure_savings(before: Sequence[dict[str, Any]], after: Sequence[dict[str, Any]],
                    counter: TokenCounter) -> int:
    """Tokens of `before` minus tokens of `after`, by the same counter."""
    left = Counter(map(id, before))
    left.subtract(map(id, after))
    gone = {key for key, times in left.items() if times > 0}
    came = {key for key, times in left.items() if times < 0}
    removed = sum(counter.count_message(m) * left[id(m)] for m in _unique(before, gone))
    added = sum(counter.count_message(m) * -left[id(m)] for m in _unique(after, came))
    return removed - added


def _unique(messages: Sequence[dict[str, Any]], keys: set[int]) -> list[dict[str, Any]]:
    if not keys:
        return []
    seen: dict[int, dict[str, Any]] = {}
    for message in messages:
        key = id(message)
        if key in keys and key not in seen:
            seen[key] = message
    return list(seen.values())
