"""Property names the Messages API refuses in a tool's input schema, renamed to safe ones.

Why: the API refuses the whole request (HTTP 400, "Property keys should match pattern
'^[a-zA-Z0-9_.-]{1,64}$'") when one tool's `input_schema.properties` has a key outside
that grammar, and MCP servers list such keys all the time (`filter[id]`, `$top`,
`Account Number`). It checks the top level only, so only those keys are renamed; the tool
stays usable, and its calls reach the server under the server's own names.

Contract:
- `is_safe_key(key)`: whether the API takes `key` as a property name.
- `rename_properties(schema)`: a `Renaming` of an object schema whose top-level
  `properties` (a mapping of strings) have keys the API refuses: the schema with each
  such key renamed in place (its order kept): every character outside the grammar made
  `_`, cut to `MAX_KEY_CHARS`, a blank key named `BLANK_KEY`, and made unique against every
  other key (the safe ones kept as they are first, then `_2`, `_3`, ... before the cut);
  the top-level `required` in step. `renamed` holds (server's key, offered key) pairs in
  the schema's order; empty, and the schema itself, when nothing needs renaming.
  `problem` says why the schema cannot be renamed sensibly, "" when it can: a renamed key
  is named again by top-level `dependentRequired`, `dependentSchemas` or `dependencies`
  (those would have to be rewritten as well, and with them the server's own logic).
- `server_arguments(arguments, renamed)`: the model's arguments under the server's names:
  a name `renamed` offered is mapped back, any other goes through as sent; should the
  model send both a server's name and the name it was offered as, the offered one wins.
Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

MAX_KEY_CHARS = 64
BLANK_KEY = "unnamed"
SAFE_KEY = re.compile(r"[a-zA-Z0-9_.-]{1,64}")
_UNSAFE_CHARACTER = re.compile(r"[^a-zA-Z0-9_.-]")
NAMING_KEYWORDS = ("dependentRequired", "dependentSchemas", "dependencies")


@dataclass(frozen=True)
class Renaming:
    """A schema with its refused property names renamed (module contract)."""

    schema: Any
    renamed: tuple[tuple[str, str], ...] = ()
    problem: str = ""


def is_safe_key(key: str) -> bool:
    """Whether the Messages API takes `key` as a property name (`fullmatch`: `$` would
    let a trailing line break through)."""
    return SAFE_KEY.fullmatch(key) is not None


def rename_properties(schema: Any) -> Renaming:
    """`schema` with its refused top-level property names renamed (module contract)."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return Renaming(schema)
    keys = [key for key in properties if isinstance(key, str)]
    unsafe = [key for key in keys if not is_safe_key(key)]
    if not unsafe:
        return Renaming(schema)
    names = _safe_names(unsafe, taken={key for key in keys if is_safe_key(key)})
    problem = _describe_named_elsewhere(schema, unsafe)
    if problem:
        return Renaming(schema, problem=problem)
    renamed = dict(schema)
    renamed["properties"] = {names.get(key, key): value for key, value in properties.items()}
    required = schema.get("required")
    if isinstance(required, list):
        renamed["required"] = [
            names.get(item, item) if isinstance(item, str) else item for item in required
        ]
    return Renaming(renamed, tuple((key, names[key]) for key in unsafe))


def server_arguments(
    arguments: Mapping[str, Any], renamed: Iterable[tuple[str, str]]
) -> dict[str, Any]:
    """`arguments` under the server's own property names (module contract)."""
    back = {offered: own for own, offered in renamed}
    if not back:
        return dict(arguments)
    mapped = {name: value for name, value in arguments.items() if name not in back}
    mapped.update({back[name]: value for name, value in arguments.items() if name in back})
    return mapped


def _safe_names(unsafe: list[str], taken: set[str]) -> dict[str, str]:
    """A safe, unique name for each of `unsafe`, none of them in `taken`."""
    names: dict[str, str] = {}
    for key in unsafe:
        base = _UNSAFE_CHARACTER.sub("_", key)[:MAX_KEY_CHARS] or BLANK_KEY
        name, number = base, 1
        while name in taken:
            number += 1
            suffix = f"_{number}"
            name = base[: MAX_KEY_CHARS - len(suffix)] + suffix
        taken.add(name)
        names[key] = name
    return names


def _describe_named_elsewhere(schema: Mapping[str, Any], unsafe: list[str]) -> str:
    """Why the schema cannot be renamed: a keyword beside `properties` names one of
    `unsafe` (as a key, or in a list of names); "" when none does."""
    refused = set(unsafe)
    for keyword in NAMING_KEYWORDS:
        value = schema.get(keyword)
        if not isinstance(value, Mapping):
            continue
        named = {key for key in value if isinstance(key, str)}
        for listed in value.values():
            if isinstance(listed, list):
                named.update(item for item in listed if isinstance(item, str))
        if named & refused:
            return (
                "its input schema has property names the Messages API refuses (it takes "
                f"letters, digits, '_', '.' and '-', at most {MAX_KEY_CHARS}), and its "
                f"{keyword} names them too, so agent-cli cannot rename them"
            )
    return ""
