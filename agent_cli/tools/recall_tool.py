"""recall: the model's way back to what compaction removed (see `agent_cli.recall`).

Contract: the tool hands the pointer and offset to the session's recall function (the
same path `/expand` takes), which authorizes only this session's records and answers
one bounded page; a pointer that cannot be shown comes back as an error result with its
status and what to do. The page is already bounded, so it is never spilled again.
"""

from __future__ import annotations

from typing import Any

from agent_cli.errors import ToolError
from agent_cli.tools.context import PreparedCall, ToolContext
from agent_cli.tools.output import ToolResult


def prepare_recall(context: ToolContext, arguments: dict[str, Any]) -> PreparedCall:
    recall = context.recall
    if recall is None:
        raise ToolError("recall is not available in this session.")
    pointer = arguments["pointer"].strip()
    offset = arguments.get("offset", 0)

    def execute() -> ToolResult:
        text = recall(pointer, offset)
        header, _, body = text.partition("\n")
        return ToolResult(header, body, summary=f"recalled {len(body):,} chars")

    return PreparedCall(f"recall {pointer}", execute)
