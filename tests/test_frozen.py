"""Frozen values: read-only all the way down, equal to plain ones, copied as plain ones."""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable
from typing import Any

import pytest

from agent_cli.errors import ReadOnlyValueError, UnfreezableValueError
from agent_cli.frozen import FrozenDict, FrozenList, freeze, is_frozen, thaw
from agent_cli.token_memo import build_snapshot


def _message() -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "let me look"},
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "read_file",
                "input": {"path": "a.py", "lines": [1, 2.5, True, None], "opts": {"x": {}}},
            },
        ],
    }


def _containers(value: Any) -> list[Any]:
    """Every dict and list inside `value`, itself included."""
    found = [value] if isinstance(value, dict | list) else []
    children = value.values() if isinstance(value, dict) else value
    if isinstance(value, dict | list):
        for child in children:
            found += _containers(child)
    return found


def test_freeze_makes_every_container_read_only_and_keeps_the_value() -> None:
    plain = _message()
    frozen = freeze(plain)
    assert all(is_frozen(part) for part in _containers(frozen))
    assert frozen == plain and plain == frozen
    assert json.dumps(frozen) == json.dumps(plain)
    assert isinstance(frozen, dict) and isinstance(frozen["content"], list)
    assert not any(is_frozen(part) for part in _containers(plain))  # the input is untouched


def test_freezing_a_frozen_value_or_a_leaf_returns_it_as_it_is() -> None:
    frozen = freeze(_message())
    assert freeze(frozen) is frozen
    for leaf in ("text", 3, 2.5, True, None):
        assert freeze(leaf) is leaf


def test_constructing_a_frozen_container_freezes_what_it_is_given() -> None:
    made = FrozenDict({"a": [{"b": []}]}, c={"d": 1})
    assert all(is_frozen(part) for part in _containers(made))
    assert all(is_frozen(part) for part in _containers(FrozenList([{"a": [1]}, [[]]])))


def test_tuples_freeze_as_lists_as_json_would_send_them() -> None:
    frozen = freeze({"pair": (1, [2])})
    assert frozen == {"pair": [1, [2]]} and is_frozen(frozen["pair"])


@pytest.mark.parametrize("value", [object(), {1, 2}, b"bytes", {"nested": {"bad": object()}}])
def test_a_value_that_is_not_json_shaped_cannot_be_frozen(value: Any) -> None:
    with pytest.raises(UnfreezableValueError) as caught:
        freeze(value)
    assert caught.value.type_name in {"object", "set", "bytes"}


def _dict_changes() -> list[tuple[str, Callable[[dict[str, Any]], Any]]]:
    def merge(d: dict[str, Any]) -> None:
        d |= {"x": 1}

    return [
        ("__setitem__", lambda d: d.__setitem__("x", 1)),
        ("__delitem__", lambda d: d.__delitem__("role")),
        ("__ior__", merge),
        ("clear", lambda d: d.clear()),
        ("pop", lambda d: d.pop("role")),
        ("popitem", lambda d: d.popitem()),
        ("setdefault", lambda d: d.setdefault("x", 1)),
        ("update", lambda d: d.update(x=1)),
    ]


def _list_changes() -> list[tuple[str, Callable[[list[Any]], Any]]]:
    def add(items: list[Any]) -> None:
        items += [1]

    def repeat(items: list[Any]) -> None:
        items *= 2

    return [
        ("__setitem__", lambda items: items.__setitem__(0, 1)),
        ("__setitem__", lambda items: items.__setitem__(slice(0, 1), [])),
        ("__delitem__", lambda items: items.__delitem__(0)),
        ("__iadd__", add),
        ("__imul__", repeat),
        ("append", lambda items: items.append(1)),
        ("extend", lambda items: items.extend([1])),
        ("insert", lambda items: items.insert(0, 1)),
        ("pop", lambda items: items.pop()),
        ("remove", lambda items: items.remove(items[0])),
        ("clear", lambda items: items.clear()),
        ("sort", lambda items: items.sort(key=str)),
        ("reverse", lambda items: items.reverse()),
    ]


@pytest.mark.parametrize(("operation", "change"), _dict_changes())
def test_every_change_to_a_frozen_dict_is_refused_and_changes_nothing(operation, change) -> None:
    frozen = freeze(_message())
    with pytest.raises(ReadOnlyValueError) as caught:
        change(frozen)
    assert (caught.value.type_name, caught.value.operation) == ("FrozenDict", operation)
    assert frozen == _message()


@pytest.mark.parametrize(("operation", "change"), _list_changes())
def test_every_change_to_a_frozen_list_is_refused_and_changes_nothing(operation, change) -> None:
    frozen = freeze(_message())
    with pytest.raises(ReadOnlyValueError) as caught:
        change(frozen["content"])
    assert (caught.value.type_name, caught.value.operation) == ("FrozenList", operation)
    assert frozen == _message()


def test_calling_init_again_does_not_refill_a_frozen_container() -> None:
    frozen = freeze(_message())
    frozen.__init__({"role": "user"})
    frozen["content"].__init__([])
    assert frozen == _message()


def test_copies_are_plain_and_mutable() -> None:
    frozen = freeze(_message())
    shallow = copy.copy(frozen)
    assert type(shallow) is dict and is_frozen(shallow["content"])
    assert type(frozen.copy()) is dict and type(frozen["content"][:]) is list
    for deep in (copy.deepcopy(frozen), thaw(frozen)):
        assert deep == frozen
        assert not any(is_frozen(part) for part in _containers(deep))
        deep["content"][1]["input"]["lines"].append(4)  # allowed, and leaves frozen alone
    assert frozen == _message()


def test_a_pickled_frozen_value_comes_back_frozen_and_equal() -> None:
    frozen = freeze(_message())
    back = pickle.loads(pickle.dumps(frozen))
    assert back == frozen and all(is_frozen(part) for part in _containers(back))


def test_a_frozen_message_is_its_own_snapshot_and_a_plain_one_is_copied() -> None:
    frozen, plain = freeze(_message()), _message()
    assert build_snapshot(frozen) is frozen
    snapshot = build_snapshot(plain)
    assert snapshot == plain and snapshot is not plain
    assert snapshot["content"] is not plain["content"]


def test_a_derived_value_is_computed_once_and_held_by_the_frozen_value():
    calls = []

    def count_keys(value):
        calls.append(value)
        return len(value)

    message = freeze({"role": "user", "content": [{"type": "text", "text": "hi"}]})
    assert message.derived(count_keys) == 2
    assert message.derived(count_keys) == 2
    assert calls == [message]
    assert freeze(message).derived(count_keys) == 2 and len(calls) == 1  # the same value
    assert freeze(thaw(message)).derived(count_keys) == 2 and len(calls) == 2  # a new one
    assert copy.deepcopy(message) == message and pickle.loads(pickle.dumps(message)) == message
