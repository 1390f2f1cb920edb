"""Durable state to and from plain JSON-safe dictionaries.

Contract: `state_from_dict(state_to_dict(s)) == s` for every valid state, and the dict
holds only dicts, lists, strings, numbers and `None`, so `json.dumps` takes it as is.
Loading refuses unknown or missing keys with `DurableStateError` rather than guessing:
the memory store reports a damaged file instead of silently dropping what it cannot read.
An item's `evidence_sha256` is written only when it has one, so a state without hashes
(every file saved before they were kept) reads and writes as it always did; so is
`highest_forgotten`, only once an item was forgotten.
Versioning of the file around this dict is the store's job. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import fields
from typing import Any

from agent_cli.durable.model import (
    DurableContextState,
    DurableFact,
    PendingItem,
    PendingTransition,
    RetrievalEvidence,
)
from agent_cli.errors import DurableStateError


def _transition_to_dict(step: PendingTransition) -> dict[str, Any]:
    return {
        "from_status": step.from_status.value,
        "to_status": step.to_status.value,
        "at": step.at,
        "source_pointer": step.source_pointer,
        "reason": step.reason,
    }


def _with_digest(data: dict[str, Any], digest: str | None) -> dict[str, Any]:
    """`data` with `evidence_sha256` when there is one; absent (not null) otherwise."""
    return data if digest is None else {**data, "evidence_sha256": digest}


def _fact_to_dict(fact: DurableFact) -> dict[str, Any]:
    data = {
        "fact_id": fact.fact_id,
        "content": fact.content,
        "source_pointer": fact.source_pointer,
        "last_confirmed_at": fact.last_confirmed_at,
    }
    return _with_digest(data, fact.evidence_sha256)


def _pending_to_dict(item: PendingItem) -> dict[str, Any]:
    data = {
        "item_id": item.item_id,
        "description": item.description,
        "source_pointer": item.source_pointer,
        "last_confirmed_at": item.last_confirmed_at,
        "status": item.status.value,
        "blocked_reason": item.blocked_reason,
        "history": [_transition_to_dict(step) for step in item.history],
    }
    return _with_digest(data, item.evidence_sha256)


def _plain_to_dict(value: RetrievalEvidence) -> dict[str, Any]:
    return {f.name: getattr(value, f.name) for f in fields(value)}


def state_to_dict(state: DurableContextState) -> dict[str, Any]:
    """A JSON-safe dict of the whole state, in the state's own order."""
    data: dict[str, Any] = {
        "facts": [_fact_to_dict(fact) for fact in state.facts],
        "pending_items": [_pending_to_dict(item) for item in state.pending_items],
        "retrieval_evidence": [_plain_to_dict(ev) for ev in state.retrieval_evidence],
    }
    if state.highest_forgotten:
        data["highest_forgotten"] = dict(state.highest_forgotten)
    return data


def _require_mapping(field: str, value: object) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise DurableStateError(field, "not_an_object")
    return value


def _build(kind: type, field: str, raw: object, required: frozenset[str]) -> Any:
    """Construct `kind` from a mapping whose keys must be a subset of its fields."""
    data = _require_mapping(field, raw)
    known = {f.name for f in fields(kind)}
    if set(data) - known:
        raise DurableStateError(field, "unknown_key")
    if required - set(data):
        raise DurableStateError(field, "missing_key")
    return kind(**data)


def _list_of(field: str, raw: object, build_one: Callable[[object], Any]) -> tuple[Any, ...]:
    if not isinstance(raw, list | tuple):
        raise DurableStateError(field, "not_a_list")
    return tuple(build_one(item) for item in raw)


_FACT_KEYS = frozenset({"fact_id", "content", "source_pointer", "last_confirmed_at"})
_PENDING_KEYS = frozenset({"item_id", "description", "source_pointer", "last_confirmed_at"})
_TRANSITION_KEYS = frozenset({"from_status", "to_status", "at", "source_pointer"})
_EVIDENCE_KEYS = frozenset(
    {
        "memory_id",
        "source_id",
        "source_type",
        "source_title",
        "captured_at",
        "score",
        "source_rank",
    }
)


def _pending_from_dict(raw: object) -> PendingItem:
    data = dict(_require_mapping("pending_items", raw))
    history = data.pop("history", [])
    steps = _list_of(
        "history",
        history,
        lambda step: _build(PendingTransition, "history", step, _TRANSITION_KEYS),
    )
    item: PendingItem = _build(
        PendingItem, "pending_items", {**data, "history": steps}, _PENDING_KEYS
    )
    return item


def state_from_dict(data: object) -> DurableContextState:
    """Rebuild a state from `state_to_dict` output; every value is validated again."""
    top = _require_mapping("state", data)
    if set(top) - {"facts", "pending_items", "retrieval_evidence", "highest_forgotten"}:
        raise DurableStateError("state", "unknown_key")
    facts = _list_of(
        "facts",
        top.get("facts", []),
        lambda raw: _build(DurableFact, "facts", raw, _FACT_KEYS),
    )
    pending = _list_of("pending_items", top.get("pending_items", []), _pending_from_dict)
    evidence = _list_of(
        "retrieval_evidence",
        top.get("retrieval_evidence", []),
        lambda raw: _build(RetrievalEvidence, "retrieval_evidence", raw, _EVIDENCE_KEYS),
    )
    highest = _require_mapping("highest_forgotten", top.get("highest_forgotten", {}))
    return DurableContextState(
        facts=facts,
        pending_items=pending,
        retrieval_evidence=evidence,
        highest_forgotten=tuple(highest.items()),
    )
