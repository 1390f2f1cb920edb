"""One message's wire form: its blocks as the API accepts them, and its tool ids.

Contract: `build_wire_message(message, index)` returns a `WireMessage` (role, cleaned
blocks, the ids of its tool_use and tool_result blocks, whether its results come first,
its images with their sizes and pointers)
or raises `WireFormatError` naming `index`. Cleaning keeps only the keys the API accepts
per block type (private `_` keys and stale `cache_control` go), drops empty text, gives an
error result left without content a short text (the API refuses it empty), sends the
running digest as one text block per part (`split_digest_blocks`), and refuses
unknown roles, unknown block types, malformed blocks and tool ids outside the API's
grammar (`protocol.is_valid_tool_use_id`).

A frozen message (`agent_cli.frozen`) is cleaned once: its wire form, or the reason it is
refused, is derived from it and held by the message (`FrozenDict.derived`), so a request
costs the messages added since the last one, not the history. Its blocks are frozen and
shared by every request that sends it; whoever changes a block (a cache breakpoint, a
trimmed final text) replaces it with a copy. A plain dict is cleaned on every call into
fresh deep copies, so the wire shares nothing with it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agent_cli.compaction.digest.entries import digest_from_message
from agent_cli.compaction.digest.render import render_digest_parts
from agent_cli.compaction.markers import is_digest_message
from agent_cli.errors import WireFormatError
from agent_cli.frozen import FrozenDict, freeze
from agent_cli.protocol import is_valid_tool_use_id
from agent_cli.provider.wire_images import WireImage, find_images

# The keys we send per block type; everything else (private `_` keys, stale
# cache_control, bookkeeping) is dropped. Kept small on purpose.
ALLOWED_BLOCK_KEYS: dict[str, frozenset[str]] = {
    "text": frozenset({"type", "text"}),
    "image": frozenset({"type", "source"}),
    "tool_use": frozenset({"type", "id", "name", "input"}),
    "tool_result": frozenset({"type", "tool_use_id", "content", "is_error"}),
}
# Blocks allowed inside a tool_result's list content.
TOOL_RESULT_CONTENT_TYPES = frozenset({"text", "image"})
# What an error result with no content says on the wire: the API answers 400 ("content
# cannot be empty if `is_error` is true") to an error result without content, and a stored
# or resumed view may hold one (a tool that failed silently, an older transcript).
EMPTY_ERROR_RESULT_TEXT = "(the tool failed without saying why)"
ROLE_BLOCK_TYPES: dict[str, frozenset[str]] = {
    "user": frozenset({"text", "image", "tool_result"}),
    "assistant": frozenset({"text", "tool_use"}),
}
CopyValue = Callable[[Any], Any]
FinishBlock = Callable[[dict[str, Any], Any], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class WireMessage:
    """A message cleaned for the wire; empty `blocks` means it sends nothing.

    `results_lead` is true when no tool_result follows a block of another type; `images`
    are its images, where they sit and their sizes (`wire_images.find_images`)."""

    role: str
    blocks: tuple[dict[str, Any], ...]
    tool_use_ids: tuple[str, ...]
    tool_result_ids: tuple[str, ...]
    results_lead: bool
    images: tuple[WireImage, ...] = ()


def build_wire_message(message: Any, index: int) -> WireMessage:
    """The wire form of `message`, the `index`-th of its request (module doc)."""
    if type(message) is FrozenDict:
        outcome = message.derived(_clean_frozen_message)
        if isinstance(outcome, str):
            raise WireFormatError(outcome, message_index=index)
        return outcome
    return _clean_message(message, index, copy.deepcopy)


def _clean_frozen_message(message: FrozenDict) -> WireMessage | str:
    """The wire form of a frozen message with frozen blocks, or the reason it is refused.

    Its values are frozen, so the blocks share them instead of copying them."""
    try:
        return _clean_message(message, 0, _share, _frozen_block)
    except WireFormatError as refused:
        return refused.reason


def _frozen_block(cleaned: dict[str, Any], source: Any) -> dict[str, Any]:
    """The message's own frozen block where cleaning left it as it was, keys in the same
    order (most blocks: no private keys, nothing empty), so the wire form holds no second
    copy of it. The order matters: it is the order of the JSON sent, which the prompt
    cache reads byte for byte."""
    unchanged = cleaned == source and list(cleaned) == list(source)
    kept: dict[str, Any] = source if unchanged else freeze(cleaned)
    return kept


def _as_cleaned(cleaned: dict[str, Any], source: Any) -> dict[str, Any]:
    return cleaned


def _share(value: Any) -> Any:
    return value


def _clean_message(
    message: Any, index: int, copy_value: CopyValue, finish: FinishBlock = _as_cleaned
) -> WireMessage:
    if not isinstance(message, dict):
        raise WireFormatError("malformed_message", message_index=index)
    role = message.get("role")
    if not isinstance(role, str) or role not in ROLE_BLOCK_TYPES:
        raise WireFormatError("unknown_role", message_index=index)
    pairs = [
        (finish(cleaned, block), block)
        for block in _as_blocks(message, index)
        if (cleaned := _clean_block(block, role, index, copy_value)) is not None
    ]
    kept = tuple(block for block, _ in pairs)
    kinds = [block["type"] for block in kept]
    return WireMessage(
        role=role,
        blocks=kept,
        images=find_images(kept, [source for _, source in pairs]),
        tool_use_ids=tuple(block["id"] for block in kept if block["type"] == "tool_use"),
        tool_result_ids=tuple(
            block["tool_use_id"] for block in kept if block["type"] == "tool_result"
        ),
        results_lead="tool_result" not in kinds[_count_leading_results(kinds) :],
    )


def _count_leading_results(kinds: list[str]) -> int:
    count = 0
    while count < len(kinds) and kinds[count] == "tool_result":
        count += 1
    return count


def _as_blocks(message: dict[str, Any], index: int) -> list[Any]:
    content = message.get("content")
    if isinstance(content, str):
        return split_digest_blocks(message) or [{"type": "text", "text": content}]
    if isinstance(content, list):
        return content
    raise WireFormatError("malformed_content", message_index=index)


def split_digest_blocks(message: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The running digest as one text block per part (`compaction.digest`), or None for
    any other message, or a digest whose text is not its parts joined (then it goes as
    one block). A part reads the same until the digest is refitted, so with the
    breakpoint on the last part (`cache_placement.mark_digest_breakpoint`) the next compaction reads the
    earlier parts from the cache and writes only the part it adds."""
    if not is_digest_message(message):
        return None
    parts = render_digest_parts(digest_from_message(message))
    if "\n".join(parts) != message.get("content"):
        return None
    return [{"type": "text", "text": part} for part in parts]


