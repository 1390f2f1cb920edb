"""One digest line for a request the user made more than once.

Contract: requests whose texts are the same once their leading and trailing whitespace is set
aside share one entry (`group_repeats`): the newest ask's text and pointer, standing where the
newest stood, with how many asks it names (`asked`) and the pointer of the first ask (`first`).
Every ask stays one recall away: the two pointers read the last and the first, and recall's search
with the line's own words finds each of them. Whitespace inside a text counts (code and tables
keep their shape). A request the digest shortened is known by the key of its whole text
(`whole_key`, made at its first cut), so its asks share a line whether each is whole or
shortened, after any number of refits and read back from a stored digest; one shortened without
that key (a digest stored before it was kept) is never merged, since its whole text is not known.
Deterministic: the same entries in the same order give the same entries, so a part written from
them reads the same. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

from agent_cli.compaction.digest.entries import sequence_of
from agent_cli.compaction.digest.removed_items import RequestEntry, request_key

_TEXT = attrgetter("text")
_SHORTENED = attrgetter("shortened_from")


def group_repeats(entries: Sequence[RequestEntry]) -> list[RequestEntry]:
    """`entries` (newest first) with each repeated request as one entry where its newest ask
    stands (module contract)."""
    keys: list[str | None]
    if any(map(_SHORTENED, entries)):  # (a head is no whole text: all are named by their keys)
        keys = list(map(_whole_key, entries))
    else:
        keys = list(map(str.strip, map(_TEXT, entries)))
        if len(set(keys)) == len(keys):  # (the usual case: no request was made twice)
            return list(entries)
    groups: dict[str, list[RequestEntry]] = {}
    order: list[str | RequestEntry] = []  # a group's key where its newest ask stands
    for entry, key in zip(entries, keys, strict=True):
        if key is None:
            order.append(entry)
        elif (group := groups.get(key)) is not None:
            group.append(entry)
        else:
            groups[key] = [entry]
            order.append(key)
    return [_merged(groups[item]) if isinstance(item, str) else item for item in order]


def _whole_key(entry: RequestEntry) -> str | None:
    """The key of the whole text an entry stands for: its own text's, or the one a shortened
    entry keeps (None: not known)."""
    return entry.whole_key if entry.shortened_from else request_key(entry.text)


def _merged(group: list[RequestEntry]) -> RequestEntry:
    """The newest of `group` (newest first) standing for all its asks: its text, pointer and place,
    and the earliest first ask (by record number where any has one, else the oldest entry's). Its
    line differs from the lines counted or cut before, so it carries none of them."""
    newest = group[0]
    if len(group) == 1:
        return newest
    numbered = [ask for entry in group if (ask := _first_ask(entry))[0] is not None]
    oldest = group[-1]
    first = min(numbered)[1] if numbered else oldest.first or oldest.pointer
    asked = sum(entry.asked for entry in group)
    return newest._replace(asked=asked, first=first, counted=None, heads=None)


def _first_ask(entry: RequestEntry) -> tuple[int | None, str | None]:
    """The record number and pointer of an entry's first ask (its own, when asked once)."""
    if entry.asked > 1 and entry.first:
        return sequence_of(entry.first), entry.first
    number = entry.number if entry.number is not None else sequence_of(entry.pointer)
    return number, entry.pointer


def asks_and_firsts(entries: Sequence[RequestEntry]) -> tuple[int, list[str]]:
    """How many asks `entries` name, and the first-ask pointers of those made more than once (for
    a fold's count and range)."""
    repeated = [entry for entry in entries if entry.asked > 1]
    if not repeated:
        return len(entries), []
    asks = len(entries) + sum(entry.asked - 1 for entry in repeated)
    return asks, [entry.first for entry in repeated if entry.first]
