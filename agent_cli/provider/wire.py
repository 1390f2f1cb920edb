"""Build the one dict that is sent to the Messages API, or refuse to.

Contract: `build_wire_request(request, model)` returns a fresh JSON-ready dict
`{"model", "max_tokens", "system", "messages", "tools"}` and never mutates the request.
It strips every key the API does not accept for a block (private `_` keys included),
drops empty text (an error tool_result left without content gets a short text instead,
since the API refuses it empty), merges consecutive messages of one role, and checks
what the API checks: the view starts with a user message, every assistant `tool_use` is
answered by a `tool_result` in the very next user message with the results first, no
result answers a call that was not just made, and every tool id is in the API's grammar
(`protocol.is_valid_tool_use_id`). A view may end with an assistant message:
that is how an answer the API paused (`pause_turn`) is sent back to be continued; its
final text is right-trimmed, since the API refuses trailing whitespace there. Anything
else raises `WireFormatError` with a reason code and the index of the offending message
in `request.messages`: a request the API would reject is never sent, and pairing is
never silently repaired here (that belongs to `agent_cli.protocol`).

Cache breakpoints: the last tool, the system prompt and the last block of the
conversation tail carry `{"type": "ephemeral"}`, so the prefix up to the tail is reused on
the next request until compaction rewrites it. The fourth goes on the running digest,
sent as one text block per part: the next compaction adds a part and reads the earlier
ones from the cache instead of writing them again. A
one-off request says so (`ModelRequest.cache`): a summary request that reuses the cached
prefix ends its breakpoint before its own last message, and a bounded summary request
carries none, so neither writes at 1.25x what no later request will read.

The durable context (`request.durable_context`) rides after that breakpoint, as the last
text block of the newest user turn: it is re-rendered for every request and never stored,
so a changed fact or todo changes only what follows the cached prefix. In the system
prompt it would sit before every message in cache order, and each `/remember` or `/done`
would make the next request write the whole history again at 1.25x instead of reading it
at 0.1x.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from agent_cli.errors import WireFormatError
from agent_cli.events import CACHE_MODES, CACHE_NOTHING, ModelRequest
from agent_cli.protocol import is_valid_tool_use_id
from agent_cli.provider.cache_placement import (
    attach_durable_context,
    build_system_blocks,
    drop_cache_breakpoints,
    mark_cache_breakpoint,
    mark_conversation_breakpoint,
    mark_digest_breakpoint,
    split_digest_blocks,
)
from agent_cli.provider.wire_shape import (
    WireTurn,
    check_conversation_shape,
    check_tool_pairing,
    merge_turns,
    trim_final_assistant_text,
)

# The keys we send per block type; everything else (private `_` keys, stale
# cache_control, bookkeeping) is dropped. Kept small on purpose.
ALLOWED_BLOCK_KEYS: dict[str, frozenset[str]] = {
    "text": frozenset({"type", "text"}),
    "image": frozenset({"type", "source"}),
    "tool_use": frozenset({"type", "id", "name", "input"}),
    "tool_result": frozenset({"type", "tool_use_id", "content", "is_error"}),
}
ALLOWED_TOOL_KEYS = frozenset({"name", "description", "input_schema"})
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


def build_wire_request(request: ModelRequest, model: str) -> dict[str, Any]:
    """Return the wire dict for `request` on `model`, or raise `WireFormatError`."""
    if not isinstance(request.max_tokens, int) or request.max_tokens <= 0:
        raise WireFormatError("bad_max_tokens")
    if request.cache not in CACHE_MODES:
        raise WireFormatError("bad_cache_mode")
    try:
        turns = merge_turns(_clean_turns(request.messages))
    except RecursionError:  # nesting too deep to copy; the API would refuse it as well
        raise WireFormatError("too_deeply_nested") from None
    check_conversation_shape(turns)
    trim_final_assistant_text(turns)
    check_tool_pairing(turns)
    mark_conversation_breakpoint(turns, request.cache, len(request.messages) - 1)
    mark_digest_breakpoint(turns, request.messages, request.cache)
    attach_durable_context(turns, request.durable_context)
    messages = [{"role": turn.role, "content": turn.blocks} for turn in turns]
    wire: dict[str, Any] = {"model": model, "max_tokens": request.max_tokens}
    system = build_system_blocks(request.system, request.project_instructions)
    if system:
        wire["system"] = system
    wire["messages"] = messages
    tools = build_tool_list(request.tools)
    if tools:
        wire["tools"] = tools
    if request.cache == CACHE_NOTHING:
        drop_cache_breakpoints(wire)
    return wire


def build_tool_list(tools: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool schemas reduced to name/description/input_schema; the last one is cached."""
    cleaned: list[dict[str, Any]] = []
    seen: set[str] = set()
    for tool in tools:
        if not isinstance(tool, dict):
            raise WireFormatError("malformed_tool")
        name, schema = tool.get("name"), tool.get("input_schema")
        if not isinstance(name, str) or not name or not isinstance(schema, dict):
            raise WireFormatError("malformed_tool")
        if name in seen:
            raise WireFormatError("duplicate_tool_name")
        seen.add(name)
        cleaned.append(
            {key: copy.deepcopy(value) for key, value in tool.items() if key in ALLOWED_TOOL_KEYS}
        )
    mark_cache_breakpoint(cleaned)
    return cleaned


