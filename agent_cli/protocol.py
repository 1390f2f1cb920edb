"""tool_use / tool_result pairing: the one place that validates it and removes pairs.

Contract (what the Messages API needs, checked over the whole history):
- every tool_use stands in an assistant message and has a unique `id` in the API's
  grammar (`^[a-zA-Z0-9_-]+$`, at most `MAX_TOOL_USE_ID_CHARS` characters);
- every tool_result stands in a user message and answers, through `tool_use_id`, exactly
  one tool_use of an EARLIER message. The API is stricter (the result must be in the very
  next message, first in its content); that placement rule belongs to the request builder,
  which sees the final view. Compaction only removes whole interactions, drops messages
  only when they are left empty and keeps the recent tail contiguous, so a view whose
  results sit in the next message keeps them there.
- several tool_use blocks in one message and several results in one message (parallel
  calls) are normal.

Violations raise `ToolProtocolError` with a reason code, the id and the message index; no
message text is ever kept. Removal is atomic: both halves of an interaction go together,
other blocks of the same messages stay, and a message left with no content is dropped.
Nothing here mutates its input; unchanged messages are shared, changed ones are new dicts.

The module reads top to bottom: the reason codes and the id grammar; validation
(`ProtocolScan` for messages fed in order, `validate_tool_protocol` for a whole history);
atomic removal (`remove_tool_interactions`, and `strip_interactions` / `apply_changes` for
a caller that plans changes before making them); queries over tool blocks; and the repairs
a resumed history may need (a dangling call answered, malformed ids renamed).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Container, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from agent_cli.errors import ToolProtocolError

# Reason codes carried by ToolProtocolError.
MALFORMED_MESSAGE = "malformed_message"
EMPTY_ID = "empty_id"
MALFORMED_ID = "malformed_id"
DUPLICATE_ID = "duplicate_id"
DUPLICATE_RESULT = "duplicate_result"
USE_OUTSIDE_ASSISTANT = "tool_use_outside_assistant"
RESULT_OUTSIDE_USER = "tool_result_outside_user"
RESULT_BEFORE_USE = "result_before_use"
UNKNOWN_ID = "unknown_id"
MISSING_RESULT = "missing_result"
EMPTY_NAME = "empty_name"  # a tool_use whose `name` is not a non-empty string
# a tool_use whose `input` strict JSON cannot carry (NaN, Infinity, a lone surrogate)
UNSENDABLE_INPUT = "unsendable_input"
# an answer holding other text UTF-8 cannot carry (a lone surrogate in its text, a tool's
# name, a thinking block): it could be neither recorded nor sent back
UNSENDABLE_TEXT = "unsendable_text"


# The API's grammar for tool_use ids. It states no length; its own ids are about 30
# characters, and 256 leaves room for any compatible endpoint's while keeping a hostile
# 100,000-character id out of the history (and out of every later request).
MAX_TOOL_USE_ID_CHARS = 256
_TOOL_USE_ID = re.compile(r"[A-Za-z0-9_-]+")


def is_valid_tool_use_id(value: object) -> bool:
    """True for an id the Messages API accepts: `^[a-zA-Z0-9_-]+$`, at most 256 chars."""
    return (
        isinstance(value, str)
        and 0 < len(value) <= MAX_TOOL_USE_ID_CHARS
        and _TOOL_USE_ID.fullmatch(value) is not None
    )


def _check_id(tool_id: object, index: int) -> str:
    """`tool_id` if the API would take it; EMPTY_ID or MALFORMED_ID (without the id,
    which may be huge) otherwise."""
    if not isinstance(tool_id, str) or not tool_id:
        raise ToolProtocolError(EMPTY_ID, message_index=index)
    if not is_valid_tool_use_id(tool_id):
        raise ToolProtocolError(MALFORMED_ID, message_index=index)
    return tool_id


class Interaction(NamedTuple):
    """Where one tool call lives: the index of its tool_use and of its tool_result message."""

    tool_use_message: int
    tool_result_message: int


class ProtocolScan:
    """An incremental validator: feed messages in order, then `finish()`.

    It lets a caller that validated a prefix check only what was appended since:
    `ProtocolScan(known=ids)` continues after a prefix that ended with every call
    answered, `ids` being the tool_use ids of that prefix (only tested with `in`).
    `interactions` holds the calls answered in what was fed, in answer order.
    """

    def __init__(self, known: Container[str] | None = None) -> None:
        self._known: Container[str] = known if known is not None else frozenset()
        self.interactions: dict[str, Interaction] = {}
        self._open_uses: dict[str, int] = {}  # id -> index of its tool_use message
        self._early_results: dict[str, int] = {}  # id -> index of a result with no use yet

    def _is_seen(self, tool_id: str) -> bool:
        return tool_id in self._known or tool_id in self.interactions

    def feed(self, messages: Sequence[Any], start_index: int = 0) -> None:
        """Check `messages`, the first of which sits at `start_index` of the history."""
        for index, message in enumerate(messages, start_index):
            role = message.get("role") if isinstance(message, dict) else None
            if role != "user" and role != "assistant":
                raise ToolProtocolError(MALFORMED_MESSAGE, message_index=index)
            content = message.get("content")
            if not isinstance(content, list):
                continue
            for block in content:
                kind = block.get("type") if isinstance(block, dict) else None
                if kind == "tool_use":
                    self._feed_use(block, role, index)
                elif kind == "tool_result":
                    self._feed_result(block, role, index)

    def _feed_use(self, block: dict[str, Any], role: str, index: int) -> None:
        tool_id = _check_id(block.get("id"), index)
        if role != "assistant":
            raise ToolProtocolError(USE_OUTSIDE_ASSISTANT, tool_use_id=tool_id, message_index=index)
        if tool_id in self._early_results:
            raise ToolProtocolError(
                RESULT_BEFORE_USE, tool_use_id=tool_id, message_index=self._early_results[tool_id]
            )
        if self._is_seen(tool_id) or tool_id in self._open_uses:
            raise ToolProtocolError(DUPLICATE_ID, tool_use_id=tool_id, message_index=index)
        self._open_uses[tool_id] = index

    def _feed_result(self, block: dict[str, Any], role: str, index: int) -> None:
        tool_id = _check_id(block.get("tool_use_id"), index)
        if role != "user":
            raise ToolProtocolError(RESULT_OUTSIDE_USER, tool_use_id=tool_id, message_index=index)
        if self._is_seen(tool_id) or tool_id in self._early_results:
            raise ToolProtocolError(DUPLICATE_RESULT, tool_use_id=tool_id, message_index=index)
        use_index = self._open_uses.pop(tool_id, None)
        if use_index is None:
            self._early_results[tool_id] = index  # unknown, unless its use comes later
        else:
            self.interactions[tool_id] = Interaction(use_index, index)

    def finish(self) -> dict[str, Interaction]:
        """Raise for calls left unanswered or results never matched; return the map."""
        if self._open_uses:
            tool_id, index = next(iter(self._open_uses.items()))
            raise ToolProtocolError(MISSING_RESULT, tool_use_id=tool_id, message_index=index)
        if self._early_results:
            tool_id, index = next(iter(self._early_results.items()))
            raise ToolProtocolError(UNKNOWN_ID, tool_use_id=tool_id, message_index=index)
        return self.interactions


def validate_tool_protocol(messages: Sequence[Any]) -> dict[str, Interaction]:
    """Check the pairing of the whole history; return tool_use id -> Interaction.

    Raises ToolProtocolError (a ValueError) for missing, unknown, duplicate, empty,
    malformed (`is_valid_tool_use_id`) or out-of-order ids and for tool blocks under the
    wrong role.
    """
    scan = ProtocolScan()
    scan.feed(messages)
    return scan.finish()


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
    messages are visited.
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


def iter_tool_blocks(message: Any) -> Iterable[dict[str, Any]]:
    """The tool_use and tool_result blocks of a message, in order."""
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return ()
    return [
        block
        for block in content
        if isinstance(block, dict) and block.get("type") in ("tool_use", "tool_result")
    ]


def collect_tool_ids(messages: Sequence[dict[str, Any]], kind: str) -> list[str]:
    """Ids of the `kind` ("tool_use" or "tool_result") blocks of `messages`, in order."""
    key = "id" if kind == "tool_use" else "tool_use_id"
    ids: list[str] = []
    append = ids.append  # one plain loop: L3 runs this over every message it drops
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == kind and key in block:
                append(block[key])
    return ids


def find_reused_tool_use_id(
    response: dict[str, Any], history: Sequence[dict[str, Any]]
) -> str | None:
    """The first tool_use id of `response` that repeats one of its own or one already in
    `history`, or None. Such a response must not be recorded: the API refuses a history
    with a repeated id, so recording it would make the session unsendable for good."""
    seen = set(collect_tool_ids(history, "tool_use"))
    for tool_use_id in collect_tool_ids([response], "tool_use"):
        if tool_use_id in seen:
            return tool_use_id
        seen.add(tool_use_id)
    return None


def find_answer_id_problem(
    response: dict[str, Any], history: Sequence[dict[str, Any]]
) -> str | None:
    """Why the tool calls of a model's answer cannot join `history`, or None if they can.

    The reason is a `ToolProtocolError` code: EMPTY_ID or MALFORMED_ID (an id outside the
    API's grammar or over `MAX_TOOL_USE_ID_CHARS`), DUPLICATE_ID (an id repeated within
    the answer or already in `history`), EMPTY_NAME, UNSENDABLE_INPUT (an input that
    strict JSON in UTF-8 cannot carry: NaN, Infinity, a lone surrogate), or
    UNSENDABLE_TEXT (any other string of the answer, its text or a tool's name included,
    that UTF-8 cannot carry: a lone surrogate). Such an answer must be neither run nor
    recorded: once in the history, every later request would be refused (or it could
    not be recorded at all).
    """
    uses = [block for block in iter_tool_blocks(response) if block.get("type") == "tool_use"]
    for block in uses:
        tool_id = block.get("id")
        if not isinstance(tool_id, str) or not tool_id:
            return EMPTY_ID
        if not is_valid_tool_use_id(tool_id):
            return MALFORMED_ID
        name = block.get("name")
        if not isinstance(name, str) or not name:
            return EMPTY_NAME
        if not is_strict_json(block.get("input")):
            return UNSENDABLE_INPUT
    if find_reused_tool_use_id(response, history) is not None:
        return DUPLICATE_ID
    if not is_strict_json(response.get("content")):
        return UNSENDABLE_TEXT
    return None


def is_strict_json(value: Any) -> bool:
    """Whether `value` is JSON without NaN or Infinity, whose text encodes as UTF-8: what
    the SDK's encoder (strict, `allow_nan=False`) takes without raising."""
    try:
        json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError, RecursionError):  # UnicodeEncodeError is a ValueError
        return False
    return True


