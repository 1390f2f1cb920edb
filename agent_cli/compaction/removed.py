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
from typing import Any, NamedTuple

from agent_cli.compaction.markers import SOURCE_KEY, is_digest_message, is_summary_message

# The input keys that say what a call was about, most telling first.
KEY_INPUTS = ("path", "command", "pattern", "pointer", "query", "url", "file_path")
MAX_KEY_INPUT_CHARS = 120


class RemovedRequest(NamedTuple):
    """A user text that left the view, with the record it came from."""

    text: str
    pointer: str | None


class RemovedInteraction(NamedTuple):
    """One tool call (both halves) that left the view, with its pointer. Its line is
    written only when asked (`describe`): most of a long removal folds into a range.
    (Tuples, not dataclasses: a long removal makes thousands of them.)"""

    tool_use_id: str
    use: dict[str, Any]
    result: dict[str, Any] | None
    pointer: str | None

    def describe(self) -> str:
        return describe_interaction(self.use, self.result)


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
    came = _Blocks([message for message in after if id(message) not in before_ids])
    lost = _Blocks(gone)
    still_there = Counter(text for text, _ in came.texts)
    requests: list[RemovedRequest] = []
    for text, message in reversed(lost.texts):  # newest first; rebuilt ones match first
        if still_there[text] > 0:
            still_there[text] -= 1
        else:
            requests.append(RemovedRequest(text, _pointer_of(message)))
    return requests, _removed_interactions(lost, {use.get("id") for use, _ in came.uses})


def _removed_interactions(lost: _Blocks, kept: set[Any]) -> list[RemovedInteraction]:
    """The interactions whose tool_use is among `lost` and not `kept`, newest first, each
    with the pointer of its result's message (else its call's). One plain loop: a long
    removal makes thousands of these."""
    removed: list[RemovedInteraction] = []
    add, results, new = removed.append, lost.results, tuple.__new__
    for use, message in reversed(lost.uses):
        tool_id = use.get("id")
        if not isinstance(tool_id, str) or tool_id in kept:
            continue
        found = results.get(tool_id)
        result, pointer = (None, None) if found is None else (found[0], found[1].get(SOURCE_KEY))
        if not pointer or not isinstance(pointer, str):  # `_pointer_of`, written out
            pointer = message.get(SOURCE_KEY)
            if not pointer or not isinstance(pointer, str):
                pointer = None
        add(new(RemovedInteraction, (tool_id, use, result, pointer)))
    return removed


class _Blocks:
    """One pass over messages: user texts, tool_use and tool_result blocks, each with
    the message it stands in. Plain loops with few calls: L3 runs this over every
    message it drops."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.texts: list[tuple[str, dict[str, Any]]] = []
        self.uses: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self.results: dict[Any, tuple[dict[str, Any], dict[str, Any]]] = {}
        add_use, results = self.uses.append, self.results
        for message in messages:
            content = message.get("content")
            if not isinstance(content, list):
                if isinstance(content, str) and message.get("role") == "user":
                    self._feed_text(message, content)
                continue
            for block in content:
                kind = block.get("type") if isinstance(block, dict) else None
                if kind == "tool_use":
                    add_use((block, message))
                elif kind == "tool_result":
                    results[block.get("tool_use_id")] = (block, message)
                elif (
                    kind == "text"
                    and message.get("role") == "user"
                    and isinstance(block.get("text"), str)
                ):
                    self._feed_text(message, block["text"])

    def _feed_text(self, message: dict[str, Any], text: str) -> None:
        if text.strip() and not (is_summary_message(message) or is_digest_message(message)):
            self.texts.append((text, message))


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
    key = _pick_key_input(tool_input)
    if key is None:
        return ""
    value = " ".join(str(tool_input[key]).split())
    if len(value) > MAX_KEY_INPUT_CHARS:
        value = value[: MAX_KEY_INPUT_CHARS - 1] + "…"
    return f"{key}={value}"


def _pick_key_input(tool_input: dict[Any, Any]) -> Any:
    """The first of `KEY_INPUTS` holding a string, else the first input that does. Plain
    loops: the digest writes a line for each of a long removal's newest calls."""
    for key in KEY_INPUTS:
        if isinstance(tool_input.get(key), str):
            return key
    for key, value in tool_input.items():
        if isinstance(value, str):
            return key
    return None


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
