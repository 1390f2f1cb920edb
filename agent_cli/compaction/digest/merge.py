"""Adding what a layer step removed to the running digest, within its budget.

Contract:
- Every removing step (L2, L3, what L4 summarizes) adds to ONE digest message.
- New items go in one more part while the whole stays within the budget with every new request
  whole; a written part never changes, so the cached prefix ending with it stays cached.
- A request asked again and again takes one line (`repeats`): among a new part's own requests, and
  among all of them in a refit; a fold counts its asks.
- Otherwise all entries are fitted again into one part (`refit_digest`): requests newest first,
  whole while they fit, then cut to their head (`REQUEST_LIMITS`) with pointer and full length; past
  `REQUESTS_FOLD_AFTER` budgets older requests fold into one line (never the newest). Then the
  newest interaction lines that fit what is left less `REFIT_HEADROOM`; the rest fold into the
  "older" line, whose room is always kept. Entries are ordered by record number when every one has
  one. No cut splits a pointer or a secret.
- The budget weighs the whole message as the sum of its rendered lines' counts (`count_line`); a
  merge returns that sum (`FittedDigest`), which the message carries as its text's count
  (`build_counted_message`), so it counts the same on any counter. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import Any, NamedTuple, TypeVar, cast

from agent_cli.compaction.digest.entries import (
    Digest,
    DigestLine,
    InteractionEntry,
    OlderRange,
    sequence_of,
)
from agent_cli.compaction.digest.removed_items import (
    REQUEST_LIMITS,
    SHORTEST_REQUEST_CHARS,
    RequestEntry,
    count_line,
    cut_request,
    request_line,
    with_pointer,
)
from agent_cli.compaction.digest.render import (
    LINES_TITLE,
    REQUESTS_TITLE,
    build_digest_message,
    older_line,
    render_digest,
)
from agent_cli.compaction.digest.repeats import asks_and_firsts, group_repeats
from agent_cli.compaction.markers import DIGEST_HEADER, DIGEST_LATER_PART
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.tokens import MESSAGE_OVERHEAD_TOKENS, TokenCounter

REFIT_HEADROOM = 0.25  # share of the budget a refitted digest leaves for later parts
REQUESTS_FOLD_AFTER = 2  # budgets the requests may take before the older ones fold
Entry = TypeVar("Entry", RequestEntry, DigestLine)
_NUMBER = attrgetter("number")


class FittedDigest(NamedTuple):
    """A merged digest and its rendered lines' count."""

    digest: Digest
    line_tokens: int


def fit_digest(
    digest: Digest,
    requests: Sequence[RequestEntry],
    interactions: Sequence[DigestLine],
    budget_tokens: int,
    counter: TokenCounter,
    rendered_tokens: int | None = None,
    secrets: SecretForms = NO_SECRETS,
) -> FittedDigest:
    """`digest` with the removed items added (module contract), and its count. `rendered_tokens`:
    the budget tokens of `render_digest(digest)`'s message, when known."""
    if not (requests or interactions):
        return FittedDigest(digest, count_line(render_digest(digest), counter))
    appended = _append_part(digest, requests, interactions, budget_tokens, rendered_tokens, counter)
    if appended is not None:
        return appended
    return refit_digest(digest, requests, interactions, budget_tokens, counter, secrets)


def _append_part(
    digest: Digest,
    requests: Sequence[RequestEntry],
    interactions: Sequence[DigestLine],
    budget_tokens: int,
    rendered_tokens: int | None,
    counter: TokenCounter,
) -> FittedDigest | None:
    """`digest` with one more part (module contract), or None."""
    if digest.is_empty():
        return None
    requests = group_repeats(requests)  # (within the new part: written parts never change)
    if rendered_tokens is None:
        rendered_tokens = MESSAGE_OVERHEAD_TOKENS + count_line(render_digest(digest), counter)
    room = budget_tokens - rendered_tokens
    titles = [DIGEST_LATER_PART, *([REQUESTS_TITLE] if requests else [])]
    titles += [LINES_TITLE] if interactions else []
    room -= sum(count_line(title, counter) for title in titles)
    for entry in requests:  # (a long paste is not counted once the part cannot fit)
        room -= _request_tokens(entry, counter)
        if room < 0:
            return None
    lines, used = _fit_lines(interactions, room, counter)  # stops where room ends
    if len(lines) < len(interactions):
        return None
    part_sizes = tuple((len(r), len(i)) for r, i in digest.split_parts())
    merged = Digest(
        (*requests, *digest.requests),
        (*_as_entries(lines, interactions), *digest.interactions),
        digest.older,
        (*part_sizes, (len(requests), len(lines))),
        digest.older_requests,
    )
    return FittedDigest(merged, budget_tokens - (room - used) - MESSAGE_OVERHEAD_TOKENS)


