"""Atomic removal of tool interactions: both halves of a call go, or neither.

Contract: removing the interactions of some ids drops their tool_use and tool_result
blocks together; other blocks of the same messages stay in place, and a message left with
no content is dropped. Nothing here mutates its input: unchanged messages are shared,
changed ones are new dicts. Given where each interaction lives (`Interaction`, from
`agent_cli.protocol_validation`), only those messages are visited.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from agent_cli.protocol_validation import Interaction


def _without_blocks(message: dict[str, Any], ids: Collection[str]) -> dict[str, Any] | None:
    """`message` minus the tool blocks of `ids`: itself if untouched, None if left empty."""
    content = message.get("content")
    if not isinstance(content, list):
        return message
    kept = []  # the test written out inline: removal from a long view runs this per message
    for block in content:
        if isinstance(block, dict):
            kind = block.get("type")
            if (kind == "tool_use" and block.get("id") in ids) or (
                kind == "tool_result" and block.get("tool_use_id") in ids
            ):
                continue
        kept.append(block)
    if len(kept) == len(content):
        return message
    if not kept:
        return None
    return {**message, "content": kept}


def locate_interactions(
    messages: Sequence[dict[str, Any]], use_indices: Mapping[str, int]
) -> dict[str, Interaction]:
    """Interactions of a valid view, given where each tool_use is: its result is searched
    forward from there (it is usually in the very next message)."""
    located = {}
    for tool_id, use_index in use_indices.items():
        for index in range(use_index + 1, len(messages)):
            if _holds_result_of(messages[index], tool_id):
                located[tool_id] = Interaction(use_index, index)
                break
    return located


def _holds_result_of(message: Any, tool_id: str) -> bool:
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return False
    for block in content:
        if (
            isinstance(block, dict)
            and block.get("tool_use_id") == tool_id
            and block.get("type") == "tool_result"
        ):
            return True
    return False


def remove_tool_interactions(
    messages: Sequence[dict[str, Any]],
    ids: Iterable[str],
    *,
    interactions: Mapping[str, Interaction] | None = None,
) -> list[dict[str, Any]]:
    """A new list without the tool_use and tool_result blocks of `ids`, both halves at once.

    Other blocks stay in place; a message left with no content is dropped; untouched
    messages are the same objects, touched ones are new dicts. The input is not mutated.
    With `interactions` (where each id's halves are, indices into `messages`), only those
    messages are visited, which keeps removal from a long view cheap.
    """
    doomed = frozenset(ids)
    if not doomed:
        return list(messages)
    return apply_changes(messages, strip_interactions(messages, doomed, interactions))


def apply_changes(
    messages: Sequence[dict[str, Any]], changes: Mapping[int, dict[str, Any] | None]
) -> list[dict[str, Any]]:
    """`messages` with the `changes` of `strip_interactions` made, as a new list."""
    result: list[dict[str, Any] | None] = list(messages)
    for index, replacement in changes.items():
        result[index] = replacement
    return [message for message in result if message is not None]


def strip_interactions(
    messages: Sequence[dict[str, Any]],
    ids: Collection[str],
    interactions: Mapping[str, Interaction] | None = None,
) -> dict[int, dict[str, Any] | None]:
    """What removing the interactions `ids` changes: index -> the message without their
    blocks, or None where nothing is left of it. Untouched messages are not listed. With
    `interactions` only the messages they name are visited (see above)."""
    if interactions is None:
        touched: Iterable[int] = range(len(messages))
    else:
        touched = {
            index for tool_id in ids if tool_id in interactions for index in interactions[tool_id]
        }
    changes: dict[int, dict[str, Any] | None] = {}
    for index in touched:
        replacement = _without_blocks(messages[index], ids)
        if replacement is not messages[index]:
            changes[index] = replacement
    return changes
