"""When a compaction run may stop: the low-water target and the prompt-cache rule.

Prompt caching (DESIGN.md section 5) is a prefix cache: a request reads what an earlier
request wrote up to its breakpoint, at 0.1x the plain input price, and writes what is new
at 1.25x. A layer that changes the view from message p on therefore makes the next
request write every token from p to the end again: 1.25x instead of 0.1x, an extra
1.15x on each of those `invalidated` tokens, paid once per firing. What a firing buys
is headroom: the tokens the view may grow by before the soft threshold is crossed again.
The rewrite is paid again at every firing, so what matters is its cost per token of
headroom bought (the growth per request cancels out when two plans are compared):

- a deep step (L3/L4) rewrites about everything it keeps, the low-water mark `low`, and
  buys `soft - low` of headroom: 1.15 * low / (soft - low) per token of headroom
  (1.15 with the default `low = soft / 2`);
- a shallow stop just under the soft threshold, at `after` tokens, rewrites the
  `invalidated` tokens and buys `soft - after`: 1.15 * invalidated / (soft - after).

Rule: a run stops once the view is under the low-water mark; it also stops earlier,
under the soft threshold, when the layers so far cost no more per token of headroom than
the deep step would: `invalidated * (soft - low) <= (soft - after) * low` (the 1.15
cancels). So an L1 that truncates the result that just arrived (nothing cached behind
it) ends the run, while an L2 that drops an early read to save a few hundred tokens
under a 20,000-token cached prefix does not: the run goes on to a deeper step. Reading
the smaller view is cheaper too (0.1x per token per request), which only favours the
deeper step further, so the rule leans towards keeping detail when in doubt.

The newest message is never counted as cached: a request always follows something
appended since the previous one (the user's text or tool results), which was not sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate
from typing import Any

from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.tokens import TokenCounter

CACHE_WRITE_PRICE = 1.25  # times the plain input price
CACHE_READ_PRICE = 0.1


def find_first_change(before: Sequence[dict[str, Any]], after: Sequence[dict[str, Any]]) -> int:
    """Index of the first message of `after` that is not the same object as in `before`
    (layers share what they leave alone, so identity tells what changed)."""
    for index, (old, new) in enumerate(zip(before, after, strict=False)):
        if old is not new:
            return index
    return min(len(before), len(after))


class CachedPrefix:
    """The view a run started from, which stays the same for the whole run."""

    def __init__(self, original: Sequence[dict[str, Any]], counter: TokenCounter) -> None:
        self.original = original
        self._counter = counter
        self._sums: list[int] | None = None

    def count_invalidated(self, view: Sequence[dict[str, Any]]) -> int:
        """Cached tokens of the original view that changing it into `view` makes the next
        request rewrite: its messages from the first change on, the newest one excepted."""
        start = find_first_change(self.original, view)
        end = len(self.original) - 1
        if start >= end:
            return 0
        if self._sums is None:
            counts = map(self._counter.count_message, self.original[:end])
            self._sums = list(accumulate(counts, initial=0))
        return self._sums[end] - self._sums[start]


def is_run_finished(
    policy: CompactionPolicy,
    tokens_after: int,
    original: CachedPrefix,
    view: Sequence[dict[str, Any]],
) -> bool:
    """True when the layers run so far, which made `view` of `original` at `tokens_after`
    tokens, may end the run (the module's rule)."""
    low = policy.low_water_mark
    if tokens_after < low:
        return True
    soft = policy.soft_threshold
    if tokens_after >= soft:
        return False
    invalidated = original.count_invalidated(view)
    return invalidated * (soft - low) <= (soft - tokens_after) * low