def refit_digest(
    digest: Digest,
    requests: Sequence[RequestEntry],
    interactions: Sequence[DigestLine],
    budget_tokens: int,
    counter: TokenCounter,
    secrets: SecretForms = NO_SECRETS,
) -> FittedDigest:
    """All entries fitted again into one part (module contract), and its count."""
    all_requests, requests_sorted = _newest_first([*requests, *digest.requests])
    all_requests = group_repeats(all_requests)  # the budget names distinct requests
    header, requests_title, lines_title = (
        count_line(title, counter) for title in (DIGEST_HEADER, REQUESTS_TITLE, LINES_TITLE)
    )
    budget = budget_tokens - MESSAGE_OVERHEAD_TOKENS - header - requests_title - lines_title
    all_lines, is_sorted = _newest_first([*interactions, *digest.interactions])
    reserve = 0  # what the "older" line costs if every interaction line folded
    if all_lines or digest.older.count:
        reserve = count_line(older_line(_fold(digest.older, all_lines, is_sorted)), counter)
    fitted, requests_used, folded = _fit_requests(all_requests, budget - reserve, counter, secrets)
    older_requests = _fold(digest.older_requests, folded, requests_sorted, *asks_and_firsts(folded))
    if older_requests.count:
        requests_used += count_line(older_line(older_requests, "request"), counter)
    fill = budget - int(budget_tokens * REFIT_HEADROOM)
    line_budget = max(fill - requests_used, 0)  # requests first: lines that do not fit fold
    lines, used = _fit_lines(all_lines, line_budget, counter)
    kept = _as_entries(lines, all_lines)
    older = _fold(digest.older, all_lines[len(kept) :], is_sorted)
    if older.count:
        older, freed = _make_room_for_older(kept, older, line_budget - used, counter)
        used -= freed
    tokens = header + (requests_title + requests_used if fitted or older_requests.count else 0)
    if kept or older.count:
        tokens += lines_title + used
    if older.count:
        tokens += count_line(older_line(older), counter)
    return FittedDigest(Digest(tuple(fitted), tuple(kept), older, (), older_requests), tokens)


def _newest_first(entries: list[Entry]) -> tuple[list[Entry], bool]:
    """By record number (as carried, else read off the pointer), newest first, when every entry
    has one (and True); else as given (and False)."""
    if None not in map(_NUMBER, entries):
        return sorted(entries, key=_NUMBER, reverse=True), True
    numbers = [sequence_of(entry.pointer) for entry in entries]
    if None in numbers:
        return entries, False
    order = sorted(range(len(entries)), key=cast("list[int]", numbers).__getitem__, reverse=True)
    return [entries[i] for i in order], True


def _fit_requests(
    entries: list[RequestEntry], budget: int, counter: TokenCounter, secrets: SecretForms
) -> tuple[list[RequestEntry], int, list[RequestEntry]]:
    """The requests, newest first, cut where they pass `budget`, their tokens, and the older ones
    that fold (never the newest)."""
    used, fitted = 0, list[RequestEntry]()
    for position, entry in enumerate(entries):
        entry, cost = _fit_request(entry, used, budget, counter, secrets)
        if fitted and used + cost > REQUESTS_FOLD_AFTER * budget:
            return fitted, used, entries[position:]
        used += cost
        fitted.append(entry)
    return fitted, used, []


