"""The running digest: one message in the view that names everything compaction removed.

Contract:
- Every layer step that removes content (L2, L3, the part L4 summarizes) adds what it
  removed to ONE digest message, merged with the previous one, never a second message.
- The user's own requests stay verbatim, newest first, while they fit in
  `policy.digest_tokens`; older ones are shortened to their head (200 characters, 60
  past twice the budget), with their pointer and their full length.
- Each removed interaction is one line (tool, key input, result size, outcome) with its
  `transcript:` pointer; lines that no longer fit fold into one "older interactions"
  line that keeps the first and last pointer of the range and how many it holds.
- The digest is a plain user text message (valid wire content, no tool blocks) placed
  right after the first message when that is a user message, else first, so the view
  still starts with a user message; the wire builder joins it with its neighbour. Its
  entries ride along under the private `DIGEST_KEY`, which never reaches the wire.
The budget is in the caller's counter's tokens and covers the whole message (header,
titles, the "older" line), so a digest whose requests fit holds `policy.digest_tokens`
as every figure counts it. Each rendered line is counted once, with its newline, through
the counter's text memo, and the message's count is the sum of its lines' (`count_digest`):
cl100k never joins a line break with the text after it, so that sum is the whole text's
count (a little more where a request holds blank or indented lines), without tokenizing
a long digest again at every step. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from agent_cli.compaction.digest_model import (
    Digest,
    InteractionEntry,
    OlderRange,
    RequestEntry,
    digest_from_message,
    digest_to_data,
    sequence_of,
)
from agent_cli.compaction.lines import count_line, line_with_pointer
from agent_cli.compaction.markers import DIGEST_HEADER, DIGEST_KEY, is_digest_message
from agent_cli.compaction.removed import RemovedInteraction, RemovedRequest
from agent_cli.tokens import MESSAGE_OVERHEAD_TOKENS, TokenCounter

__all__ = [  # the entries and their stored form live in `digest_model`; this is the way in
    "Digest",
    "InteractionEntry",
    "OlderRange",
    "RequestEntry",
    "build_digest_message",
    "count_digest",
    "digest_message_tokens",
    "digest_from_message",
    "digest_to_data",
    "insert_digest",
    "merge_digest",
    "render_digest",
    "sequence_of",
    "split_digest",
]

SHORT_REQUEST_CHARS = 200
SHORTEST_REQUEST_CHARS = 60


# --- merging ------------------------------------------------------------------------------


def merge_digest(
    digest: Digest,
    requests: Sequence[RemovedRequest],
    interactions: Sequence[RemovedInteraction],
    budget_tokens: int,
    counter: TokenCounter,
) -> Digest:
    """`digest` with the newly removed items added and the budget applied (module doc)."""
    new_requests = [RequestEntry(r.text, r.pointer) for r in requests]
    all_requests, _ = _newest_first([*new_requests, *digest.requests])
    budget = budget_tokens - _count_frame(counter)
    fitted, used = _fit_requests(all_requests, budget, counter)
    all_lines, is_sorted = _newest_first([*interactions, *digest.interactions])
    line_budget = max(budget - used, budget_tokens // 4)
    kept, folded, used = _fit_lines(all_lines, line_budget, counter)
    older = _fold(digest.older, folded, is_sorted)
    if older.count:
        older = _make_room_for_older(kept, older, line_budget - used, counter)
    return Digest(tuple(fitted), tuple(kept), older)


def _count_frame(counter: TokenCounter) -> int:
    """What every digest costs around its entries: the message, the header, the titles."""
    titles = (DIGEST_HEADER, "User requests:", "Interactions:")
    return MESSAGE_OVERHEAD_TOKENS + sum(count_line(title, counter) for title in titles)


def count_digest(message: dict[str, Any], counter: TokenCounter) -> int:
    """Tokens of a digest message from its lines' memoized counts (module doc); the total
    is given to the counter for the text, so counting the message tokenizes nothing new.
    The figure is `counter.count_message(message)`'s (`digest_message_tokens`)."""
    text = message.get("content")
    if isinstance(text, str) and text:
        *lines, last = text.split("\n")
        total = sum(count_line(line, counter) for line in lines) + counter.count_text(last)
        counter.note_text_count(text, total)
    return digest_message_tokens(message, counter)


def digest_message_tokens(message: dict[str, Any], counter: TokenCounter) -> int:
    """`counter.count_message(message)`'s figure for a digest message, from the text memo
    alone: the message memo would snapshot the thousand entries the message carries."""
    return MESSAGE_OVERHEAD_TOKENS + counter.count_content(message.get("content"))


def _newest_first(entries: list[Any]) -> tuple[list[Any], bool]:
    """By record number, newest first, when every entry has one (and True); else as
    given (and False)."""
    numbers = [sequence_of(entry.pointer) for entry in entries]
    if None in numbers:
        return entries, False
    order = sorted(range(len(entries)), key=lambda i: numbers[i] or 0, reverse=True)
    return [entries[i] for i in order], True


