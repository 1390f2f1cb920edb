"""What the Messages API asks of a tool's input schema, checked before a tool is offered.

Why: one tool in the request whose schema the API refuses makes it refuse the whole
request (HTTP 400), every request of the session, whatever the user sends. Real MCP
servers list such schemas (a top-level `anyOf` for "by id or by name"), so each is
checked here, and a tool that fails is left out with the reason instead.

Contract: `describe_schema_problem(schema)` is a short phrase saying why `schema` cannot
be offered, or None: it is no JSON object schema (`type` "object"), it has `anyOf`,
`oneOf` or `allOf` at the top level (the API's own words: "input_schema does not support
oneOf, allOf, or anyOf at the top level"), it is nested more than `MAX_SCHEMA_DEPTH`
objects and arrays deep (counted without recursion, so no depth costs a stack), it holds
a number strict JSON cannot carry (NaN, Infinity, or one past the float range such as
`1e400`, which reads as Infinity: the SDK's encoder refuses them, so such a tool made every
request of the session fail before it was sent), or it is over `MAX_SCHEMA_BYTES` as JSON;
`secrets` are redacted from where it names in the schema. `describe_invalid_schema(schema, secrets)` is the phrase
when `schema` is no valid JSON Schema draft 2020-12 (the API: "JSON schema is invalid. It
must match JSON Schema draft 2020-12"), checked against the draft's meta-schema with
`jsonschema`, or None; its words name where and what (`failures.one_line`: `secrets` redacted
before the cut, control characters dropped). Call it only on a schema `describe_schema_problem` passed:
the checker recurses about five frames a level. Formats are not asserted: `pattern`
holds an ECMA-262 regex, which Python's `re` cannot always read (`\\p{L}`), and the draft
makes `format` an annotation. Pure; `jsonschema` is imported on first use (it costs
about 0.2 s, on the hub's thread).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from agent_cli.mcp_servers.failures import one_line
from agent_cli.secret_forms import NO_SECRETS, SecretForms

MAX_SCHEMA_BYTES = 64_000
MAX_SCHEMA_DEPTH = 64  # objects and arrays, the schema itself the first
TOP_LEVEL_COMBINATORS = ("anyOf", "oneOf", "allOf")


def describe_schema_problem(schema: Any, secrets: SecretForms = NO_SECRETS) -> str | None:
    """Why `schema` cannot be offered as it is shaped, or None (module contract)."""
    if not isinstance(schema, Mapping) or schema.get("type") != "object":
        return "its input schema is not a JSON object schema"
    combined = [key for key in TOP_LEVEL_COMBINATORS if key in schema]
    if combined:
        return (
            f"its input schema has {combined[0]} at the top level, which the Messages API "
            "refuses (it takes no anyOf, oneOf or allOf there)"
        )
    if nesting_depth(schema, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH:
        return f"its input schema is nested more than {MAX_SCHEMA_DEPTH} levels deep"
    unsendable = find_non_finite_number(schema)
    if unsendable is not None:
        where, number = unsendable
        place = f" at {one_line(where, secrets)}" if where else ""
        return (
            f"its input schema holds {number}{place}, which strict JSON cannot carry and the "
            "Messages API refuses (a number past about 1.8e308, such as 1e400, reads as Infinity)"
        )
    try:
        size = len(json.dumps(schema, ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError):
        return "its input schema is not JSON"
    if size > MAX_SCHEMA_BYTES:
        return f"its input schema is {size:,} bytes (at most {MAX_SCHEMA_BYTES:,})"
    return None


def nesting_depth(value: Any, limit: int) -> int:
    """How many objects and arrays deep `value` is (a scalar 0), counted up to just past
    `limit` and without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def find_non_finite_number(value: Any) -> tuple[str, str] | None:
    """Where in `value` (keys and indices joined by dots, "" for `value` itself) the first
    NaN or infinite float sits, and it as JSON's extensions spell it ("NaN", "Infinity",
    "-Infinity"); None when there is none. Walked without recursion."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            spelled = "NaN" if math.isnan(item) else ("Infinity" if item > 0 else "-Infinity")
            return ".".join(path), spelled
        if isinstance(item, Mapping):
            pairs: Any = item.items()
        elif isinstance(item, list):
            pairs = enumerate(item)
        else:
            continue
        stack.extend((child, (*path, str(key))) for key, child in reversed(list(pairs)))
    return None


def describe_invalid_schema(schema: Any, secrets: SecretForms = NO_SECRETS) -> str | None:
    """Why `schema` is no valid JSON Schema draft 2020-12, or None (module contract)."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema, format_checker=None)
    except SchemaError as error:
        where = ".".join(str(part) for part in error.absolute_path)
        said = f"at {where}: {error.message}" if where else error.message
        return (
            "its input schema is not valid JSON Schema (draft 2020-12, which the Messages "
            f"API requires): {one_line(said, secrets)}"
        )
    return None
