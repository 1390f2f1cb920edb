"""The running digest's entries and their stored form (under the private `DIGEST_KEY`).

Contract: `Digest` holds the user's requests and the interaction lines (each newest first, with
pointers), the folded older ranges of each, and the sizes of its rendered parts. `digest_to_data` /
`digest_from_message` turn it into JSON-safe data and back; anything malformed reads as absent,
never a crash (a number past `MAX_STORED_NUMBER` included: no count or record number comes near it,
and Python will not write an int of over 4,300 digits as text). Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from agent_cli.compaction.digest.removed_items import (
    RemovedInteraction,
    RequestEntry,
    is_request_key,
)
from agent_cli.compaction.markers import DIGEST_KEY

DIGEST_FORMAT = 1
MAX_STORED_NUMBER = 10**15  # counts and record numbers read from data stay below it


class InteractionEntry(NamedTuple):
    """One interaction's line, pointer and the pointer's record number (None: not read)."""

    line: str
    pointer: str | None = None
    number: int | None = None


# A digest line: a stored entry, or a removed call's entry whose line is written
DigestLine = InteractionEntry | RemovedInteraction


@dataclass(frozen=True)
class OlderRange:
    """Entries folded into one line: how many, and the pointers at both ends."""

    count: int = 0
    first: str | None = None
    last: str | None = None


@dataclass(frozen=True)
class Digest:
    requests: tuple[RequestEntry, ...] = ()  # newest first
    interactions: tuple[DigestLine, ...] = ()  # newest first
    older: OlderRange = OlderRange()
    # (requests, interactions) per rendered part, oldest part first; () is one part
    parts: tuple[tuple[int, int], ...] = ()
    older_requests: OlderRange = OlderRange()  # requests folded past the digest's room

    def is_empty(self) -> bool:
        return not (
            self.requests or self.interactions or self.older.count or self.older_requests.count
        )

    def split_parts(
        self,
    ) -> list[tuple[tuple[RequestEntry, ...], tuple[DigestLine, ...]]]:
        """The entries of each part, oldest part first, each newest first; parts that do not add up
        to the entries read as one part."""
        whole = (len(self.requests), len(self.interactions))
        added_up = tuple(map(sum, zip(*self.parts, strict=True))) == whole
        counts = self.parts if self.parts and added_up else (whole,)
        found, (requests_end, lines_end) = [], whole
        for request_count, line_count in counts:  # the oldest part is at the lists' ends
            found.append(
                (
                    self.requests[requests_end - request_count : requests_end],
                    self.interactions[lines_end - line_count : lines_end],
                )
            )
            requests_end -= request_count
            lines_end -= line_count
        return found


TRANSCRIPT_PREFIX = "transcript:"


def sequence_of(pointer: str | None) -> int | None:
    """The record number of a `transcript:` pointer, else None."""
    if not pointer or not pointer.startswith(TRANSCRIPT_PREFIX):
        return None
    tail = pointer.rsplit(":", 1)[-1]
    return int(tail) if tail.isdecimal() and len(tail) < 16 else None


def digest_to_data(digest: Digest) -> dict[str, Any]:
    data: dict[str, Any] = {
        "format": DIGEST_FORMAT,
        "requests": [_request_to_data(e) for e in digest.requests],
        "interactions": [{"line": e.line, "pointer": e.pointer} for e in digest.interactions],
        "older": _range_to_data(digest.older),
        "parts": [list(part) for part in digest.parts],
    }
    if digest.older_requests.count:  # (absent from digests that never folded a request)
        data["older_requests"] = _range_to_data(digest.older_requests)
    return data


def _request_to_data(entry: RequestEntry) -> dict[str, Any]:
    data = {"text": entry.text, "pointer": entry.pointer, "shortened_from": entry.shortened_from}
    if entry.asked > 1:  # (absent from a request made once, as before repeats shared a line)
        data |= {"asked": entry.asked, "first": entry.first}
    if entry.shortened_from and entry.whole_key:  # (a hash: what the cut hid stays hidden)
        data["whole_key"] = entry.whole_key
    return data


def _range_to_data(folded: OlderRange) -> dict[str, Any]:
    return {"count": folded.count, "first": folded.first, "last": folded.last}


def digest_from_message(message: dict[str, Any] | None) -> Digest:
    """The entries of a digest message (malformed reads as absent)."""
    data = message.get(DIGEST_KEY) if isinstance(message, dict) else None
    if not isinstance(data, dict):
        return Digest()
    requests = tuple(
        _request_from_data(item)
        for item in _items(data.get("requests"))
        if isinstance(item.get("text"), str)
    )
    interactions = tuple(
        InteractionEntry(item["line"], pointer, sequence_of(pointer))
        for item in _items(data.get("interactions"))
        if isinstance(item.get("line"), str)
        for pointer in (_text_or_none(item.get("pointer")),)
    )
    return Digest(
        requests,
        interactions,
        _range_from_data(data.get("older")),
        _parts(data.get("parts")),
        _range_from_data(data.get("older_requests")),
    )


def _request_from_data(item: dict[str, Any]) -> RequestEntry:
    """A stored request (its "text" a string); a whole text's key is kept by a shortened one only."""
    pointer = _text_or_none(item.get("pointer"))
    shortened_from = _positive_int_or_none(item.get("shortened_from"))
    asked = _positive_int_or_none(item.get("asked")) or 1
    whole_key = item.get("whole_key")
    return RequestEntry(
        item["text"],
        pointer,
        shortened_from,
        number=sequence_of(pointer),
        asked=asked,
        first=_text_or_none(item.get("first")) if asked > 1 else None,
        whole_key=whole_key if shortened_from and is_request_key(whole_key) else None,
    )


def _range_from_data(found: Any) -> OlderRange:
    stored: dict[str, Any] = found if isinstance(found, dict) else {}
    return OlderRange(
        _positive_int_or_none(stored.get("count")) or 0,
        _text_or_none(stored.get("first")),
        _text_or_none(stored.get("last")),
    )


def _parts(value: Any) -> tuple[tuple[int, int], ...]:
    """Stored part sizes: pairs of non-negative ints, else () (one part)."""
    if not isinstance(value, list):
        return ()
    parts = []
    for part in value:
        is_pair = isinstance(part, list) and len(part) == 2
        if not (is_pair and all(type(n) is int and 0 <= n < MAX_STORED_NUMBER for n in part)):
            return ()
        parts.append((part[0], part[1]))
    return tuple(parts)


def _items(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _positive_int_or_none(value: Any) -> int | None:
    return value if type(value) is int and 0 < value < MAX_STORED_NUMBER else None