def answer_dangling_tool_uses(
    messages: Sequence[dict[str, Any]], text: str, texts: Mapping[str, str] | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Repair a history that ends inside a tool call (a crash while the tool ran).

    When the last message is an assistant message whose tool_use blocks have no results,
    returns the history plus a new user message answering each of them with an error
    result carrying `text` (or `texts[id]` for a call it names: one known not to have
    started), and that message (so the caller can record it). Any other history comes
    back unchanged with None. Never mutates its input.
    """
    history = list(messages)
    if not history or history[-1].get("role") != "assistant":
        return history, None
    uses = [block for block in iter_tool_blocks(history[-1]) if block.get("type") == "tool_use"]
    if not uses:
        return history, None
    answers = {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": block.get("id"),
                "content": (texts or {}).get(str(block.get("id")), text),
                "is_error": True,
            }
            for block in uses
        ],
    }
    return [*history, answers], answers


RENAMED_ID_PREFIX = "toolu_renamed_"
_ID_KEYS = {"tool_use": "id", "tool_result": "tool_use_id"}


def rename_malformed_tool_ids(
    messages: Sequence[dict[str, Any]],
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The history with every string tool id the API would refuse (empty, outside its
    grammar, too long) renamed on both the tool_use and its tool_results; and the map of
    old id -> new id.

    For a history recorded before answers were checked (`find_answer_id_problem`): the
    calls and results stay, under ids the API takes. The new id is derived from the old
    one alone (`renamed_tool_use_id`), so every rebuild of the same transcript renames
    alike and a result recorded under a new id still pairs with its call. Ids that are
    not strings are left for validation to refuse. Never mutates; unchanged messages
    are shared.
    """
    renames: dict[str, str] = {}
    renamed: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list) or not any(_has_malformed_id(b) for b in content):
            renamed.append(message)
            continue
        blocks = [_with_renamed_id(block, renames) for block in content]
        renamed.append({**message, "content": blocks})
    return renamed, renames


def renamed_tool_use_id(old_id: str) -> str:
    """A valid id standing for `old_id`: a fixed prefix and 24 hex digits of its sha256."""
    digest = hashlib.sha256(old_id.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{RENAMED_ID_PREFIX}{digest[:24]}"


def _has_malformed_id(block: Any) -> bool:
    kind = block.get("type") if isinstance(block, dict) else None
    key = _ID_KEYS.get(kind) if isinstance(kind, str) else None
    if key is None:
        return False
    value = block.get(key)
    return isinstance(value, str) and not is_valid_tool_use_id(value)


def _with_renamed_id(block: Any, renames: dict[str, str]) -> Any:
    if not _has_malformed_id(block):
        return block
    key = _ID_KEYS[block["type"]]
    old_id = block[key]
    new_id = renames.setdefault(old_id, renamed_tool_use_id(old_id))
    return {**block, key: new_id}
