"""Fitting every entry of the running digest again into one part (`merge` refits).

Contract: `refit_digest(digest, requests, interactions, budget_tokens, counter)` gives
one part holding the user's requests, newest first, whole while they fit the budget
and then shortened to their head (`SHORT_REQUEST_CHARS`, and `SHORTEST_REQUEST_CHARS`
past twice the budget), and the newest interaction lines that fit what the requests
leave of the budget less `REFIT_HEADROOM` (a quarter, room for the parts later
compactions add); the rest fold into the "older" range (count and end pointers), whose
line is made room for (the requests are fitted less what it would cost with every line
folded). Entries are ordered by record number when every one has one.
`line_cost` is what one interaction line costs, as the digest counts it; `merge`'s
append uses it too. Pure.
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
    with_pointer,
)
from agent_cli.compaction.digest.removed_items import count_line as _count_line
from agent_cli.compaction.digest.render import older_line, request_line
from agent_cli.compaction.markers import DIGEST_HEADER
from agent_cli.safe_cuts import safe_head_end
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.tokens import MESSAGE_OVERHEAD_TOKENS, TokenCounter

SHORT_REQUEST_CHARS = 200
SHORTEST_REQUEST_CHARS = 60
REFIT_HEADROOM = 0.25  # share of the budget a refitted digest leaves for later parts


def line_cost(
    entry: InteractionEntry | RemovedInteraction, line: str, counter: TokenCounter
) -> int:
    """Tokens of `entry`'s `line` with its pointer, as the digest counts it: the figure a
    removed call carries for this very counter (`RemovedInteraction.line_tokens`), else
    counted (memoized by the counter)."""
    known = entry.line_tokens(counter) if isinstance(entry, RemovedInteraction) else None
    return _count_line(with_pointer(line, entry.pointer), counter) if known is None else known


def refit_digest(
    digest: Digest,
    requests: Sequence[RemovedRequest],
    interactions: Sequence[RemovedInteraction],
    budget_tokens: int,
    counter: TokenCounter,
    secrets: SecretForms = NO_SECRETS,
) -> Digest:
    """All entries fitted again into one part: requests whole while they fit, then
    shortened; interaction lines up to `budget_tokens - REFIT_HEADROOM` of the budget, the
    rest folded, so the next compactions can add parts before the digest is refitted."""
    new_requests = [RequestEntry(r.text, r.pointer) for r in requests]
    all_requests, _ = _newest_first([*new_requests, *digest.requests])
    budget = budget_tokens - _count_frame(counter)
    all_lines, is_sorted = _newest_first([*interactions, *digest.interactions])
    reserve = _older_line_reserve(digest, all_lines, is_sorted, counter)
    fitted, used = _fit_requests(all_requests, budget - reserve, counter, secrets)
    fill = budget - int(budget_tokens * REFIT_HEADROOM)
    line_budget = max(fill - used, 0)  # requests first: lines that do not fit fold
    kept, folded, used = _fit_lines(all_lines, line_budget, counter, secrets)
    older = _fold(digest.older, folded, is_sorted)
    if older.count:
        older = _make_room_for_older(kept, older, line_budget - used, counter)
    return Digest(tuple(fitted), tuple(kept), older)


def _older_line_reserve(
    digest: Digest, lines: list[Any], is_sorted: bool, counter: TokenCounter
) -> int:
    """What the "older" line costs if every interaction line folded: the requests are
    fitted within the budget less this, so the fold line always has its room."""
    if not lines and not digest.older.count:
        return 0
    return _count_line(older_line(_fold(digest.older, lines, is_sorted)), counter)


def _count_frame(counter: TokenCounter) -> int:
    """What every digest costs around its entries: the message, the header, the titles."""
    titles = (DIGEST_HEADER, "User requests:", "Interactions:")
    return MESSAGE_OVERHEAD_TOKENS + sum(_count_line(title, counter) for title in titles)


def _newest_first(entries: list[Any]) -> tuple[list[Any], bool]:
    """By record number, newest first, when every entry has one (and True); else as
    given (and False)."""
    pointers = [entry.pointer for entry in entries]
    if None in pointers:  # (the usual miss, found before parsing a thousand pointers)
        return entries, False
    numbers = list(map(sequence_of, pointers))
    if None in numbers:
        return entries, False
    order = sorted(range(len(entries)), key=lambda i: numbers[i] or 0, reverse=True)
    return [entries[i] for i in order], True


def _fit_requests(
    entries: list[RequestEntry], budget: int, counter: TokenCounter, secrets: SecretForms
) -> tuple[list[RequestEntry], int]:
    """Newest first: whole while they fit, then heads of `SHORT_REQUEST_CHARS`, and past
    twice the budget heads of `SHORTEST_REQUEST_CHARS`, so a very long session's requests
    cost a few tokens each while every one of them keeps its words' start and pointer.
    A head ends where no pointer and none of `secrets` is split (`safe_cuts`)."""
    used, fitted = 0, []
    for entry in entries:
        cost = _count_line(request_line(entry), counter)
        for limit, allowed in ((SHORT_REQUEST_CHARS, budget), (SHORTEST_REQUEST_CHARS, 2 * budget)):
            if used + cost > allowed and len(entry.text) > limit:
                original = entry.shortened_from or len(entry.text)
                head = entry.text[: safe_head_end(entry.text, limit, secrets)]
                entry = replace(entry, text=head, shortened_from=original)
                cost = _count_line(request_line(entry), counter)
        used += cost
        fitted.append(entry)
    return fitted, used


def _fit_lines(
    entries: list[InteractionEntry | RemovedInteraction],
    budget: int,
    counter: TokenCounter,
    secrets: SecretForms,
) -> tuple[list[InteractionEntry], list[InteractionEntry | RemovedInteraction], int]:
    """The newest lines that fit, the rest (to fold) and the tokens of those that fit. A
    removed interaction's line is written only when it is kept, so a long removal costs
    its pointers, not its lines."""
    used, kept = 0, list[InteractionEntry]()
    add, new = kept.append, tuple.__new__
    for index, entry in enumerate(entries):
        line = entry.line  # None only for a removed call whose line is not written yet
        if line is None:
            line = entry.describe(secrets)  # type: ignore[union-attr]
        cost = line_cost(entry, line, counter)
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
    while kept and _count_line(older_line(older), counter) > room:
        entry = kept.pop()
        room += _count_line(with_pointer(entry.line, entry.pointer), counter)
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
        pointer = entry.pointer
        number = None if pointer is None else sequence_of(pointer)
        if number is None:
            continue
        if low is None or number < low:
            low, first = number, pointer
        if high is None or number > high:
            high, last = number, pointer
    return OlderRange(older.count + len(entries), first, last)
