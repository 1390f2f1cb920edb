"""How compaction's own messages (the summary and the running digest) are recognised.

Contract: each is a user message that carries a private key (never sent: the wire builder
keeps only role and content): `SUMMARY_KEY` on the summary L4 made, whose text starts
with `SUMMARY_HEADER`, and `DIGEST_KEY` on the digest. Neither is ever recognised by its
text alone: a user who types either header is still the user, and their words are kept
as theirs. The one exception is `adopt_unmarked_summary`, for transcripts written before
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
    """True when `message` is a summary message made by L4."""
    return message.get("role") == "user" and message.get(SUMMARY_KEY) is True


def is_acknowledgement(message: dict[str, Any]) -> bool:
    """True when `message` is the acknowledgement L4 put after a summary."""
    return message.get("role") == "assistant" and message.get("content") == ACKNOWLEDGEMENT


def is_digest_message(message: dict[str, Any]) -> bool:
    """True when `message` is the running digest made by compaction."""
    return message.get("role") == "user" and isinstance(message.get(DIGEST_KEY), dict)


def summary_body(message: dict[str, Any]) -> str:
    """The summary text of a summary message, without the header ("" for any other
    message, whatever its text)."""
    if not is_summary_message(message):
        return ""
    text = _leading_text(message)
    return text[len(SUMMARY_HEADER) :].strip() if text.startswith(SUMMARY_HEADER) else ""


def _leading_text(message: dict[str, Any]) -> str:
    """The message's text: its string content, or its first text block's."""
    content = message.get("content")
    if isinstance(content, list):
        content = next(
            (b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"),
            "",
        )
    return content if isinstance(content, str) else ""


def find_last_summary(messages: Sequence[dict[str, Any]]) -> str | None:
    """The body of the newest summary message in `messages`, or None when there is none.
    L4 keeps one summary, at the start of the view, so the first one found is the last."""
    for message in messages:
        if is_summary_message(message):
            return summary_body(message)
    return None


def mark_summary(message: dict[str, Any]) -> dict[str, Any]:
    """`message` (a user message L4 built) as a summary: with `SUMMARY_KEY` set."""
    return {**message, SUMMARY_KEY: True}


def adopt_unmarked_summary(
    view: Sequence[dict[str, Any]], summarized_before: bool
) -> list[dict[str, Any]]:
    """A recorded compaction view with an unmarked summary marked; `view` as it is otherwise.

    `summarized_before`: this compaction, or an earlier one of the same transcript, ran
    L4 (without that no summary can be in the view). Only the first two places are looked
    at (L4 puts its summary first, only the digest goes before it), and only a user
    message without a transcript pointer (`SOURCE_KEY`), which every typed message carries.
    """
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
