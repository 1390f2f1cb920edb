"""Read-only JSON values, so that a message's identity proves its content.

Why: the per-turn check must cost what was appended, not the history. A memo can trust
"this is the very message I measured" only if that message cannot have changed since,
and a plain dict can change in place at any time. The session therefore keeps its view
as frozen values; the core still accepts plain dicts and checks those structurally (see
`tokens.build_snapshot`), so freezing is a speed-up that correctness never depends on.

Contract:
- `freeze(value)` returns a deep read-only version of a JSON-shaped value: dicts become
  `FrozenDict`, lists and tuples `FrozenList`, strings, numbers, booleans and None are
  kept (they are immutable). A value that is already frozen comes back as itself, at no
  cost. Anything else raises `UnfreezableValueError`.
- A `FrozenDict` or `FrozenList` is frozen all the way down: constructing one freezes
  what it is given. Every mutating method raises `ReadOnlyValueError`; going around the
  type (`dict.__setitem__(frozen, ...)`) is not defended against.
- `FrozenDict.derived(compute)` is `compute(frozen)`, computed once per `compute` and held
  by the value itself: since the value never changes, neither does what a pure function
  makes of it, so this is no cache that must be kept in step. What it returns is shared by
  every caller and must be immutable (frozen, a tuple, a frozen dataclass).
- They are real `dict` and `list` instances: `isinstance`, `==` with plain values,
  `json.dumps`, iteration and indexing behave as for plain ones. Copies are plain and
  mutable: `copy.copy` and `.copy()` give a plain outer container (its children stay
  frozen), `copy.deepcopy` and `thaw` give plain values all the way down.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

from agent_cli.errors import ReadOnlyValueError, UnfreezableValueError

_IMMUTABLE_LEAVES = (str, int, float, type(None))  # bool is an int
Derived = TypeVar("Derived")


def _refuse(value: Any, operation: str) -> NoReturn:
    raise ReadOnlyValueError(type(value).__name__, operation)


class FrozenDict(dict):  # type: ignore[type-arg]
    """A dict that refuses every change; its values are frozen too."""

    __slots__ = ("_derived",)
    _derived: dict[Callable[[Any], Any], Any] | None

    def __new__(cls, *args: Any, **kwargs: Any) -> FrozenDict:
        self = super().__new__(cls)
        items = dict(*args, **kwargs)
        dict.update(self, {key: freeze(value) for key, value in items.items()})
        self._derived = None
        return self

    def derived(self, compute: Callable[[FrozenDict], Derived]) -> Derived:
        """`compute(self)`, computed on the first call for that `compute` and held by this
        value from then on (module doc). `compute` must be pure and return an immutable
        value. Two threads may both compute it once; either result is the same."""
        held = self._derived
        if held is None:
            held = self._derived = {}
        if compute not in held:
            held[compute] = compute(self)
        value: Derived = held[compute]
        return value

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Filled by `__new__`; calling it again changes nothing."""

    def __setitem__(self, key: Any, value: Any) -> None:
        _refuse(self, "__setitem__")

    def __delitem__(self, key: Any) -> None:
        _refuse(self, "__delitem__")

    def __ior__(self, other: Any) -> NoReturn:  # type: ignore[misc]
        _refuse(self, "__ior__")

    def clear(self) -> None:
        _refuse(self, "clear")

    def pop(self, *args: Any) -> Any:
        _refuse(self, "pop")

    def popitem(self) -> Any:
        _refuse(self, "popitem")

    def setdefault(self, *args: Any) -> Any:
        _refuse(self, "setdefault")

    def update(self, *args: Any, **kwargs: Any) -> None:
        _refuse(self, "update")

    def __copy__(self) -> dict[Any, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        thawed: dict[Any, Any] = thaw(self)
        return thawed

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))


class FrozenList(list):  # type: ignore[type-arg]
    """A list that refuses every change; its items are frozen too."""

    __slots__ = ()

    def __new__(cls, items: Any = ()) -> FrozenList:
        self = super().__new__(cls)
        list.extend(self, [freeze(item) for item in items])
        return self

    def __init__(self, items: Any = ()) -> None:
        """Filled by `__new__`; calling it again changes nothing."""

    def __setitem__(self, index: Any, value: Any) -> None:
        _refuse(self, "__setitem__")

    def __delitem__(self, index: Any) -> None:
        _refuse(self, "__delitem__")

    def __iadd__(self, other: Any) -> NoReturn:  # type: ignore[misc]
        _refuse(self, "__iadd__")

    def __imul__(self, times: Any) -> NoReturn:  # type: ignore[misc]
        _refuse(self, "__imul__")

    def append(self, item: Any) -> None:
        _refuse(self, "append")

    def extend(self, items: Any) -> None:
        _refuse(self, "extend")

    def insert(self, index: Any, item: Any) -> None:
        _refuse(self, "insert")

    def pop(self, *args: Any) -> Any:
        _refuse(self, "pop")

    def remove(self, item: Any) -> None:
        _refuse(self, "remove")

    def clear(self) -> None:
        _refuse(self, "clear")

    def sort(self, *args: Any, **kwargs: Any) -> None:
        _refuse(self, "sort")

    def reverse(self) -> None:
        _refuse(self, "reverse")

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        thawed: list[Any] = thaw(self)
        return thawed

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenList, (list(self),))


def freeze(value: Any) -> Any:
    """A deep read-only version of a JSON-shaped value (module doc); frozen values and
    immutable leaves come back as themselves."""
    kind = type(value)
    if kind is FrozenDict or kind is FrozenList or isinstance(value, _IMMUTABLE_LEAVES):
        return value
    if isinstance(value, dict):
        return FrozenDict(value)
    if isinstance(value, list | tuple):
        return FrozenList(value)
    raise UnfreezableValueError(kind.__name__)


def is_frozen(value: Any) -> bool:
    """True for a FrozenDict or FrozenList (which are frozen all the way down)."""
    kind = type(value)
    return kind is FrozenDict or kind is FrozenList


def thaw(value: Any) -> Any:
    """A plain, mutable deep copy of a JSON-shaped value, frozen or not."""
    if isinstance(value, dict):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(item) for item in value]
    return value
