"""The durable-state value types: facts, pending items, retrieval evidence, the state.

Contract: every type is a frozen dataclass holding tuples, validated and normalised at
construction, so a value that exists is a value that can be rendered into the system
prompt as is. The durable state bypasses every lossy compaction layer; keeping it
immutable means no layer can edit it in passing. Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from agent_cli.durable.text import (
    parse_timestamp,
    require_optional_sha256,
    require_optional_text,
    require_rank,
    require_score,
    require_text,
    require_timestamp,
)
from agent_cli.errors import DurableStateError


class PendingStatus(StrEnum):
    """Where a pending item stands. `done` is final."""

    OPEN = "open"
    BLOCKED = "blocked"
    DONE = "done"


# open -> blocked | done, blocked -> open | done, done -> nothing.
ALLOWED_TRANSITIONS: dict[PendingStatus, frozenset[PendingStatus]] = {
    PendingStatus.OPEN: frozenset({PendingStatus.BLOCKED, PendingStatus.DONE}),
    PendingStatus.BLOCKED: frozenset({PendingStatus.OPEN, PendingStatus.DONE}),
    PendingStatus.DONE: frozenset(),
}


def require_status(field: str, value: Any) -> PendingStatus:
    """A `PendingStatus`, or its string value; anything else is refused."""
    try:
        return PendingStatus(value)
    except ValueError as exc:
        raise DurableStateError(field, "unknown_status") from exc


def _set(instance: object, name: str, value: object) -> None:
    object.__setattr__(instance, name, value)


def _require_tuple(field: str, value: object, kind: type) -> tuple[Any, ...]:
    """Lists are accepted for convenience and frozen into tuples; elements are type-checked."""
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise DurableStateError(field, "not_a_sequence")
    items = tuple(value)
    if not all(isinstance(item, kind) for item in items):
        raise DurableStateError(field, "wrong_type")
    return items


@dataclass(frozen=True)
class DurableFact:
    """A confirmed fact, with the pointer to where it was confirmed and when.

    `evidence_sha256` is the sha256 of what the pointer resolved to when the fact was
    made, so a later resolution can tell a source that still says it from one changed
    since; `None` for facts saved before it was kept (they render as before)."""

    fact_id: str
    content: str
    source_pointer: str
    last_confirmed_at: str
    evidence_sha256: str | None = None

    def __post_init__(self) -> None:
        _set(self, "fact_id", require_text("fact_id", self.fact_id))
        _set(self, "content", require_text("content", self.content))
        _set(self, "source_pointer", require_text("source_pointer", self.source_pointer))
        _set(
            self,
            "last_confirmed_at",
            require_timestamp("last_confirmed_at", self.last_confirmed_at),
        )
        _set(
            self,
            "evidence_sha256",
            require_optional_sha256("evidence_sha256", self.evidence_sha256),
        )


@dataclass(frozen=True)
class PendingTransition:
    """One recorded status change of a pending item (its audit trail)."""

    from_status: PendingStatus
    to_status: PendingStatus
    at: str
    source_pointer: str
    reason: str | None = None

    def __post_init__(self) -> None:
        _set(self, "from_status", require_status("from_status", self.from_status))
        _set(self, "to_status", require_status("to_status", self.to_status))
        if self.to_status not in ALLOWED_TRANSITIONS[self.from_status]:
            raise DurableStateError("to_status", "illegal_transition")
        _set(self, "at", require_timestamp("at", self.at))
        _set(self, "source_pointer", require_text("source_pointer", self.source_pointer))
        _set(self, "reason", require_optional_text("reason", self.reason))


@dataclass(frozen=True)
class PendingItem:
    """Work that is not finished. Blocked items carry the reason; done items none.

    `evidence_sha256`: what `source_pointer` (the latest change's record) resolved to then,
    as for `DurableFact`; `None` when not recorded."""

    item_id: str
    description: str
    source_pointer: str
    last_confirmed_at: str
    status: PendingStatus = PendingStatus.OPEN
    blocked_reason: str | None = None
    history: tuple[PendingTransition, ...] = ()
    evidence_sha256: str | None = None

    def __post_init__(self) -> None:
        _set(self, "item_id", require_text("item_id", self.item_id))
        _set(self, "description", require_text("description", self.description))
        _set(self, "source_pointer", require_text("source_pointer", self.source_pointer))
        _set(
            self,
            "last_confirmed_at",
            require_timestamp("last_confirmed_at", self.last_confirmed_at),
        )
        _set(self, "status", require_status("status", self.status))
        _set(self, "blocked_reason", require_optional_text("blocked_reason", self.blocked_reason))
        if self.status is PendingStatus.BLOCKED and self.blocked_reason is None:
            raise DurableStateError("blocked_reason", "required_when_blocked")
        if self.status is not PendingStatus.BLOCKED and self.blocked_reason is not None:
            raise DurableStateError("blocked_reason", "only_when_blocked")
        _set(self, "history", _require_tuple("history", self.history, PendingTransition))
        _check_history(self)
        _set(
            self,
            "evidence_sha256",
            require_optional_sha256("evidence_sha256", self.evidence_sha256),
        )


def _check_history(item: PendingItem) -> None:
    """The trail must chain, move forward in time and end where the item stands."""
    previous = None
    for step in item.history:
        if previous is not None:
            if step.from_status is not previous.to_status:
                raise DurableStateError("history", "broken_chain")
            if parse_timestamp("at", step.at) <= parse_timestamp("at", previous.at):
                raise DurableStateError("history", "not_increasing")
        previous = step
    if previous is None:
        return
    if previous.to_status is not item.status:
        raise DurableStateError("history", "status_mismatch")
    confirmed = parse_timestamp("last_confirmed_at", item.last_confirmed_at)
    if confirmed < parse_timestamp("at", previous.at):
        raise DurableStateError("history", "after_last_confirmed")


@dataclass(frozen=True)
class RetrievalEvidence:
    """Why a retrieved memory entered the context: its source, score, rank and conflict mark.

    Captured from hits selected upstream; the recalled text itself is not kept here.
    """

    memory_id: str
    source_id: str
    source_type: str
    source_title: str
    captured_at: str
    score: float
    source_rank: int
    conflict_key: str | None = None

    def __post_init__(self) -> None:
        for name in ("memory_id", "source_id", "source_type", "source_title"):
            _set(self, name, require_text(name, getattr(self, name)))
        _set(self, "captured_at", require_timestamp("captured_at", self.captured_at))
        _set(self, "score", require_score("score", self.score))
        _set(self, "source_rank", require_rank("source_rank", self.source_rank))
        _set(self, "conflict_key", require_optional_text("conflict_key", self.conflict_key))


def _require_numbers(field: str, value: object) -> tuple[tuple[str, int], ...]:
    """(prefix, number) pairs: a non-empty prefix without digits, once each, and a
    positive number; returned sorted by prefix (a mapping is accepted too)."""
    pairs = value.items() if isinstance(value, Mapping) else value
    if isinstance(pairs, str | bytes) or not isinstance(pairs, Iterable):
        raise DurableStateError(field, "not_a_sequence")
    numbers: dict[str, int] = {}
    for pair in pairs:
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise DurableStateError(field, "wrong_type")
        prefix, number = pair
        if not isinstance(prefix, str) or not prefix or any(c.isdigit() for c in prefix):
            raise DurableStateError(field, "bad_prefix")
        if type(number) is not int or number < 1:
            raise DurableStateError(field, "bad_number")
        if prefix in numbers:
            raise DurableStateError(field, "duplicate_id")
        numbers[prefix] = number
    return tuple(sorted(numbers.items()))


def _refuse_duplicates(field: str, ids: Iterable[str]) -> None:
    seen: set[str] = set()
    for item_id in ids:
        if item_id in seen:
            raise DurableStateError(field, "duplicate_id")
        seen.add(item_id)


@dataclass(frozen=True)
class DurableContextState:
    """Everything that must survive compaction unchanged; ids are unique within each kind.

    `highest_forgotten` holds, per id prefix (`F` for facts, `T` for pending items), the
    highest number of an id forgotten from this state, in prefix order: an id once given
    is never given to another item (`state.issue_id`), so an id read earlier (in another
    session, in scrollback) can only name the item it named then, or none."""

    facts: tuple[DurableFact, ...] = ()
    pending_items: tuple[PendingItem, ...] = ()
    retrieval_evidence: tuple[RetrievalEvidence, ...] = ()
    highest_forgotten: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        _set(self, "facts", _require_tuple("facts", self.facts, DurableFact))
        _set(
            self, "pending_items", _require_tuple("pending_items", self.pending_items, PendingItem)
        )
        _set(
            self,
            "retrieval_evidence",
            _require_tuple("retrieval_evidence", self.retrieval_evidence, RetrievalEvidence),
        )
        _refuse_duplicates("fact_id", (fact.fact_id for fact in self.facts))
        _refuse_duplicates("item_id", (item.item_id for item in self.pending_items))
        _refuse_duplicates("memory_id", (ev.memory_id for ev in self.retrieval_evidence))
        _set(
            self, "highest_forgotten", _require_numbers("highest_forgotten", self.highest_forgotten)
        )

    @property
    def is_empty(self) -> bool:
        return not (self.facts or self.pending_items or self.retrieval_evidence)


def distinct_source_pointers(state: DurableContextState) -> tuple[str, ...]:
    """Each source pointer once, in first-seen order: facts first, then pending items."""
    pointers = [fact.source_pointer for fact in state.facts]
    pointers += [item.source_pointer for item in state.pending_items]
    return tuple(dict.fromkeys(pointers))


def cited_pointers(state: DurableContextState) -> frozenset[str]:
    """Every record the text of `state` came from: each fact's and pending item's source,
    and the sources of an item's earlier changes."""
    history = (change.source_pointer for item in state.pending_items for change in item.history)
    return frozenset((*distinct_source_pointers(state), *history))
