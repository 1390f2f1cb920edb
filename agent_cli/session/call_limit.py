"""One answer runs only the tool calls that fit in one step; the rest are stored, not lost.

Why: an answer of 3,000 small calls (each under every per-text limit) is one message of
about 160,000 tokens. No layer may split a step (its calls and their results leave or
stay together), so every later request was over the hard limit: the session was blocked
for good.

Contract: `keep_calls_that_fit(message, budget_tokens, count, store)` gives the answer
with its leading tool calls whose tokens (`count` of each `tool_use` block) add up to at
most `budget_tokens` (at least one: a step always runs something), every other block
kept as it was. When calls are left out, `store` is handed the whole answer as JSON and
returns its pointer (an artifact: nothing the model said is lost), and `CallsKept.note`
is what the step's results carry after them, so the model learns how many calls ran,
that the others did not, and where the whole answer is. An answer whose calls all fit is
given back as it is.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Message = dict[str, Any]


@dataclass(frozen=True)
class CallsKept:
    """The answer as one step runs it, and what was left out of it."""

    message: Message
    asked: int  # tool calls the answer held
    kept: int  # of them, the ones the message still holds
    pointer: str | None = None  # the whole answer, stored, when calls were left out

    @property
    def note(self) -> str | None:
        """What the results of the step say after them; None when every call is kept."""
        if self.pointer is None:
            return None
        return (
            f"[This answer asked for {self.asked:,} tool calls; the first {self.kept:,} "
            f"fit in one step and were run, the other {self.asked - self.kept:,} were not. "
            f"The whole answer is stored as {self.pointer}. Ask for the rest in smaller "
            "steps.]"
        )


def keep_calls_that_fit(
    message: Message,
    budget_tokens: int,
    count: Callable[[Any], int],
    store: Callable[[str], str],
) -> CallsKept:
    """The answer with the calls that fit in `budget_tokens` (module contract)."""
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    calls = [block for block in blocks if _is_call(block)]
    fitting, used = 0, 0
    for call in calls:
        used += count(call)
        if fitting and used > budget_tokens:
            break
        fitting += 1
    if fitting == len(calls):
        return CallsKept(message, len(calls), len(calls))
    pointer = store(json.dumps(message, ensure_ascii=False))
    left_out = {id(call) for call in calls[fitting:]}
    kept = [block for block in blocks if id(block) not in left_out]
    return CallsKept({**message, "content": kept}, len(calls), fitting, pointer)


def _is_call(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "tool_use"
