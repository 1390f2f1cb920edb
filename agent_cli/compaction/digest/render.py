"""How the running digest reads and where it sits in the view. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_cli.compaction.digest.entries import Digest, OlderRange, digest_to_data
from agent_cli.compaction.digest.removed_items import request_line, with_pointer
from agent_cli.compaction.markers import (
    DIGEST_HEADER,
    DIGEST_KEY,
    DIGEST_LATER_PART,
    is_digest_message,
    is_summary_message,
)

REQUESTS_TITLE = "User requests:"
LINES_TITLE = "Interactions:"


def render_digest(digest: Digest) -> str:
    return "\n".join(render_digest_parts(digest))


def render_digest_parts(digest: Digest) -> list[str]:
    """The text of each part, oldest first; the first opens with the header and holds the folded
    lines, later ones open with `DIGEST_LATER_PART`. A part's text depends on its own entries only.
    """
    texts = []
    for index, (requests, interactions) in enumerate(digest.split_parts()):
        older = digest.older if index == 0 else OlderRange()
        older_requests = digest.older_requests if index == 0 else OlderRange()
        lines = [DIGEST_HEADER if index == 0 else DIGEST_LATER_PART]
        if requests or older_requests.count:
            lines.append(REQUESTS_TITLE)
            lines += [request_line(entry) for entry in requests]
        if older_requests.count:
            lines.append(older_line(older_requests, "request"))
        if interactions or older.count:
            lines.append(LINES_TITLE)
            lines += [with_pointer(e.line, e.pointer) for e in interactions]
        if older.count:
            lines.append(older_line(older))
        texts.append("\n".join(lines))
    return texts


FIND_FOLDED = "find one by its words with recall search"


def older_line(older: OlderRange, noun: str = "interaction") -> str:
    """The fold line: how many entries, their pointers' range and how to find one (recall's search)."""
    span = (
        f"recall by pointer from {older.first} to {older.last} or {FIND_FOLDED}"
        if older.first and older.last
        else FIND_FOLDED
    )
    return f"- {older.count:,} older {noun}{'' if older.count == 1 else 's'}: {span}"


def build_digest_message(digest: Digest, text: str | None = None) -> dict[str, Any]:
    """The view message: the digest's text (`text`, when rendered already) and its entries under
    `DIGEST_KEY`."""
    content = render_digest(digest) if text is None else text
    return {"role": "user", "content": content, DIGEST_KEY: digest_to_data(digest)}


def split_digest(
    view: Sequence[dict[str, Any]],
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The view without its digest message (looked for in the first two places), and that message or
    None."""
    for index in range(min(2, len(view))):
        if is_digest_message(view[index]):
            return [*view[:index], *view[index + 1 :]], view[index]
    return list(view), None


def insert_digest(
    view: Sequence[dict[str, Any]], message: dict[str, Any] | None
) -> list[dict[str, Any]]:
    """`view` with the digest after its first message when that is a user message other than a
    summary, else first, so the digest's parts stay in the cached prefix."""
    if message is None:
        return list(view)
    first = view[0] if view else None
    at = 1 if first and first.get("role") == "user" and not is_summary_message(first) else 0
    return [*view[:at], message, *view[at:]]
