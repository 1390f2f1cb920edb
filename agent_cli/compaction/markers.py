"""How a compaction summary message is recognised, shared by L4 and the summarizers.

Contract: a summary message is a user message whose text starts with `SUMMARY_HEADER`.
Summarizers use `is_summary_message` to merge a previous summary incrementally instead of
re-reading what it already covers.
"""

from __future__ import annotations

from typing import Any

SUMMARY_HEADER = "[Conversation summary: written by context compaction, not the user's words]"


def is_summary_message(message: dict[str, Any]) -> bool:
    """True when `message` is a summary message made by L4."""
    if message.get("role") != "user":
        return False
    content = message.get("content")
    if isinstance(content, list):
        content = next(
            (b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"),
            "",
        )
    return isinstance(content, str) and content.startswith(SUMMARY_HEADER)


def summary_body(message: dict[str, Any]) -> str:
    """The summary text of a summary message, without the header."""
    content = message.get("content")
    if isinstance(content, list):
        content = next(
            (b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"),
            "",
        )
    text = content if isinstance(content, str) else ""
    return text[len(SUMMARY_HEADER) :].strip() if text.startswith(SUMMARY_HEADER) else ""
