"""The compaction policy: thresholds and knobs, validated once, frozen afterwards.

Contract: every number is a positive int and `soft_threshold < hard_limit`; a bad value
raises `PolicyError` (a ValueError) naming the field. Thresholds are plain settings that
may go up or down; nothing here assumes a particular model window.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from agent_cli.errors import PolicyError

_POSITIVE_FIELDS = (
    "soft_threshold",
    "hard_limit",
    "max_tool_result_tokens",
    "keep_recent_messages",
    "summary_keep_recent",
)
_DERIVED_FIELDS = ("digest_tokens", "max_message_tokens")


@dataclass(frozen=True)
class CompactionPolicy:
    """When to compact and how much each layer keeps.

    - `soft_threshold`: at or above it (view plus reserved tokens) the layers run.
    - `hard_limit`: at or above it after every layer, no request may be sent.
    - `max_tool_result_tokens`: L1 truncates tool results larger than this.
    - `keep_recent_messages`: L3 keeps message 0 and this many last messages.
    - `summary_keep_recent`: L4 keeps at least this many last messages verbatim.
    - `read_tool_names` / `read_path_key`: how L2 recognises a file read from its tool_use.
    - `digest_tokens`: what the running digest may hold of the user's requests verbatim
      (older ones are shortened) and of interaction lines; 0 means a quarter of the soft
      threshold, fixed when the policy is made (a policy derived with `replace` keeps it).
    - `max_message_tokens`: a user message larger than this is stored as an artifact and
      stands in the view as a preview; 0 means a quarter of the soft threshold.
    """

    soft_threshold: int = 80_000
    hard_limit: int = 120_000
    max_tool_result_tokens: int = 5_000
    keep_recent_messages: int = 6
    summary_keep_recent: int = 4
    read_tool_names: frozenset[str] = field(default_factory=lambda: frozenset({"read_file"}))
    read_path_key: str = "path"
    digest_tokens: int = 0
    max_message_tokens: int = 0

    def __post_init__(self) -> None:
        for name in _POSITIVE_FIELDS:
            value = getattr(self, name)
            if type(value) is not int or value <= 0:
                raise PolicyError(name, "must be a positive integer")
        if self.soft_threshold >= self.hard_limit:
            raise PolicyError("soft_threshold", "must be below hard_limit")
        for name in _DERIVED_FIELDS:
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
