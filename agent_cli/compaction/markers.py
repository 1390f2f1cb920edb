"""How a compaction summary message is recognised, shared by L4 and the summarizers.

Contract: a summary message is a user message whose text starts with `SUMMARY_HEADER`.
Summarizers use `is_summary_message` to merge a previous summary incrementally instead of
re-reading what it already covers.
"""

from __future__ import annotations

from collections.abc import Sequence
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


DIGEST_HEADER = (
    "[Compaction digest: what compaction took out of this view, newest first in each "
    "part. Not the user's words. Recall any item with the recall tool and its pointer.]"
)
DIGEST_LATER_PART = "[Compaction digest, continued: taken out by a later compaction.]"
# Private keys of view messages; the wire builder drops every key but role and content.
SOURCE_KEY = "_source"  # the `transcript:<session>:<sequence>` record a message came from
DIGEST_KEY = "_digest"  # the structured entries behind a digest message's text


def is_digest_message(message: dict[str, Any]) -> bool:
    """True when `message` is the running digest made by compaction. Known by its private
    key, never by its text alone: a user who types the header is still the user."""
    return message.get("role") == "user" and isinstance(message.get(DIGEST_KEY), dict)


def find_last_summary(messages: Sequence[dict[str, Any]]) -> str | None:
    """The body of the newest summary message in `messages`, or None when there is none.

    The one place that answers "what is the last summary" (`/summary` and `/context`).
    L4 keeps one summary, at the start of the view, so the first one found is the last.
    """
    for message in messages:
        if is_summary_message(message):
            return summary_body(message)
    return None
