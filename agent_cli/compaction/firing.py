"""When a compaction run may stop: the low-water target and the prompt-cache rule.

Prompt caching (DESIGN.md section 5) reads a cached prefix at 0.1x the input price and
writes what is new at 1.25x, so a layer that changes the view from message p on makes
the next request rewrite every cached token from p on (`invalidated`): an extra 1.15x
each, paid once per firing. A firing buys headroom, the tokens the view may grow by
before the soft threshold is crossed again, so what matters is the rewrite's cost per
token of headroom: a deep step (L3/L4) rewrites about the low-water mark `low` it keeps
and buys `soft - low`; a stop under the soft threshold at `after` tokens rewrites
`invalidated` and buys `soft - after`.

Rule: a run stops once the view is under the low-water mark, or earlier, under the soft
threshold, when `invalidated * (soft - low) <= (soft - after) * low`: the layers so far
cost no more per token of headroom than the deep step would. So an L1 that truncates the
result that just arrived (nothing cached behind it) ends the run, while an L2 that drops
an early read under a 20,000-token cached prefix does not. A smaller view is cheaper to
read too, which only favours the deeper step, so the rule leans towards keeping detail.
The newest message is never counted as cached: it was appended since the last request.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import Any

from agent_cli.compaction.policy import CompactionPolicy


def find_first_change(before: Sequence[dict[str, Any]], after: Sequence[dict[str, Any]]) -> int:
    """Index of the first message of `after` that is not the same object as in `before`
    (layers share what they leave alone, so identity tells what changed)."""
    for index, (old, new) in enumerate(zip(before, after, strict=False)):
        if old is not new:
            return index
    return min(len(before), len(after))


class CachedPrefix:
    """The view a run started from, which stays the same for the whole run, and the
    tokens of each of its messages (`ViewIndex.message_counts`)."""

    def __init__(self, original: Sequence[dict[str, Any]], counts: Sequence[int]) -> None:
        self.original = original
        self._counts = counts
        self._sums: list[int] | None = None

    def count_invalidated(self, view: Sequence[dict[str, Any]]) -> int:
        """Cached tokens of the original view that changing it into `view` makes the next
        request rewrite: its messages from the first change on, the newest one excepted."""
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
    """True when the layers run so far, which made the view `view()` builds of `original`
    at `tokens_after` tokens, may end the run (the module's rule). The view is built only
    where the rule needs to know what changed."""
    low = policy.low_water_mark
    if tokens_after < low:
        return True
    soft = policy.soft_threshold
    if tokens_after >= soft:
        return False
    invalidated = original.count_invalidated(view())
    return invalidated * (soft - low) <= (soft - tokens_after) * low
