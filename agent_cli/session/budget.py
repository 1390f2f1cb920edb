"""The token budget of one request, its calibration, and the compaction loop guard.

Pure: numbers in, numbers out. The compaction core counts the message view with our
estimator; the API counts the whole request with Claude's tokenizer. Two corrections
bring the core's decision in line with what the API will see:

- tokens outside the view (system prompt, durable block, tool schemas) are *reserved*:
  the core counts them against both thresholds, so the view gets what is left;
- the ratio between the API's last reported prompt tokens and our estimate of the same
  request *calibrates* the estimate (clamped, so one odd figure cannot swing it wildly).

The ratio is measured on what the API has counted. Content it has not counted yet (what
the last turn added) may be denser than that: a padded table, JSON, another script.
`uncounted_excess` bounds it from the other side, at its characters over
`CHARS_PER_TOKEN` (`wire_characters`: as the request carries them), so the hard limit
can hold for it too.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from agent_cli.compaction import CompactionPolicy
from agent_cli.compaction.policy import with_thresholds
from agent_cli.tokens import is_sized_block

MIN_CALIBRATION = 0.5
MAX_CALIBRATION = 3.0
MIN_VIEW_BUDGET = 256
# One tool result may keep at most a quarter of the soft threshold in the view: with a
# small threshold, L1 then still has something to cut before whole messages must go.
MAX_RESULT_SHARE_DIVISOR = 4
# After a compaction that made no room, a summary must replace at least this share of the
# conversation's room to be worth its request (`worthwhile_summary_tokens`).
WORTHWHILE_SUMMARY_DIVISOR = 4
# The API's rough rule for text it has not counted: about four characters a token.
CHARS_PER_TOKEN = 4


def calibration_ratio(api_prompt_tokens: int, estimated_prompt_tokens: int) -> float | None:
    """API tokens per estimated token for one request, clamped; None if not measurable."""
    if api_prompt_tokens <= 0 or estimated_prompt_tokens <= 0:
        return None
    ratio = api_prompt_tokens / estimated_prompt_tokens
    return min(MAX_CALIBRATION, max(MIN_CALIBRATION, ratio))


def uncounted_excess(estimated: int, characters: int, ratio: float | None) -> int:
    """What content the API has not counted yet may take beyond its `estimated` tokens,
    in estimator units: its `characters` over `CHARS_PER_TOKEN` (in request tokens) less
    what the calibrated estimate gives it; 0 when the estimate is the larger."""
    scale = ratio or 1.0
    return max(0, math.ceil(characters / CHARS_PER_TOKEN / scale) - estimated)


def wire_characters(value: Any) -> int:
    """The characters of a JSON value as a request carries it: without agent-cli's private
    keys (`_tokens`, `_source`, ...), which the wire builder leaves out, and with none for
    an image or a document, which the API bills by its pixels or pages (the estimate
    holds them as such), not by the characters of its base64."""
    if isinstance(value, dict):
        if is_sized_block(value):
            return 0
        public = [(key, item) for key, item in value.items() if not str(key).startswith("_")]
        return 2 + sum(len(json.dumps(key)) + 2 + wire_characters(item) for key, item in public)
    if isinstance(value, list):
        return 2 + sum(wire_characters(item) + 2 for item in value)
    return len(json.dumps(value))


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


def worthwhile_summary_tokens(policy: CompactionPolicy, reserved_tokens: int) -> int:
    """The least a summary must replace to be worth its request after a compaction that
    made no room (`LoopGuard.made_no_room`): a quarter (`WORTHWHILE_SUMMARY_DIVISOR`) of
    the conversation's room, the soft threshold or what the
    hard limit leaves above the fixed part (`reserved_tokens`), whichever is less. In the
    policy's unit (estimator tokens, as the run's policy).

    Why: a run that cannot get under the soft threshold (the fixed part, system prompt,
    instructions, tool schemas and durable block, is most of it) ran every layer each time
    the guard let it, and asked for a summary of the little that came since the last one
    (200 MCP tool schemas over the threshold: a summary request every other turn, each
    saving under 100 tokens)."""
    room = min(policy.soft_threshold, policy.hard_limit - reserved_tokens)
    return max(1, room // WORTHWHILE_SUMMARY_DIVISOR)


OVER_SOFT = "over_soft"  # why the loop guard holds: still over the soft threshold
FREED_LITTLE = "freed_little"  # or the compaction saved too little to try again at once
NOTHING_FREED = "nothing_freed"  # or no layer could remove anything at all
# or the free layers found nothing and a summary would replace too little to be worth it
SUMMARY_NOT_WORTH_IT = "summary_not_worth_it"
SHORT_OF_AIM = "short_of_aim"  # or a deep run (prune, summary) stopped above its aim


@dataclass
class LoopGuard:
    """Holds compaction back after one that freed too little, until new content arrives.

    A compaction "frees too little" when it saved less than `min_fraction` of the soft
    threshold or could not get under it. Then the guard remembers the view size; the next
    check fires again only when the view has grown by `regrow_fraction` of the threshold
    since, or when the view is at the hard limit (which must never be sent).

    A deep run (one that pruned or summarized) that stopped above the low-water mark it
    aims for (`aim`: what is left is recent, or the summary is long) bought less room than
    a run is meant to: fired again at the soft threshold, it would pay for a summary on
    nearly every turn. The guard then waits for the growth a run that reaches its aim
    allows, `soft_threshold - aim` (at least `regrow_fraction` of the threshold), so
    runs come no more often than they would had it reached it.

    `made_no_room`: the last compaction ended over the soft threshold or freed too little
    (`OVER_SOFT`, `FREED_LITTLE`), and stays so when the hold ends on regrowth, until a
    compaction makes room or `release`. While it is, the compactor asks for a summary only
    when one would replace a worthwhile part (`worthwhile_summary_tokens`).

    `summary_failed`: a summary asked for in the running turn failed (its request ran out
    of retries, timed out, or gave nothing usable): no later compaction of the turn asks
    for one again (each would pay for another series of attempts, minutes under a
    spinner, against a service that just failed), until `new_turn`. `/compact` asks all
    the same.
    """

    min_fraction: float = 0.02
    regrow_fraction: float = 0.05
    held_at: int | None = None
    aim: int | None = None  # the low-water mark a deep run that held stopped above
    made_no_room: bool = False
    summary_failed: bool = False

    def note_summary_failed(self) -> None:
        """A summary failed: ask for none again in this turn."""
        self.summary_failed = True

    def new_turn(self) -> None:
        """A turn begins: its compactions may ask for a summary again."""
        self.summary_failed = False

    def note_compaction(
        self, before: int, after: int, soft_threshold: int, *, deep_aim: int | None = None
    ) -> str | None:
        """Record a compaction (`deep_aim`: the low-water mark of a run that pruned or
        summarized); why the guard now holds (`OVER_SOFT`: it could not get under the
        soft threshold; `FREED_LITTLE`: it saved too little; `SHORT_OF_AIM`: a deep run
        stopped above its mark), or None."""
        why = None
        if after >= soft_threshold:
            why = OVER_SOFT
        elif (before - after) < self.min_fraction * soft_threshold:
            why = FREED_LITTLE
        elif deep_aim is not None and after > deep_aim:
            why = SHORT_OF_AIM
        self.held_at = after if why else None
        self.aim = deep_aim if why == SHORT_OF_AIM else None
        self.made_no_room = why in (OVER_SOFT, FREED_LITTLE)
        return why

    def release(self) -> None:
        """Hold no more (a `/compact` made room)."""
        self.held_at = self.aim = None
        self.made_no_room = False

    def retry_at(self, soft_threshold: int) -> int:
        """The view size from which compaction is tried again while the guard holds."""
        return int((self.held_at or 0) + self._regrowth(soft_threshold))

    def is_holding(self, tokens_now: int, soft_threshold: int, hard_limit: int) -> bool:
        """True when compaction should be skipped for a view of `tokens_now` tokens."""
        if self.held_at is None or tokens_now >= hard_limit:
            return False
        if tokens_now >= self.retry_at(soft_threshold):
            self.held_at = self.aim = None
            return False
        return True

    def _regrowth(self, soft_threshold: int) -> float:
        """How much the view must grow before compaction is tried again."""
        least = self.regrow_fraction * soft_threshold
        return least if self.aim is None else max(least, soft_threshold - self.aim)
