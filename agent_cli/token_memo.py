"""The memo machinery of the token counter: structural snapshots and a bounded LRU map.

Contract:
- `build_snapshot(value)` returns a copy that compares equal to `value` until `value`
  changes in any way, in place or not: dicts and lists are copied, strings and None are
  shared, numbers keep their type (`1` -> `1.0` or `True` -> `1` is a change), and a
  frozen value (`agent_cli.frozen`) is its own snapshot.
- `BoundedMemo` is an LRU map bounded both by entries and by a total weight (tokens or
  characters), because what a memo remembers stays pinned in memory. Not thread-safe.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from typing import Any

from agent_cli.frozen import FrozenDict, FrozenList


class _TypedNumber:
    """A snapshotted number that equals only a number of the same type and value."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self.value) and other == self.value

    __hash__ = None  # type: ignore[assignment]


def build_snapshot(value: Any) -> Any:
    """A copy that compares equal to `value` until `value` changes in any way.

    Dicts and lists are copied, strings and None are shared (immutable), numbers are
    wrapped so their type is compared too, anything else is deep-copied. A frozen value
    (`frozen.FrozenDict` / `FrozenList`, read-only all the way down) is its own snapshot:
    comparing it then costs one identity check.
    """
    kind = type(value)
    if kind is FrozenDict or kind is FrozenList:
        return value
    if kind is dict:  # strings, the commonest leaves, are shared without a call
        return {
            key: item if type(item) is str else build_snapshot(item) for key, item in value.items()
        }
    if kind is list:
        return [item if type(item) is str else build_snapshot(item) for item in value]
    if kind is str or value is None:
        return value
    if kind in (int, float, bool):
        return _TypedNumber(value)
    return copy.deepcopy(value)


class BoundedMemo:
    """An LRU map bounded by entries and by a total weight (tokens or characters)."""

    def __init__(self, max_entries: int, max_weight: int) -> None:
        self._entries: OrderedDict[Any, tuple[Any, int]] = OrderedDict()
        self._max_entries, self._max_weight, self._weight = max_entries, max_weight, 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Any) -> Any:
        entry = self._entries.get(key)
        if entry is None:
            return None
        self._entries.move_to_end(key)
        return entry[0]

    def put(self, key: Any, value: Any, weight: int) -> None:
        old = self._entries.pop(key, None)
        if old is not None:
            self._weight -= old[1]
        self._entries[key] = (value, weight)
        self._weight += weight
        while len(self._entries) > self._max_entries or (
            self._weight > self._max_weight and len(self._entries) > 1
        ):
            self._weight -= self._entries.popitem(last=False)[1][1]
