"""One digest line for a request the user made more than once.

Contract: requests whose texts are the same once their leading and trailing whitespace is set
aside (`repeat_key`) share one entry (`group_repeats`): the newest ask's text and pointer, standing
where the newest stood, with how many asks it names (`asked`) and the pointer of the first ask
(`first`). Every ask stays one recall away: the two pointers read the last and the first, and recall's
search with the line's own words finds each of them. Whitespace inside a text counts (code and
tables keep their shape), and a request the digest already shortened is never merged (its whole
text is not known any more). Deterministic: the same entries in the same order give the same
entries, so a part written from them reads the same. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_cli.compaction.digest.entries import sequence_of
from agent_cli.compaction.digest.removed_items import RequestEntry


def repeat_key(entry: RequestEntry) -> str | None:
    """What makes two requests the same request: the text without its leading and trailing
    whitespace; None for a shortened one (never merged)."""
    return None if entry.shortened_from else entry.text.strip()


def group_repeats(entries: Sequence[RequestEntry]) -> list[RequestEntry]:
    """`entries` (newest first) with each repeated request as one entry where its newest ask
    stands (module contract)."""
    keys = [None if entry.shortened_from else entry.text.strip() for entry in entries]
    if len(set(keys)) == len(keys):  # (the usual case: no request was made twice)
        return list(entries)
    grouped: list[RequestEntry] = []
    at: dict[str, int] = {}
    for entry, key in zip(entries, keys, strict=True):
        where = None if key is None else at.get(key)
        if where is None:
            if key is not None:
                at[key] = len(grouped)
            grouped.append(entry)
        else:
            grouped[where] = _merged(grouped[where], entry)
    return grouped


def _merged(newer: RequestEntry, older: RequestEntry) -> RequestEntry:
    """`newer` standing for the asks of both: its text, pointer and place; the earlier first ask.
    Its line differs from the lines counted or cut before, so it carries none of them."""
    first = _earlier(newer.first or newer.pointer, older.first or older.pointer)
    return newer._replace(asked=newer.asked + older.asked, first=first, counted=None, heads=None)


def _earlier(newer: str | None, older: str | None) -> str | None:
    """The pointer of the earlier record: by record number where both have one, else the older
    entry's when it has one."""
    newer_number, older_number = sequence_of(newer), sequence_of(older)
    if newer_number is not None and older_number is not None:
        return newer if newer_number < older_number else older
    return older or newer


def asks_and_firsts(entries: Sequence[RequestEntry]) -> tuple[int, list[str]]:
    """How many asks `entries` name, and the first-ask pointers of those made more than once (for
    a fold's count and range)."""
    repeated = [entry for entry in entries if entry.asked > 1]
    if not repeated:
        return len(entries), []
    asks = len(entries) + sum(entry.asked - 1 for entry in repeated)
    return asks, [entry.first for entry in repeated if entry.first]