def _fit_requests(
    entries: list[RequestEntry], budget: int, counter: TokenCounter
) -> tuple[list[RequestEntry], int]:
    """Newest first: whole while they fit, then heads of `SHORT_REQUEST_CHARS`, and past
    twice the budget heads of `SHORTEST_REQUEST_CHARS`, so a very long session's requests
    cost a few tokens each while every one of them keeps its words' start and pointer."""
    used, fitted = 0, []
    for entry in entries:
        cost = count_line(_request_line(entry), counter)
        for limit, allowed in ((SHORT_REQUEST_CHARS, budget), (SHORTEST_REQUEST_CHARS, 2 * budget)):
            if used + cost > allowed and len(entry.text) > limit:
                original = entry.shortened_from or len(entry.text)
                entry = replace(entry, text=entry.text[:limit], shortened_from=original)
                cost = count_line(_request_line(entry), counter)
        used += cost
        fitted.append(entry)
    return fitted, used


def _fit_lines(
    entries: list[InteractionEntry | RemovedInteraction], budget: int, counter: TokenCounter
) -> tuple[list[InteractionEntry], list[InteractionEntry | RemovedInteraction], int]:
    """The newest lines that fit, the rest (to fold) and the tokens of those that fit. A
    removed interaction's line is written only when it is kept, so a long removal costs
    its pointers, not its lines."""
    used, kept = 0, list[InteractionEntry]()
    add, new = kept.append, tuple.__new__
    for index, entry in enumerate(entries):
        line = entry.line  # None only for a removed call whose line is not written yet
        if line is None:
            line = entry.describe()  # type: ignore[union-attr]
        cost = count_line(line_with_pointer(line, entry.pointer), counter)
        if used + cost > budget:
            return kept, entries[index:], used
        used += cost
        add(new(InteractionEntry, (line, entry.pointer)))
    return kept, [], used


def _make_room_for_older(
    kept: list[InteractionEntry], older: OlderRange, room: int, counter: TokenCounter
) -> OlderRange:
    """Fold the oldest kept lines (from the end of `kept`, in place) until the "older"
    line fits in the `room` the kept lines left, or what they give back."""
    while kept and count_line(_older_line(older), counter) > room:
        entry = kept.pop()
        room += count_line(line_with_pointer(entry.line, entry.pointer), counter)
        older = _fold(older, [entry])
    return older


def _fold(
    older: OlderRange,
    entries: list[InteractionEntry | RemovedInteraction],
    is_sorted: bool = False,
) -> OlderRange:
    """`older` with `entries` folded in: the count, and the pointers at both ends.
    Entries sorted newest first by record number have their ends at the list's ends,
    so only those two pointers are read."""
    if not entries:
        return older
    first, last = older.first, older.last
    low, high = sequence_of(first), sequence_of(last)
    for entry in (entries[-1], entries[0]) if is_sorted else entries:
        number = sequence_of(entry.pointer)
        if number is None:
            continue
        if low is None or number < low:
            low, first = number, entry.pointer
        if high is None or number > high:
            high, last = number, entry.pointer
    return OlderRange(older.count + len(entries), first, last)


# --- the message --------------------------------------------------------------------------


def render_digest(digest: Digest) -> str:
    """The digest's text, as the model reads it."""
    lines = [DIGEST_HEADER]
    if digest.requests:
        lines.append("User requests:")
        lines += [_request_line(entry) for entry in digest.requests]
    if digest.interactions or digest.older.count:
        lines.append("Interactions:")
        lines += [line_with_pointer(e.line, e.pointer) for e in digest.interactions]
    if digest.older.count:
        lines.append(_older_line(digest.older))
    return "\n".join(lines)


def _older_line(older: OlderRange) -> str:
    span = (
        f"recall by pointer from {older.first} to {older.last}"
        if older.first and older.last
        else "in the transcript"
    )
    noun = "interaction" if older.count == 1 else "interactions"
    return f"- {older.count:,} older {noun}: {span}"


def _request_line(entry: RequestEntry) -> str:
    """A request shown whole is just its words: a pointer would repeat it at a cost of about
    twenty tokens a line, read again on every request. A shortened one keeps its pointer and
    full length, the way back to the words it lost."""
    if not entry.shortened_from:
        return f"- {entry.text}"
    notes = [entry.pointer] if entry.pointer else []
    notes.append(f"shortened from {entry.shortened_from:,} chars")
    return f"- ({'; '.join(notes)}) {entry.text}…"


def build_digest_message(digest: Digest) -> dict[str, Any]:
    return {"role": "user", "content": render_digest(digest), DIGEST_KEY: digest_to_data(digest)}


# --- where it sits ------------------------------------------------------------------------


def split_digest(
    view: Sequence[dict[str, Any]],
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The view without its digest message, and that message (None when there is none).

    Compaction puts the digest first or second, so only those places are looked at.
    """
    for index in range(min(2, len(view))):
        if is_digest_message(view[index]):
            return [*view[:index], *view[index + 1 :]], view[index]
    return list(view), None


def insert_digest(
    view: Sequence[dict[str, Any]], message: dict[str, Any] | None
) -> list[dict[str, Any]]:
    """`view` with the digest after its first message if that is a user one, else first."""
    if message is None:
        return list(view)
    at = 1 if view and view[0].get("role") == "user" else 0
    return [*view[:at], message, *view[at:]]
