"""Bringing one folder's durable state into another's, ids kept, when the user asks.

Contract: `bring_state(earlier, here)` is `here` with every fact, pending item and
retrieval evidence of `earlier` it does not hold yet, each under the id it had, in order
(`earlier`'s first), and per id prefix the higher `highest_forgotten` of the two, so the
next id goes on after the highest either ever gave. An id names one item for good
(`state.issue_id`), so two states are made one only when no id of either would come to
name another item: `DurableIdsClash` names every id that one state gives to an item and
the other gave to a different one (an item of its own, or one it forgot since: a number up
to its `highest_forgotten`; `clashing_ids`). An item both hold alike is the same item (a
copy brought before, or a folder copied with its memory), not a clash.
`items_elsewhere(folder, earlier, here)` is what a bring would add to `here`: the facts and
pending items of `earlier` that `here` does not hold alike, and the ids that would stop it.
`has_anything(state)` is whether a state holds an item or has given an id at all.

Why: facts belong to the folder they were saved for (`store.memory`). A session resumed in
another folder (the project renamed, or a copy of it) shows where its earlier items are
and `/facts bring` copies them; nothing decides on its own that two folders are one (an
inode number comes back for an unrelated folder, and a folder moved away may come back).
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from agent_cli.durable.model import DurableContextState, DurableFact, PendingItem
from agent_cli.durable.state import split_item_id
from agent_cli.errors import DurableIdsClash

T = TypeVar("T")


@dataclass(frozen=True)
class ItemsElsewhere:
    """The items kept for `folder` (as a session recorded it) that a bring would add here:
    `waiting` holds its facts and pending items this folder does not hold alike, `clashes`
    the ids that keep the two states apart (`clashing_ids`; empty when a bring can be made)."""

    folder: str
    waiting: DurableContextState
    clashes: tuple[str, ...] = ()


def items_elsewhere(
    folder: str, earlier: DurableContextState, here: DurableContextState
) -> ItemsElsewhere:
    """What `earlier` (the state kept for `folder`) holds that `here` lacks (module
    contract)."""
    waiting = DurableContextState(
        facts=tuple(fact for fact in earlier.facts if fact not in here.facts),
        pending_items=tuple(
            item for item in earlier.pending_items if item not in here.pending_items
        ),
    )
    return ItemsElsewhere(folder, waiting, clashing_ids(earlier, here))


def has_anything(state: DurableContextState) -> bool:
    """Whether `state` holds an item or evidence, or has forgotten one (its ids count)."""
    return not state.is_empty or bool(state.highest_forgotten)


def bring_state(earlier: DurableContextState, here: DurableContextState) -> DurableContextState:
    """`here` with what `earlier` holds that it lacks, ids kept (module contract); raises
    `DurableIdsClash` and changes nothing when an id would come to name another item."""
    clashes = clashing_ids(earlier, here)
    if clashes:
        raise DurableIdsClash(clashes)
    highest = dict(here.highest_forgotten)
    for prefix, number in earlier.highest_forgotten:
        highest[prefix] = max(number, highest.get(prefix, 0))
    return DurableContextState(
        facts=_joined(earlier.facts, here.facts, _fact_id),
        pending_items=_joined(earlier.pending_items, here.pending_items, _item_id),
        retrieval_evidence=_joined(
            earlier.retrieval_evidence, here.retrieval_evidence, lambda ev: ev.memory_id
        ),
        highest_forgotten=tuple(highest.items()),
    )


def clashing_ids(earlier: DurableContextState, here: DurableContextState) -> tuple[str, ...]:
    """The ids that name different items in `earlier` and `here` (module contract), each
    once, in the order `earlier` then `here` hold them."""
    found: list[str] = []
    for mine, theirs in ((earlier, here), (here, earlier)):
        for kind in (_facts_by_id, _items_by_id, _evidence_by_id):
            own, other = kind(mine), kind(theirs)
            forgets = kind is not _evidence_by_id  # evidence ids are not given in order
            found += (
                item_id
                for item_id, item in own.items()
                if _names_another(item_id, item, other, theirs if forgets else None)
            )
    return tuple(dict.fromkeys(found))


def _names_another(
    item_id: str,
    item: object,
    other: Mapping[str, object],
    forgetting: DurableContextState | None,
) -> bool:
    """Whether the other state gave `item_id` to an item other than `item`: one it holds,
    or (`forgetting`: the other state, for ids given in order) one it forgot."""
    if item_id in other:
        return other[item_id] != item
    return forgetting is not None and _was_forgotten(forgetting, item_id)


def _was_forgotten(state: DurableContextState, item_id: str) -> bool:
    """Whether `state` may have given `item_id` to an item it has forgotten since: ids are
    given in order, so every number of its prefix up to the highest forgotten one may
    have been."""
    numbered = split_item_id(item_id)
    if numbered is None:
        return False
    return numbered[1] <= dict(state.highest_forgotten).get(numbered[0], 0)


def _joined(earlier: Iterable[T], here: Iterable[T], key: Callable[[T], str]) -> tuple[T, ...]:
    """`earlier`'s then `here`'s, an item both hold (by `key`, alike) once."""
    joined: dict[str, T] = {}
    for item in (*earlier, *here):
        joined.setdefault(key(item), item)
    return tuple(joined.values())


def _fact_id(fact: DurableFact) -> str:
    return fact.fact_id


def _item_id(item: PendingItem) -> str:
    return item.item_id


def _facts_by_id(state: DurableContextState) -> Mapping[str, object]:
    return {fact.fact_id: fact for fact in state.facts}


def _items_by_id(state: DurableContextState) -> Mapping[str, object]:
    return {item.item_id: item for item in state.pending_items}


def _evidence_by_id(state: DurableContextState) -> Mapping[str, object]:
    return {evidence.memory_id: evidence for evidence in state.retrieval_evidence}