# --- cleaning -----------------------------------------------------------------------------


def _clean_turns(messages: Iterable[dict[str, Any]]) -> list[WireTurn]:
    """One `WireTurn` per message with its blocks cleaned; messages left empty are dropped."""
    turns: list[WireTurn] = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise WireFormatError("malformed_message", message_index=index)
        role = message.get("role")
        if not isinstance(role, str) or role not in ROLE_BLOCK_TYPES:
            raise WireFormatError("unknown_role", message_index=index)
        blocks = [_clean_block(block, role, index) for block in _as_blocks(message, index)]
        kept = [block for block in blocks if block is not None]
        if kept:
            turns.append(WireTurn(role, kept, [index] * len(kept)))
    return turns


def _as_blocks(message: dict[str, Any], index: int) -> list[Any]:
    content = message.get("content")
    if isinstance(content, str):
        return split_digest_blocks(message) or [{"type": "text", "text": content}]
    if isinstance(content, list):
        return content
    raise WireFormatError("malformed_content", message_index=index)


def _clean_block(block: Any, role: str, index: int) -> dict[str, Any] | None:
    """The block with only its allowed keys, or None for empty text; raises on bad shapes."""
    if not isinstance(block, dict) or not _is_one_of(block.get("type"), ROLE_BLOCK_TYPES[role]):
        raise WireFormatError("unsupported_block", message_index=index)
    kind = block["type"]
    if kind == "text":
        return _clean_text(block, index)
    if kind == "tool_result":
        return _clean_tool_result(block, index)
    cleaned = _keep_allowed_keys(block)
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


def _clean_tool_result(block: dict[str, Any], index: int) -> dict[str, Any]:
    cleaned = _keep_allowed_keys(block)
    if not is_valid_tool_use_id(cleaned.get("tool_use_id")):
        raise WireFormatError("malformed_tool_result", message_index=index)
    if "is_error" in cleaned and not isinstance(cleaned["is_error"], bool):
        raise WireFormatError("malformed_tool_result", message_index=index)
    content = cleaned.pop("content", None)
    if isinstance(content, list):
        content = [_clean_result_part(part, index) for part in content]
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


def _clean_result_part(part: Any, index: int) -> dict[str, Any] | None:
    if not isinstance(part, dict) or not _is_one_of(part.get("type"), TOOL_RESULT_CONTENT_TYPES):
        raise WireFormatError("unsupported_tool_result_content", message_index=index)
    if part["type"] == "text":
        return _clean_text(part, index)
    cleaned = _keep_allowed_keys(part)
    if not isinstance(cleaned.get("source"), dict):
        raise WireFormatError("malformed_image", message_index=index)
    return cleaned


def _keep_allowed_keys(block: dict[str, Any]) -> dict[str, Any]:
    allowed = ALLOWED_BLOCK_KEYS[block["type"]]
    return {key: copy.deepcopy(value) for key, value in block.items() if key in allowed}


def _is_one_of(kind: Any, kinds: frozenset[str]) -> bool:
    """Membership that cannot raise: a hostile `type` may be a list or a dict (unhashable)."""
    return isinstance(kind, str) and kind in kinds


def _is_nonempty_str(value: Any) -> bool:
    return isinstance(value, str) and bool(value)
