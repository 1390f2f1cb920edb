"""Adding what a layer step removed to the running digest, within its budget.

Contract:
- Every layer step that removes content (L2, L3, the part L4 summarizes) adds what it
  removed to ONE digest message, merged with the previous one, never a second message.
- New items go in one more part after the parts already written while the whole digest
  stays within the budget with every new request whole. A part once written reads the
  same from then on, so the cached prefix that ends with it stays cached (the wire
  builder sends each part as a text block, the last one a cache breakpoint).
- Otherwise every entry is fitted again into one part (`refit_digest`): the user's
  requests newest first, whole while they fit the budget, then shortened to their head
  (`SHORT_REQUEST_CHARS`; `SHORTEST_REQUEST_CHARS` past twice the budget) with their
  pointer and full length; then the newest interaction lines that fit what the requests
  leave less `REFIT_HEADROOM` (room for the parts later compactions add). The rest fold
  into the "older" line (count and end pointers), whose room is always kept. Entries are
  ordered by record number when every one has one. A shortened text ends where no
  pointer and none of `secrets` is split (`safe_cuts`).
- The budget (in the caller's counter's tokens) covers the whole message: header,
  titles, the "older" line. It weighs the sum of the rendered lines' counts, each with its
  newline (`removed_items.count_line`); the digest message carries that sum as its text's
  count (`carry_line_count`), so every figure counts it the same way, on any counter.
Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from agent_cli.compaction.digest.entries import (
    Digest,
    InteractionEntry,
    OlderRange,
    RequestEntry,
    sequence_of,
)
from agent_cli.compaction.digest.removed_items import (
    RemovedInteraction,
    RemovedRequest,
    count_line,
    with_pointer,
)
from agent_cli.compaction.digest.render import older_line, render_digest, request_line
from agent_cli.compaction.markers import DIGEST_HEADER, DIGEST_LATER_PART
from agent_cli.safe_cuts import safe_head_end
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.tokens import MESSAGE_OVERHEAD_TOKENS, TokenCounter

SHORT_REQUEST_CHARS = 200
SHORTEST_REQUEST_CHARS = 60
REFIT_HEADROOM = 0.25  # share of the budget a refitted digest leaves for later parts
MIN_LINE_TOKENS = 1  # no entry's line costs less: it holds at least its newline
Line = InteractionEntry | RemovedInteraction


def merge_digest(
    digest: Digest,
    requests: Sequence[RemovedRequest],
    interactions: Sequence[RemovedInteraction],
    budget_tokens: int,
    counter: TokenCounter,
    rendered_tokens: int | None = None,
    secrets: SecretForms = NO_SECRETS,
) -> Digest:
    """`digest` with the newly removed items added (module contract). `rendered_tokens`:
    the digest's tokens as the budget counts them, when the caller has them
    (`count_rendered_message` of the message it came from)."""
    if not (requests or interactions):
        return digest
    appended = _append_part(
        digest, requests, interactions, budget_tokens, rendered_tokens, counter, secrets
    )
    if appended is not None:
        return appended
    return refit_digest(digest, requests, interactions, budget_tokens, counter, secrets)


def _append_part(
    digest: Digest,
    requests: Sequence[RemovedRequest],
    interactions: Sequence[RemovedInteraction],
    budget_tokens: int,
    rendered_tokens: int | None,
    counter: TokenCounter,
    secrets: SecretForms,
) -> Digest | None:
    """`digest` with one more part holding the new items whole, or None when that would
    pass the budget (or there is no digest yet)."""
    least = (len(requests) + len(interactions)) * MIN_LINE_TOKENS
    if digest.is_empty() or least > budget_tokens:
        return None
    if rendered_tokens is None:
        rendered_tokens = _count_text(render_digest(digest), counter)
    room = budget_tokens - rendered_tokens
    if least > room:
        return None
    titles = [DIGEST_LATER_PART, *(["User requests:"] if requests else [])]
    titles += ["Interactions:"] if interactions else []
    room -= sum(count_line(title, counter) for title in titles)
    new_requests = [RequestEntry(r.text, r.pointer) for r in requests]
    lines: list[InteractionEntry] = []
    for entry in new_requests:
        room -= count_line(request_line(entry), counter)
    for removed in interactions:  # newest first: the lines stop as soon as room runs out
        if room < 0:
            return None
        line = InteractionEntry(removed.describe(secrets), removed.pointer)
        room -= _line_cost(removed, line.line, counter)
        lines.append(line)
    if room < 0:
        return None
    part_sizes = tuple((len(r), len(i)) for r, i in digest.split_parts())
    return Digest(
        (*new_requests, *digest.requests),
        (*lines, *digest.interactions),
        digest.older,
        (*part_sizes, (len(new_requests), len(lines))),
    )


def refit_digest(
    digest: Digest,
    requests: Sequence[RemovedRequest],
    interactions: Sequence[RemovedInteraction],
    budget_tokens: int,
    counter: TokenCounter,
    secrets: SecretForms = NO_SECRETS,
) -> Digest:
    """All entries fitted again into one part (module contract)."""
    new_requests = [RequestEntry(r.text, r.pointer) for r in requests]
    all_requests, _ = _newest_first([*new_requests, *digest.requests])
    titles = (DIGEST_HEADER, "User requests:", "Interactions:")
    budget = budget_tokens - MESSAGE_OVERHEAD_TOKENS - sum(count_line(t, counter) for t in titles)
    all_lines, is_sorted = _newest_first([*interactions, *digest.interactions])
    reserve = 0  # what the "older" line costs if every interaction line folded
    if all_lines or digest.older.count:
        reserve = count_line(older_line(_fold(digest.older, all_lines, is_sorted)), counter)
    fitted, used = _fit_requests(all_requests, budget - reserve, counter, secrets)
    fill = budget - int(budget_tokens * REFIT_HEADROOM)
    line_budget = max(fill - used, 0)  # requests first: lines that do not fit fold
    kept, folded, used = _fit_lines(all_lines, line_budget, counter, secrets)
    older = _fold(digest.older, folded, is_sorted)
    if older.count:
        older = _make_room_for_older(kept, older, line_budget - used, counter)
    return Digest(tuple(fitted), tuple(kept), older)


def _newest_first(entries: list[Any]) -> tuple[list[Any], bool]:
    """By record number, newest first, when every entry has one (and True); else as
    given (and False)."""
    pointers = [entry.pointer for entry in entries]
    if None in pointers:
        return entries, False
    numbers = list(map(sequence_of, pointers))
    if None in numbers:
        return entries, False
    order = sorted(range(len(entries)), key=lambda i: numbers[i] or 0, reverse=True)
    return [entries[i] for i in order], True


def _fit_requests(
    entries: list[RequestEntry], budget: int, counter: TokenCounter, secrets: SecretForms
) -> tuple[list[RequestEntry], int]:
    """The requests, newest first, shortened where they pass `budget` (module contract),
    and the tokens they cost."""
    used, fitted = 0, []
    for entry in entries:
        cost = count_line(request_line(entry), counter)
        for limit, allowed in ((SHORT_REQUEST_CHARS, budget), (SHORTEST_REQUEST_CHARS, 2 * budget)):
            if used + cost > allowed and len(entry.text) > limit:
                original = entry.shortened_from or len(entry.text)
                head = entry.text[: safe_head_end(entry.text, limit, secrets)]
                entry = replace(entry, text=head, shortened_from=original)
                cost = count_line(request_line(entry), counter)
        used += cost
        fitted.append(entry)
    return fitted, used


def _fit_lines(
    entries: list[Line], budget: int, counter: TokenCounter, secrets: SecretForms
) -> tuple[list[InteractionEntry], list[Line], int]:
    """The newest lines that fit `budget`, the rest (to fold) and the tokens of those
    that fit. A removed interaction's line is written only when it is kept."""
    used, kept = 0, list[InteractionEntry]()
    add, new = kept.append, tuple.__new__
    for index, entry in enumerate(entries):
        line = entry.line  # None only for a removed call whose line is not written yet
        if line is None:
            line = entry.describe(secrets)  # type: ignore[union-attr]
        cost = _line_cost(entry, line, counter)
        if used + cost > budget:
            return kept, entries[index:], used
        used += cost
        add(new(InteractionEntry, (line, entry.pointer)))
    return kept, [], used


