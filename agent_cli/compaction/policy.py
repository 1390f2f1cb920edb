"""The compaction policy: thresholds and knobs, validated once, frozen.

Contract: every number is a positive int, `soft_threshold < hard_limit` and, when set, `low_water <
soft_threshold`; a bad value raises `PolicyError` (a ValueError) naming the field.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agent_cli.errors import PolicyError
from agent_cli.secret_forms import NO_SECRETS, SecretForms

_POSITIVE_FIELDS = (
    "soft_threshold",
    "hard_limit",
    "max_tool_result_tokens",
    "keep_recent_messages",
    "summary_keep_recent",
)
# (read_tool_names, read_path_key): what L2's read keys depend on (`read_keys.read_rule`)
ReadRule = tuple[frozenset[str], str]


MIN_DIGEST_TOKENS = 64  # the header, a title, the newest request and the folded ranges


@dataclass(frozen=True)
class CompactionPolicy:
    """When to compact and how much each layer keeps.

    - `soft_threshold`: at or above it (view plus reserved tokens) the layers run.
    - `low_water`: a firing compacts to under this mark. None, or a mark at or under the reserve,
      means the default (`low_water_mark_over`).
    - `hard_limit`: at or above it after every layer, no request may be sent.
    - `max_tool_result_tokens`: L1 truncates tool results larger than this.
    - `keep_recent_messages`: L3 keeps message 0 and this many last messages.
    - `summary_keep_recent`: L4 keeps at least this many last messages verbatim.
    - `read_tool_names` / `read_path_key`: how L2 recognises a file read.
    - `digest_tokens`: the running digest's budget; 0 means a quarter of the soft threshold, fixed
      when the policy is made. A run caps it with `digest_budget_over`.
    - `max_message_tokens`: a larger user message becomes an artifact with a preview; 0 means a
      quarter of the soft threshold.
    - `secret_forms`: the session's secrets; no layer cuts text inside one (`safe_cuts`). Not
      compared, not shown.
    """

    soft_threshold: int = 80_000
    hard_limit: int = 120_000
    max_tool_result_tokens: int = 5_000
    keep_recent_messages: int = 6
    summary_keep_recent: int = 4
    read_tool_names: frozenset[str] = field(default_factory=lambda: frozenset({"read_file"}))
    read_path_key: str = "path"
    low_water: int | None = None
    digest_tokens: int = 0
    max_message_tokens: int = 0
    secret_forms: SecretForms = field(default=NO_SECRETS, compare=False, repr=False)

    @property
    def low_water_mark(self) -> int:
        """The mark with nothing reserved: `low_water`, or half the soft threshold."""
        return self.low_water_mark_over(0)

    def low_water_mark_over(self, reserved_tokens: int) -> int:
        """The budget a firing compacts down to when every request also carries `reserved_tokens`:
        an explicit reachable `low_water`, else halfway between the reserve and the soft threshold,
        always within 1 .. soft - 1."""
        if self.low_water is not None and not self.is_low_water_unreachable(reserved_tokens):
            return self.low_water
        room = max(0, self.soft_threshold - reserved_tokens)
        mark = reserved_tokens + room // 2
        return max(1, min(mark, self.soft_threshold - 1))

    def without_reserve(self, reserved_tokens: int) -> tuple[CompactionPolicy, int]:
        """(this policy for the messages alone, the tokens taken out): soft threshold, hard limit
        and low-water mark move down by the reserve, at most to a soft threshold of 2; a soft
        threshold of 1 comes back as it is."""
        if self.soft_threshold < 2:
            return self, 0
        low = self.low_water_mark_over(reserved_tokens)
        shift = max(0, min(reserved_tokens, self.soft_threshold - 2))
        moved = dataclasses.replace(
            self,
            soft_threshold=self.soft_threshold - shift,
            hard_limit=self.hard_limit - shift,
            low_water=low - shift,
        )
        return moved, shift

    def digest_budget_over(self, reserved_tokens: int) -> int:
        """`digest_tokens`, at most a quarter of the room `reserved_tokens` leave under the hard
        limit (at least `MIN_DIGEST_TOKENS`), so a large reserve cannot let the digest eat the room
        the layers make."""
        room = self.hard_limit - reserved_tokens
        return min(self.digest_tokens, max(MIN_DIGEST_TOKENS, room // 4))

    def with_digest_under_soft(self, reserved_tokens: int) -> CompactionPolicy:
        """This policy with `digest_tokens` at most a quarter of the room `reserved_tokens` leave
        under the soft threshold (at least `MIN_DIGEST_TOKENS`): requests may take twice the budget,
        so the digest never holds more than half that room and a run can end under the soft
        threshold however long the session (applied before `/compact` or the loop guard move it)."""
        room = max(MIN_DIGEST_TOKENS, (self.soft_threshold - reserved_tokens) // 4)
        if self.digest_tokens <= room:
            return self
        return dataclasses.replace(self, digest_tokens=room)

    def is_low_water_unreachable(self, reserved_tokens: int) -> bool:
        """True when an explicit `low_water` is at or under `reserved_tokens`."""
        return self.low_water is not None and self.low_water <= reserved_tokens

    def __post_init__(self) -> None:
        for name in _POSITIVE_FIELDS:
            value = getattr(self, name)
            if type(value) is not int or value <= 0:
                raise PolicyError(name, "must be a positive integer")
        if self.soft_threshold >= self.hard_limit:
            raise PolicyError("soft_threshold", "must be below hard_limit")
        if self.low_water is not None:
            if type(self.low_water) is not int or self.low_water <= 0:
                raise PolicyError("low_water", "must be a positive integer")
            if self.low_water >= self.soft_threshold:
                raise PolicyError("low_water", "must be below soft_threshold")
        for name in ("digest_tokens", "max_message_tokens"):
            value = getattr(self, name)
            if type(value) is not int or value < 0:
                raise PolicyError(name, "must be a non-negative integer (0: a quarter of soft)")
            if value == 0:
                object.__setattr__(self, name, max(1, self.soft_threshold // 4))
        object.__setattr__(self, "read_tool_names", _as_name_set(self.read_tool_names))
        if not isinstance(self.read_path_key, str) or not self.read_path_key:
            raise PolicyError("read_path_key", "must be a non-empty string")


def _as_name_set(names: Iterable[str]) -> frozenset[str]:
    if isinstance(names, str):
        raise PolicyError("read_tool_names", "must be a collection of names, not one string")
    try:
        result = frozenset(names)
    except TypeError:
        raise PolicyError("read_tool_names", "must be a collection of names") from None
    if not all(isinstance(name, str) and name for name in result):
        raise PolicyError("read_tool_names", "every name must be a non-empty string")
    return result


def with_thresholds(
    policy: CompactionPolicy, soft_threshold: int, **changes: Any
) -> CompactionPolicy:
    """`policy` with a new soft threshold (and `changes`), an explicit low-water mark scaled in
    proportion and kept below it."""
    low_water = policy.low_water
    if low_water is not None:
        scaled = round(low_water * soft_threshold / policy.soft_threshold)
        low_water = min(max(1, scaled), soft_threshold - 1) if soft_threshold > 1 else None
    return dataclasses.replace(
        policy, soft_threshold=soft_threshold, low_water=low_water, **changes
    )
