"""The token budget of one request, its calibration, and the compaction loop guard.

Pure: numbers in, numbers out. The compaction core counts the message view with our
estimator; the API counts the whole request with Claude's tokenizer. Two corrections
bring the core's decision in line with what the API will see:

- tokens outside the view (system prompt, durable block, tool schemas) are *reserved*:
  the core counts them against both thresholds, so the view gets what is left;
- the ratio between the API's last reported prompt tokens and our estimate of the same
  request *calibrates* the estimate (clamped, so one odd figure cannot swing it wildly).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from agent_cli.compaction import CompactionPolicy
from agent_cli.compaction.policy import with_thresholds

MIN_CALIBRATION = 0.5
MAX_CALIBRATION = 3.0
MIN_VIEW_BUDGET = 256
# One tool result may keep at most a quarter of the soft threshold in the view: with a
# small threshold, L1 then still has something to cut before whole messages must go.
MAX_RESULT_SHARE_DIVISOR = 4


def calibration_ratio(api_prompt_tokens: int, estimated_prompt_tokens: int) -> float | None:
    """API tokens per estimated token for one request, clamped; None if not measurable."""
    if api_prompt_tokens <= 0 or estimated_prompt_tokens <= 0:
        return None
    ratio = api_prompt_tokens / estimated_prompt_tokens
    return min(MAX_CALIBRATION, max(MIN_CALIBRATION, ratio))


def calibrated_policy(policy: CompactionPolicy, ratio: float | None) -> CompactionPolicy:
    """The policy in estimator units: thresholds divided by the calibration ratio.

    The core counts with our estimator; dividing the thresholds by the API/estimate ratio
    makes them hold in the API's tokens. Soft stays below hard, so the result is valid.
    The per-result limit of L1 is capped at a quarter of the soft threshold; an explicit
    low-water mark keeps its proportion to the soft threshold.
    """
    scale = ratio or 1.0
    hard = max(MIN_VIEW_BUDGET + 1, math.floor(policy.hard_limit / scale))
    soft = min(max(MIN_VIEW_BUDGET, math.floor(policy.soft_threshold / scale)), hard - 1)
    per_result = min(
        policy.max_tool_result_tokens, max(MIN_VIEW_BUDGET, soft // MAX_RESULT_SHARE_DIVISOR)
    )
    return with_thresholds(policy, soft, hard_limit=hard, max_tool_result_tokens=per_result)


def fit_to_window(policy: CompactionPolicy, window: int, answer_tokens: int) -> CompactionPolicy:
    """`policy` with its hard limit at most what the model's context `window` leaves
    beside the answer's room (`answer_tokens`, the request's `max_tokens`), its soft
    threshold lowered in the proportion it had to the hard limit (a low-water mark keeps
    its own to the soft threshold): thresholds set for a 1M-token model, met by a
    200k-token one after `/model`, would send requests the API refuses. `policy` itself
    when it fits (or the window is unknown)."""
    room = window - answer_tokens
    if window <= 0 or policy.hard_limit <= room:
        return policy
    hard = max(MIN_VIEW_BUDGET + 1, room)
    soft = policy.soft_threshold * hard // policy.hard_limit
    return with_thresholds(policy, max(MIN_VIEW_BUDGET, min(soft, hard - 1)), hard_limit=hard)


def to_request_tokens(estimated_tokens: int, ratio: float | None) -> int:
    """An estimate shown in calibrated (API) tokens."""
    return round(estimated_tokens * (ratio or 1.0))


OVER_SOFT = "over_soft"  # why the loop guard holds: still over the soft threshold
FREED_LITTLE = "freed_little"  # or the compaction saved too little to try again at once
NOTHING_FREED = "nothing_freed"  # or no layer could remove anything at all


@dataclass
class LoopGuard:
    """Holds compaction back after one that freed too little, until new content arrives.

    A compaction "frees too little" when it saved less than `min_fraction` of the soft
    threshold or could not get under it. Then the guard remembers the view size; the next
    check fires again only when the view has grown by `regrow_fraction` of the threshold
    since, or when the view is at the hard limit (which must never be sent).
    """

    min_fraction: float = 0.02
    regrow_fraction: float = 0.05
    held_at: int | None = None

    def note_compaction(self, before: int, after: int, soft_threshold: int) -> str | None:
        """Record a compaction; why the guard now holds (`OVER_SOFT`: it could not get
        under the soft threshold; `FREED_LITTLE`: it saved too little), or None."""
        why = None
        if after >= soft_threshold:
            why = OVER_SOFT
        elif (before - after) < self.min_fraction * soft_threshold:
            why = FREED_LITTLE
        self.held_at = after if why else None
        return why

    def retry_at(self, soft_threshold: int) -> int:
        """The view size from which compaction is tried again while the guard holds."""
        return int((self.held_at or 0) + self.regrow_fraction * soft_threshold)

    def is_holding(self, tokens_now: int, soft_threshold: int, hard_limit: int) -> bool:
        """True when compaction should be skipped for a view of `tokens_now` tokens."""
        if self.held_at is None or tokens_now >= hard_limit:
            return False
        if tokens_now >= self.held_at + self.regrow_fraction * soft_threshold:
            self.held_at = None
            return False
        return True