def _fit_request(
    entry: RequestEntry, used: int, budget: int, counter: TokenCounter, secrets: SecretForms
) -> tuple[RequestEntry, int]:
    """`entry` after `used`, cut to its head at each limit where it passes its share of `budget`,
    and its tokens. A long line is not counted once its share is spent (it costs more than its
    head); the heads it carries are taken when cut under these secret forms."""
    if len(entry.text) <= SHORTEST_REQUEST_CHARS:
        return entry, _request_tokens(entry, counter)
    heads = entry.heads
    if heads is not None and not (heads[0] is secrets or heads[0] == secrets):
        heads = None
    cost = None
    for step, (limit, allowed) in enumerate(REQUEST_LIMITS):
        if len(entry.text) <= limit:
            continue
        if cost is None and used < allowed * budget:
            cost = _request_tokens(entry, counter)
        if cost is None or used + cost > allowed * budget:
            entry = (heads and heads[1:][step]) or cut_request(entry, limit, secrets)
            cost = _request_tokens(entry, counter)
        else:
            heads = None  # (the recorded heads follow a cut at each limit passed)
    return entry, _request_tokens(entry, counter) if cost is None else cost


def _request_tokens(entry: RequestEntry, counter: TokenCounter) -> int:
    """Tokens of a request's line: as carried for this counter, else counted."""
    counted = entry.counted
    if counted is not None and counted[0] is counter:
        return counted[1]
    return count_line(request_line(entry), counter)


def _fit_lines(
    entries: Sequence[DigestLine], budget: int, counter: TokenCounter
) -> tuple[list[str], int]:
    """The lines of the leading `entries` that fit `budget`, and their tokens."""
    used, lines = 0, list[str]()
    for entry in entries:
        if isinstance(entry, InteractionEntry):
            line, counted = entry.line, None
        else:
            line, counted = entry.line or entry.describe(), entry.counted
        if counted is not None and counted[0] is counter:
            cost = counted[1]
        else:
            cost = count_line(with_pointer(line, entry.pointer), counter)
        if used + cost > budget:
            break
        used += cost
        lines.append(line)
    return lines, used


def _as_entries(lines: list[str], entries: Sequence[DigestLine]) -> list[DigestLine]:
    """Entries for the first `len(lines)` of `entries`: one that holds its line serves as it is."""
    return [
        entry if entry.line is line else InteractionEntry(line, entry.pointer, entry.number)
        for line, entry in zip(lines, entries, strict=False)
    ]


def _make_room_for_older(
    kept: list[DigestLine], older: OlderRange, room: int, counter: TokenCounter
) -> tuple[OlderRange, int]:
    """Fold the last kept lines (in place) until the "older" line fits `room` plus what they free;
    the folded range and the tokens freed."""
    freed = 0
    while kept and count_line(older_line(older), counter) > room + freed:
        entry = kept.pop()
        freed += count_line(with_pointer(entry.line, entry.pointer), counter)
        older = _fold(older, [entry])
    return older, freed


def _fold(
    older: OlderRange,
    entries: Sequence[DigestLine] | Sequence[RequestEntry],
    is_sorted: bool = False,
    count: int | None = None,
    more: Sequence[str] = (),
) -> OlderRange:
    """`older` with `entries` folded in: count (`count`, else one each) and end pointers (only the
    list's ends when `is_sorted`, and `more`: the first asks of repeated requests)."""
    if not entries:
        return older
    first, last = older.first, older.last
    low, high = sequence_of(first), sequence_of(last)
    ends = (entries[-1], entries[0]) if is_sorted else entries
    for pointer in dict.fromkeys([*(entry.pointer for entry in ends), *more]):
        number = sequence_of(pointer)
        if number is None:
            continue
        if low is None or number < low:
            low, first = number, pointer
        if high is None or number > high:
            high, last = number, pointer
    return OlderRange(older.count + (len(entries) if count is None else count), first, last)


def count_rendered_message(message: dict[str, Any], counter: TokenCounter) -> int:
    """Budget tokens of a digest message, counted from its text."""
    text = message.get("content")
    return MESSAGE_OVERHEAD_TOKENS + count_line(text if isinstance(text, str) else "", counter)


def count_digest(message: dict[str, Any], counter: TokenCounter) -> int:
    """Tokens of a digest message as every figure counts it: from its carried count, else its text."""
    return MESSAGE_OVERHEAD_TOKENS + counter.count_message_content(message)


def build_counted_message(
    fitted: FittedDigest, counter: TokenCounter, text: str | None = None
) -> dict[str, Any]:
    """The digest's view message carrying its lines' count as its text's count."""
    message = build_digest_message(fitted.digest, text)
    return counter.carry_count(message, message["content"], fitted.line_tokens)
