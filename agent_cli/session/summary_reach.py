"""What an L4 summary asked for now could free: the messages it would replace.

Contract: `summary_reach` weighs, with the given per-message counter, the messages before
the recent window L4 keeps (`compaction.layers.summary.find_summary_boundary`, the window
widened so no tool interaction is split), leaving out the running digest, the previous
summary and its acknowledgement: a new summary carries those forward rather than frees
them. Pure; the compactor compares it with `budget.worthwhile_summary_tokens` before it
pays for a summary after a compaction that made no room.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agent_cli.compaction.layers.summary import find_summary_boundary
from agent_cli.compaction.markers import (
    is_acknowledgement,
    is_digest_message,
    is_summary_message,
)

Message = dict[str, Any]


def summary_reach(
    messages: Sequence[Message], keep_recent: int, count_message: Callable[[Message], int]
) -> int:
    """Tokens of what a summary of `messages` keeping `keep_recent` last ones would replace
    (module contract); 0 when nothing precedes the window."""
    start = find_summary_boundary(messages, keep_recent)
    return sum(count_message(m) for m in messages[:start] if not _carried_forward(m))


def _carried_forward(message: Message) -> bool:
    """True for what a new summary keeps in another form: the digest, the last summary."""
    return is_digest_message(message) or is_summary_message(message) or is_acknowledgement(message)