def _line_cost(entry: Line, line: str, counter: TokenCounter) -> int:
    """Tokens of `entry`'s `line` with its pointer: the figure a removed call carries
    for this very counter, else counted."""
    known = entry.line_tokens(counter) if isinstance(entry, RemovedInteraction) else None
    return count_line(with_pointer(line, entry.pointer), counter) if known is None else known


def _make_room_for_older(
    kept: list[InteractionEntry], older: OlderRange, room: int, counter: TokenCounter
) -> OlderRange:
    """Fold the oldest kept lines (from the end of `kept`, in place) until the "older"
    line fits in the `room` the kept lines left, or what they give back."""
    while kept and count_line(older_line(older), counter) > room:
        entry = kept.pop()
        room += count_line(with_pointer(entry.line, entry.pointer), counter)
        older = _fold(older, [entry])
    return older


def _fold(older: OlderRange, entries: list[Line], is_sorted: bool = False) -> OlderRange:
    """`older` with `entries` folded in: the count, and the pointers at both ends (of
    entries sorted newest first by record number, only the list's ends are read)."""
    if not entries:
        return older
    first, last = older.first, older.last
    low, high = sequence_of(first), sequence_of(last)
    for entry in (entries[-1], entries[0]) if is_sorted else entries:
        pointer = entry.pointer
        number = None if pointer is None else sequence_of(pointer)
        if number is None:
            continue
        if low is None or number < low:
            low, first = number, pointer
        if high is None or number > high:
            high, last = number, pointer
    return OlderRange(older.count + len(entries), first, last)


def _count_text(text: str, counter: TokenCounter) -> int:
    """Tokens of a digest message with `text` as the budget counts them."""
    return MESSAGE_OVERHEAD_TOKENS + count_line(text, counter)


def count_rendered_message(message: dict[str, Any], counter: TokenCounter) -> int:
    """Tokens of a digest message as the budget counts them, from its text: at least
    what `count_digest` finds."""
    text = message.get("content")
    return _count_text(text if isinstance(text, str) else "", counter)


def count_digest(message: dict[str, Any], counter: TokenCounter) -> int:
    """Tokens of a digest message as every figure counts it (`counter.count_message`'s
    figure): from the count it carries (`carry_line_count`), else its text counted whole."""
    return MESSAGE_OVERHEAD_TOKENS + counter.count_message_content(message)


def carry_line_count(message: dict[str, Any], counter: TokenCounter) -> dict[str, Any]:
    """A digest message marked with its lines' count as the count of its text
    (`tokens.COUNT_KEY`), so the message counts the same on any counter."""
    text = message.get("content")
    return (
        counter.carry_count(message, text, count_line(text, counter))
        if isinstance(text, str)
        else message
    )
