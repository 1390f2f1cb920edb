"""recall: the model's way back to what compaction removed (see `agent_cli.recall`).

Contract: the tool takes exactly one of `pointer` (read that record or artifact), `search`
(words) or `pattern` (a regex) and hands it, with `offset`, to the session's reader (the
same path `/expand` takes for a pointer), which authorizes only this session's records and
answers one bounded page. What cannot be shown, and a call with none or several of the
three, comes back as an error result saying what to do. The page is already bounded, so
it is never spilled again. A search page, whose excerpts the search redacted itself, and a
page of a record this run wrote (`RecallPage.as_recorded`) are marked `already_redacted`:
redacting the model's own words in them would tell it which is a secret (`tools.echo`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_cli.errors import ToolError
from agent_cli.tools.context import PreparedCall, RecallPage, RecallReader, ToolContext
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
        page = read()
        header, _, body = page.text.partition("\n")
        if way == "pointer":
            summary = f"recalled {len(body):,} chars"
            return ToolResult(header, body, summary=summary, already_redacted=page.as_recorded)
        shown = sum(1 for line in body.splitlines() if line.startswith("- "))
        summary = f"{shown} {'match' if shown == 1 else 'matches'}"
        return ToolResult(header, body, summary=summary, already_redacted=True)

    return PreparedCall(f"recall {way} {value}" if way != "pointer" else f"recall {value}", execute)


def _reader(recall: RecallReader, way: str, value: str, offset: int) -> Callable[[], RecallPage]:
    if way == "pointer":
        return lambda: recall.answer(value, offset)
    return lambda: RecallPage(recall.search(value, regex=way == "pattern", offset=offset), True)
