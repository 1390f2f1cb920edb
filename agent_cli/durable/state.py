"""Durable state: what must not be forgotten is kept out of every lossy layer.

Confirmed facts, pending work and selected retrieval evidence live here as immutable
values. Compaction never sees them; each request re-renders them, with their sources
re-verified, into the system prompt. Changing the state is explicit: the pure helpers
below return a new state and raise a typed error for anything illegal, so a summary
that says "done" can never close a pending item by itself. Pure: no I/O, no clock;
timestamps are passed in.

The value types live in `model`, the JSON codec in `codec` and the renderer in
`render`; the package's `__init__` is the one public face of all four.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any, TypeVar

from agent_cli.durable.model import (
    ALLOWED_TRANSITIONS,
    DurableContextState,
    DurableFact,
    PendingItem,
    PendingStatus,
    PendingTransition,
    RetrievalEvidence,
    require_status,
)
from agent_cli.durable.text import parse_timestamp, require_optional_sha256, require_timestamp
from agent_cli.errors import DurableItemNotFound, DurableStateError, PendingTransitionError

T = TypeVar("T")


def add_fact(state: DurableContextState, fact: DurableFact) -> DurableContextState:
    """A new state with `fact` appended; a fact id already present raises."""
    if not isinstance(fact, DurableFact):
        raise DurableStateError("facts", "wrong_type")
    return replace(state, facts=(*state.facts, fact))


def add_pending(state: DurableContextState, item: PendingItem) -> DurableContextState:
    """A new state with `item` appended; an item id already present raises."""
    if not isinstance(item, PendingItem):
        raise DurableStateError("pending_items", "wrong_type")
    return replace(state, pending_items=(*state.pending_items, item))


def forget_item(state: DurableContextState, item_id: str) -> DurableContextState:
    """A new state without the fact or pending item `item_id` (whatever its status),
    whose id is never issued again (`DurableContextState.highest_forgotten`);
    `DurableItemNotFound` when neither kind has it."""
    facts = tuple(fact for fact in state.facts if fact.fact_id != item_id)
    pending = tuple(item for item in state.pending_items if item.item_id != item_id)
    if len(facts) == len(state.facts) and len(pending) == len(state.pending_items):
        raise DurableItemNotFound(item_id)
    highest = dict(state.highest_forgotten)
    numbered = split_item_id(item_id)
    if numbered is not None and numbered[1] > highest.get(numbered[0], 0):
        highest[numbered[0]] = numbered[1]
    return replace(
        state, facts=facts, pending_items=pending, highest_forgotten=tuple(highest.items())
    )


def issue_id(
    state: DurableContextState, prefix: str, taken: tuple[DurableContextState, ...] = ()
) -> str:
    """A new id for an item of `state`: `prefix` and the number after the highest any id
    with that prefix has had, forgotten ones included, so no id is given twice; past the
    ids of each state in `taken` too (other folders' states holding items the session
    showed and did not bring here: `durable.bringing`), so one session never shows one id
    for two items."""
    highest = max(_highest_number(one, prefix) for one in (state, *taken))
    return f"{prefix}{highest + 1}"


def _highest_number(state: DurableContextState, prefix: str) -> int:
    """The highest number an id with `prefix` has had in `state`, forgotten ones included."""
    numbers = [number for prefix_of, number in state.highest_forgotten if prefix_of == prefix]
    ids = [fact.fact_id for fact in state.facts]
    ids += [item.item_id for item in state.pending_items]
    for numbered in filter(None, map(split_item_id, ids)):
        if numbered[0] == prefix:
            numbers.append(numbered[1])
    return max(numbers, default=0)


def split_item_id(item_id: str) -> tuple[str, int] | None:
    """(prefix, number) of an id such as `F12` (letters, then digits); None for others."""
    prefix = item_id.rstrip("0123456789")
    digits = item_id[len(prefix) :]
    if not prefix or not digits or not digits.isascii() or any(c.isdigit() for c in prefix):
        return None
    return prefix, int(digits)


def _find_pending(state: DurableContextState, item_id: str) -> int:
    for index, item in enumerate(state.pending_items):
        if item.item_id == item_id:
            return index
    raise PendingTransitionError("item_id", "unknown_item", item_id=item_id)


def _checked(build: Callable[[], T]) -> T:
    """Run a value check, re-raising its failure as a transition error with the same codes."""
    try:
        return build()
    except PendingTransitionError:
        raise
    except DurableStateError as exc:
        raise PendingTransitionError(exc.field, exc.reason) from exc


def _build_step(
    item: PendingItem,
    to: PendingStatus | str,
    at: str | datetime,
    source_pointer: str,
    reason: str | None,
) -> PendingTransition:
    """Check one requested move of `item` and return it as a history entry, or raise."""
    target = _checked(lambda: require_status("to", to))
    if target not in ALLOWED_TRANSITIONS[item.status]:
        raise PendingTransitionError("to", "illegal_transition")
    if target is PendingStatus.BLOCKED and reason is None:
        raise PendingTransitionError("reason", "required_when_blocked")
    stamp = _checked(lambda: require_timestamp("at", at))
    if parse_timestamp("at", stamp) <= parse_timestamp("last_confirmed_at", item.last_confirmed_at):
        raise PendingTransitionError("at", "not_later")
    return _checked(lambda: PendingTransition(item.status, target, stamp, source_pointer, reason))


def transition_pending(
    state: DurableContextState,
    item_id: str,
    to: PendingStatus | str,
    at: str | datetime,
    source_pointer: str,
    reason: str | None = None,
    evidence_sha256: str | None = None,
) -> DurableContextState:
    """A new state where pending item `item_id` moved to status `to`.

    Legal moves: open -> blocked | done, blocked -> open | done; done is final. The
    change must be strictly later than the item's last confirmation and carry the
    pointer to its own evidence; moving to blocked needs a reason. The item keeps its
    place and gains one `PendingTransition` in its history; its `evidence_sha256` becomes
    the one given, the digest of the new source (`None`: not recorded). Anything else raises
    `PendingTransitionError` (a `DurableStateError`) and leaves `state` as it was.
    """
    index = _find_pending(state, item_id)
    item = state.pending_items[index]
    step = _build_step(item, to, at, source_pointer, reason)
    moved = replace(
        item,
        status=step.to_status,
        last_confirmed_at=step.at,
        source_pointer=step.source_pointer,
        blocked_reason=step.reason if step.to_status is PendingStatus.BLOCKED else None,
        history=(*item.history, step),
        evidence_sha256=_checked(
            lambda: require_optional_sha256("evidence_sha256", evidence_sha256)
        ),
    )
    items = (*state.pending_items[:index], moved, *state.pending_items[index + 1 :])
    return replace(state, pending_items=items)


_HIT_FIELDS = ("memory_id", "source_id", "source_type", "source_title", "captured_at", "score")
# Hits that name their provenance plainly (`type`, `title`) are read too; the `source_`
# spelling wins when a hit has both, since a bare `type` may describe the hit itself.
_HIT_ALIASES = {"source_type": "type", "source_title": "title"}


def _read_hit(hit: object, name: str) -> Any:
    """Read a field from a mapping or an object, by structure rather than by type."""
    if isinstance(hit, Mapping):
        return hit.get(name)
    return getattr(hit, name, None)


def _read_hit_field(hit: object, name: str) -> Any:
    value = _read_hit(hit, name)
    if value is None and name in _HIT_ALIASES:
        value = _read_hit(hit, _HIT_ALIASES[name])
    return value


def _hit_rank(hit: object) -> Any:
    rank, source_rank = _read_hit(hit, "rank"), _read_hit(hit, "source_rank")
    if rank is not None and source_rank is not None and rank != source_rank:
        raise DurableStateError("source_rank", "ambiguous_rank")
    chosen = rank if rank is not None else source_rank
    if chosen is None:
        raise DurableStateError("source_rank", "missing")
    return chosen


def capture_retrieval_evidence(selected_hits: Iterable[object]) -> tuple[RetrievalEvidence, ...]:
    """Freeze the provenance of hits that were already selected upstream, in their order.

    Each hit may be a mapping or an object; its rank is read from `rank` or `source_rank`
    (whichever it has), its type and title from `source_type` / `source_title` or plain
    `type` / `title`. Score, rank and conflict key are copied, never recomputed: the
    selection was decided upstream and must read the same before and after compaction.
    The recalled text is not copied. Duplicate memory ids raise `DurableStateError`.
    """
    captured: list[RetrievalEvidence] = []
    for hit in selected_hits:
        values = {name: _read_hit_field(hit, name) for name in _HIT_FIELDS}
        captured.append(
            RetrievalEvidence(
                **values,
                source_rank=_hit_rank(hit),
                conflict_key=_read_hit(hit, "conflict_key"),
            )
        )
    evidence = tuple(captured)
    DurableContextState(retrieval_evidence=evidence)  # duplicate memory ids raise here
    return evidence