def _clean_block(block: Any, role: str, index: int, copy_value: CopyValue) -> dict[str, Any] | None:
    """The block with only its allowed keys, or None for empty text; raises on bad shapes."""
    if not isinstance(block, dict) or not _is_one_of(block.get("type"), ROLE_BLOCK_TYPES[role]):
        raise WireFormatError("unsupported_block", message_index=index)
    kind = block["type"]
    if kind == "text":
        return _clean_text(block, index)
    if kind == "tool_result":
        return _clean_tool_result(block, index, copy_value)
    cleaned = _keep_allowed_keys(block, copy_value)
    if kind == "tool_use" and not (
        is_valid_tool_use_id(cleaned.get("id"))
        and _is_nonempty_str(cleaned.get("name"))
        and isinstance(cleaned.get("input"), dict)
    ):
        raise WireFormatError("malformed_tool_use", message_index=index)
    if kind == "image" and not isinstance(cleaned.get("source"), dict):
        raise WireFormatError("malformed_image", message_index=index)
    return cleaned


def _clean_text(block: dict[str, Any], index: int) -> dict[str, Any] | None:
    text = block.get("text")
    if not isinstance(text, str):
        raise WireFormatError("malformed_text", message_index=index)
    # The API rejects empty and whitespace-only text blocks.
    return {"type": "text", "text": text} if text.strip() else None


def _clean_tool_result(block: dict[str, Any], index: int, copy_value: CopyValue) -> dict[str, Any]:
    cleaned = _keep_allowed_keys(block, copy_value)
    if not is_valid_tool_use_id(cleaned.get("tool_use_id")):
        raise WireFormatError("malformed_tool_result", message_index=index)
    if "is_error" in cleaned and not isinstance(cleaned["is_error"], bool):
        raise WireFormatError("malformed_tool_result", message_index=index)
    content = cleaned.pop("content", None)
    if isinstance(content, list):
        content = [_clean_result_part(part, index, copy_value) for part in content]
        content = [part for part in content if part is not None]
    elif content is not None and not isinstance(content, str):
        raise WireFormatError("malformed_tool_result", message_index=index)
    # `content` is optional for the API; an empty one is left out rather than sent empty,
    # except on an error result, which the API refuses without content.
    if content and (not isinstance(content, str) or content.strip()):
        cleaned["content"] = content
    elif cleaned.get("is_error") is True:
        cleaned["content"] = EMPTY_ERROR_RESULT_TEXT
    return cleaned


def _clean_result_part(part: Any, index: int, copy_value: CopyValue) -> dict[str, Any] | None:
    if not isinstance(part, dict) or not _is_one_of(part.get("type"), TOOL_RESULT_CONTENT_TYPES):
        raise WireFormatError("unsupported_tool_result_content", message_index=index)
    if part["type"] == "text":
        return _clean_text(part, index)
    cleaned = _keep_allowed_keys(part, copy_value)
    if not isinstance(cleaned.get("source"), dict):
        raise WireFormatError("malformed_image", message_index=index)
    return cleaned


def _keep_allowed_keys(block: dict[str, Any], copy_value: CopyValue) -> dict[str, Any]:
    allowed = ALLOWED_BLOCK_KEYS[block["type"]]
    return {key: copy_value(value) for key, value in block.items() if key in allowed}


def _is_one_of(kind: Any, kinds: frozenset[str]) -> bool:
    """Membership that cannot raise: a hostile `type` may be a list or a dict (unhashable)."""
    return isinstance(kind, str) and kind in kinds


def _is_nonempty_str(value: Any) -> bool:
    return isinstance(value, str) and bool(value)
