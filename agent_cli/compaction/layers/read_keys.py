"""What a file read reads: the key L2 compares reads by (see `dedup`). Pure."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from agent_cli.compaction.policy import CompactionPolicy, ReadRule


def read_rule(policy: CompactionPolicy) -> ReadRule:
    """The part of `policy` read keys depend on."""
    return (policy.read_tool_names, policy.read_path_key)


def find_reads(
    uses: Iterable[dict[str, Any]], policy: CompactionPolicy
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(tool_use id, read key) of each read among `uses`, in order."""
    keyed = ((block, build_read_key(block, policy)) for block in uses)
    return tuple((block["id"], key) for block, key in keyed if key is not None)


def normalize_read_path(path: str) -> str:
    """`path` without empty and `.` segments; `..` and blanks are kept: each names another file."""
    joined = "/".join(part for part in path.split("/") if part not in ("", "."))
    return "/" + joined if path.startswith("/") else joined


def build_read_key(block: dict[str, Any], policy: CompactionPolicy) -> tuple[str, ...] | None:
    """(tool, normalized path, other inputs as sorted JSON) for a tool_use the policy counts as a
    read, else None."""
    name = block.get("name")
    if name not in policy.read_tool_names:
        return None
    tool_input = block.get("input")
    if not isinstance(tool_input, dict):
        return None
    path = tool_input.get(policy.read_path_key)
    if not isinstance(path, str) or not path.strip():
        return None
    normalized = normalize_read_path(path)
    if len(tool_input) == 1:
        return (name, normalized, "")
    others = {key: value for key, value in tool_input.items() if key != policy.read_path_key}
    try:
        return (name, normalized, json.dumps(others, sort_keys=True, default=str))
    except TypeError:  # keys of mixed types (a library caller's dict) do not sort:
        pairs = sorted(others.items(), key=lambda pair: repr(pair[0]))  # by repr, none merge
        return (name, normalized, json.dumps(pairs, default=str))
