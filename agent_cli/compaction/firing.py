"""When a compaction run may stop: the low-water target and the prompt-cache rule.

A layer that changes the view from message p on makes the next request rewrite every cached token
from p on (`invalidated`, at 1.25x instead of 0.1x). A run stops once the view is under the
low-water mark `low`, or earlier, under the soft threshold, when `invalidated * (soft - low) <=
(soft - after) * low`: the rewrite costs no more per token of headroom than a deep step (which
rewrites about `low` and buys `soft - low`) would. The newest message is never counted as cached.
See docs/architecture.md (`firing`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import Any

from agent_cli.compaction.policy import CompactionPolicy


def find_first_change(before: Sequence[dict[str, Any]], after: Sequence[dict[str, Any]]) -> int:
    """Index of the first message of `after` that is not the same object as in `before`."""
    for index, (old, new) in enumerate(zip(before, after, strict=False)):
        if old is not new:
            return index
    return min(len(before), len(after))


class CachedPrefix:
    """The view a run started from and its messages' tokens."""

    def __init__(self, original: Sequence[dict[str, Any]], counts: Sequence[int]) -> None:
        self.original = original
        self._counts = counts
        self._sums: list[int] | None = None

    def count_invalidated(self, view: Sequence[dict[str, Any]]) -> int:
        """Cached tokens of the original view that turning it into `view` makes the next request
        rewrite: its messages from the first change on, the newest one excepted."""
        start = find_first_change(self.original, view)
        end = len(self.original) - 1
        if start >= end:
            return 0
        if self._sums is None:
            self._sums = list(accumulate(self._counts[:end], initial=0))
        return self._sums[end] - self._sums[start]


def is_run_finished(
    policy: CompactionPolicy,
    tokens_after: int,
    original: CachedPrefix,
    view: Callable[[], Sequence[dict[str, Any]]],
) -> bool:
    """True when a run at `tokens_after` may end (module doc); `view` is built only where the rule
    needs to know what changed."""
    low = policy.low_water_mark
    if tokens_after < low:
        return True
    soft = policy.soft_threshold
    if tokens_after >= soft:
        return False
    invalidated = original.count_invalidated(view())
    return invalidated * (soft - low) <= (soft - tokens_after) * low
