"""recall: the model's way back to what compaction removed (see `agent_cli.recall`).

Contract: the tool takes exactly one of `pointer` (read that record or artifact), `search`
(words) or `pattern` (a regex) and hands it, with `offset`, to the session's reader (the
same path `/expand` takes for a pointer), which authorizes only this session's records and
answers one bounded page. What cannot be shown, and a call with none or several of the
three, comes back as an error result saying what to do. The page is already bounded, so
it is never spilled again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_cli.errors import ToolError
from agent_cli.tools.context import PreparedCall, RecallReader, ToolContext
from agent_cli.tools.output import ToolResult

_WAYS = ("pointer", "search", "pattern")


def prepare_recall(context: ToolContext, arguments: dict[str, Any]) -> PreparedCall:
    recall = context.recall
    if recall is None:
        raise ToolError("recall is not available in this session.")
    given = [way for way in _WAYS if way in arguments]
    if len(given) != 1:
        raise ToolError(
            "recall takes exactly one of pointer (to read a record), search (words to find) "
            f"or pattern (a regex to find); got {', '.join(given) or 'none'}."
        )
    way = given[0]
    offset = arguments.get("offset", 0)
    value = arguments[way].strip() if way == "pointer" else arguments[way]
    read = _reader(recall, way, value, offset)

    def execute() -> ToolResult:
        text = read()
        header, _, body = text.partition("\n")
        if way == "pointer":
            return ToolResult(header, body, summary=f"recalled {len(body):,} chars")
        shown = sum(1 for line in body.splitlines() if line.startswith("- "))
        return ToolResult(header, body, summary=f"{shown} {'match' if shown == 1 else 'matches'}")

    return PreparedCall(f"recall {way} {value}" if way != "pointer" else f"recall {value}", execute)


def _reader(recall: RecallReader, way: str, value: str, offset: int) -> Callable[[], str]:
    if way == "pointer":
        return lambda: recall.answer(value, offset)
    return lambda: recall.search(value, regex=way == "pattern", offset=offset)
