"""Which messages of a view hold a tool result over L1's budget.

Contract: `find_oversized_results(messages, budget, counter, facts)` gives the indices of
the user messages (list content) holding a tool_result whose content counts more than
`budget` tokens by `counter`, in view order. With the run's message facts (`facts`, built
by the same counter) each message's largest result is read; without them the results
are looked at. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_cli.compaction.facts import FactsIndex
from agent_cli.tokens import TokenCounter


def find_oversized_results(
    messages: Sequence[dict[str, Any]],
    budget: int,
    counter: TokenCounter,
    facts: FactsIndex | None,
) -> list[int]:
    """Indices of the user messages (list content) holding a tool_result over `budget`
    tokens: from the run's `facts` (their largest result, counted by the same counter)
    when given, else by looking at the results."""
    if facts is not None:
        return [
            index
            for index, found in enumerate(facts.of_all(messages))
            if found.largest_result is not None
            and found.largest_result > budget
            and messages[index].get("role") == "user"
            and isinstance(messages[index].get("content"), list)
        ]
    return [
        index
        for index, message in enumerate(messages)
        if isinstance(message.get("content"), list)
        and message.get("role") == "user"
        and has_result_over(message["content"], budget, counter)
    ]


def has_result_over(content: list[Any], budget: int, counter: TokenCounter) -> bool:
    """True when a tool_result block of `content` counts more than `budget` tokens.

    ASCII text no longer than `budget` characters is passed over without a lookup: no
    tokenizer gives more tokens than bytes (BPE merges bytes; the fallback heuristic
    stays under one a character). A plain loop: this runs over every message of the view.
    """
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            continue
        result = block.get("content")
        if type(result) is str and len(result) <= budget and result.isascii():
            continue
        if counter.count_content(result) > budget:
            return True
    return False
