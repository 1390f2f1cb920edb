"""How compaction's own messages (the summary and the running digest) are recognised.

Contract: each is a user message carrying a private key (the wire builder drops it): `SUMMARY_KEY`
on L4's summary, whose text starts with `SUMMARY_HEADER`, `DIGEST_KEY` on the digest. Neither is
recognised by its text alone, except by `adopt_unmarked_summary`, for transcripts written before
`SUMMARY_KEY` existed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

SUMMARY_HEADER = "[Conversation summary: written by context compaction, not the user's words]"
DIGEST_HEADER = (
    "[Compaction digest: what compaction took out of this view, newest first in each "
    "part. Not the user's words. Recall any item with the recall tool and its pointer.]"
)
DIGEST_LATER_PART = "[Compaction digest, continued: taken out by a later compaction.]"
# Private keys of view messages; the wire builder drops every key but role and content.
SOURCE_KEY = "_source"  # the `transcript:<session>:<sequence>` record a message came from
DIGEST_KEY = "_digest"  # the structured entries behind a digest message's text
SUMMARY_KEY = "_summary"  # True on the summary message L4 made
# What L4 puts after its summary when the recent window starts with a user message.
ACKNOWLEDGEMENT = "Understood. I will continue from that summary and the messages that follow."


def is_summary_message(message: dict[str, Any]) -> bool:
    return message.get("role") == "user" and message.get(SUMMARY_KEY) is True


def is_acknowledgement(message: dict[str, Any]) -> bool:
    return message.get("role") == "assistant" and message.get("content") == ACKNOWLEDGEMENT


def is_digest_message(message: dict[str, Any]) -> bool:
    return message.get("role") == "user" and isinstance(message.get(DIGEST_KEY), dict)


def summary_body(message: dict[str, Any]) -> str:
    """The summary text of a summary message, without the header; "" for any other message."""
    if not is_summary_message(message):
        return ""
    text = _leading_text(message)
    return text[len(SUMMARY_HEADER) :].strip() if text.startswith(SUMMARY_HEADER) else ""


def _leading_text(message: dict[str, Any]) -> str:
    """Its string content, or its first text block's text."""
    content = message.get("content")
    if isinstance(content, list):
        content = next(
            (b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"),
            "",
        )
    return content if isinstance(content, str) else ""


def find_last_summary(messages: Sequence[dict[str, Any]]) -> str | None:
    """The body of the summary message in `messages` (L4 keeps one, at the start), or None."""
    for message in messages:
        if is_summary_message(message):
            return summary_body(message)
    return None


def mark_summary(message: dict[str, Any]) -> dict[str, Any]:
    return {**message, SUMMARY_KEY: True}


def adopt_unmarked_summary(
    view: Sequence[dict[str, Any]], summarized_before: bool
) -> list[dict[str, Any]]:
    """`view` with an unmarked summary among its first two messages marked, when `summarized_before`
    (L4 ran on this transcript). Only a user message without a transcript pointer qualifies: every
    typed message carries one."""
    adopted = list(view)
    if not summarized_before or any(is_summary_message(m) for m in adopted[:2]):
        return adopted
    for index, message in enumerate(adopted[:2]):
        if _is_unmarked_summary(message):
            adopted[index] = mark_summary(message)
            break
    return adopted


def _is_unmarked_summary(message: dict[str, Any]) -> bool:
    return (
        message.get("role") == "user"
        and SUMMARY_KEY not in message
        and SOURCE_KEY not in message
        and not is_digest_message(message)
        and _leading_text(message).startswith(SUMMARY_HEADER)
    )
