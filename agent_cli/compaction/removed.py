"""What a layer took out of a view: the user's words and the interactions, with pointers.

Contract: `collect_removed(before, after)` compares two views of one layer step (neither
holding the digest) and returns the user texts and the tool interactions that are in
`before` but no longer in `after`, newest first. Only messages that changed are visited:
layers share every message they keep, so a message of `before` that is still in `after`
(same object) lost nothing, and a message a layer rebuilt (fewer blocks) keeps its text,
which is matched against what came back. Pointers come from the private `SOURCE_KEY`
the session attaches to each message it recorded (`transcript:<session>:<sequence>`);
a message without one gives an entry without a pointer. Pure: no I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from agent_cli.compaction.markers import SOURCE_KEY, is_digest_message, is_summary_message

# The input keys that say what a call was about, most telling first.
KEY_INPUTS = ("path", "command", "pattern", "pointer", "query", "url", "file_path")
MAX_KEY_INPUT_CHARS = 120


@dataclass(frozen=True)
class RemovedRequest:
    """A user text that left the view, with the record it came from."""

    text: str
    pointer: str | None


@dataclass(frozen=True)
class RemovedInteraction:
    """One tool call (both halves) that left the view, as one line, with its pointer."""

    tool_use_id: str
    line: str
    pointer: str | None


def user_texts(message: dict[str, Any]) -> Iterator[str]:
    """The texts a user message carries (string content or text blocks), non-blank only."""
    if message.get("role") != "user" or is_summary_message(message) or is_digest_message(message):
        return
    content = message.get("content")
    if isinstance(content, str):
        if content.strip():
            yield content
        return
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str) and text.strip():
                yield text


def _pointer_of(message: dict[str, Any]) -> str | None:
    pointer = message.get(SOURCE_KEY)
    return pointer if isinstance(pointer, str) and pointer else None


def collect_removed(
    before: Sequence[dict[str, Any]], after: Sequence[dict[str, Any]]
) -> tuple[list[RemovedRequest], list[RemovedInteraction]]:
    """The user texts and interactions of `before` missing from `after`, newest first."""
    after_ids = set(map(id, after))
    gone = [message for message in before if id(message) not in after_ids]
    if not gone:
        return [], []
    before_ids = set(map(id, before))
    came = [message for message in after if id(message) not in before_ids]
    return _removed_requests(gone, came), _removed_interactions(gone, came)


def _removed_requests(
    gone: list[dict[str, Any]], came: list[dict[str, Any]]
) -> list[RemovedRequest]:
    still_there = Counter(text for message in came for text in user_texts(message))
    removed: list[RemovedRequest] = []
    for message in reversed(gone):  # newest first; a rebuilt message is matched first
        for text in user_texts(message):
            if still_there[text] > 0:
                still_there[text] -= 1
            else:
                removed.append(RemovedRequest(text, _pointer_of(message)))
    return removed


def _tool_blocks(messages: list[dict[str, Any]], kind: str) -> Iterator[tuple[dict, dict]]:
    for message in messages:
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == kind:
                yield message, block


def _removed_interactions(
    gone: list[dict[str, Any]], came: list[dict[str, Any]]
) -> list[RemovedInteraction]:
    kept = {block.get("id") for _, block in _tool_blocks(came, "tool_use")}
    results = {
        block.get("tool_use_id"): (m, block) for m, block in _tool_blocks(gone, "tool_result")
    }
    removed: list[RemovedInteraction] = []
    for message, use in reversed(list(_tool_blocks(gone, "tool_use"))):
        tool_id = use.get("id")
        if not isinstance(tool_id, str) or tool_id in kept:
            continue
        result_message, result = results.get(tool_id, (None, None))
        pointer = (_pointer_of(result_message) if result_message else None) or _pointer_of(message)
        removed.append(RemovedInteraction(tool_id, describe_interaction(use, result), pointer))
    return removed


def describe_interaction(use: dict[str, Any], result: dict[str, Any] | None) -> str:
    """`read_file path=src/a.py -> 1,234 chars, ok`: tool, key input, result size, outcome."""
    name = str(use.get("name") or "tool")
    key_input = describe_key_input(use.get("input"))
    head = f"{name} {key_input}" if key_input else name
    if result is None:
        return f"{head} -> no result"
    outcome = "error" if result.get("is_error") is True else "ok"
    return f"{head} -> {result_size(result):,} chars, {outcome}"


def describe_key_input(tool_input: Any) -> str:
    """The one input that says what the call was about, `key=value`, on one short line."""
    if not isinstance(tool_input, dict) or not tool_input:
        return ""
    key = next((k for k in KEY_INPUTS if isinstance(tool_input.get(k), str)), None)
    if key is None:
        key = next((k for k, v in tool_input.items() if isinstance(v, str)), None)
    if key is None:
        return ""
    value = " ".join(str(tool_input[key]).split())
    if len(value) > MAX_KEY_INPUT_CHARS:
        value = value[: MAX_KEY_INPUT_CHARS - 1] + "…"
    return f"{key}={value}"


def result_size(result: dict[str, Any]) -> int:
    """Characters of a tool_result's text (string content or text parts)."""
    content = result.get("content")
    if isinstance(content, str):
        return len(content)
    if not isinstance(content, list):
        return 0
    return sum(
        len(part.get("text", ""))
        for part in content
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    )
