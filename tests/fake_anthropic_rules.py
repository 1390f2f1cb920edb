"""The request checks of the fake Messages API, as strict as the real one (or stricter).

`validate_request(body)` raises `RequestRejected(status, error_type, message)` for
anything the real API rejects: unknown top-level fields, unknown block fields,
unanswered or misplaced tool_use/tool_result, empty content or blank text, an error
tool_result without content, bad cache_control, more than four breakpoints (counted
wherever they sit: tools, system, message blocks, blocks nested in a tool_result, and
the top-level `cache_control`), a 1-hour breakpoint after a 5-minute one, malformed
tools (a tool's input schema with anyOf/oneOf/allOf at its top level, a top-level
property name outside `^[a-zA-Z0-9_.-]{1,64}$` (nested ones pass, as with the real API),
or one that is no valid JSON Schema draft 2020-12, as the real API refuses them), and images the API refuses
in one request (`fake_anthropic_images`: over 8,000 px, over 100, over 20 with one over
2,000 px); the parameters and
headers are checked in `fake_anthropic_params`. Where the real API is lenient we are
strict on purpose and say so: roles must alternate (the API merges consecutive same-role
messages; our request builder must do it itself), and top-level fields the fake does not
model (container, output_config, speed, ...) are refused.
"""

from __future__ import annotations

import re
from typing import Any

from fake_anthropic_images import check_images
from fake_anthropic_params import (
    LATEST_API_VERSION,
    RequestRejected,
    check_cache_control_value,
    check_parameters,
    check_request_cache_control,
    reject,
    validate_headers,
)

TOP_LEVEL_FIELDS = frozenset(
    {
        "model",
        "max_tokens",
        "messages",
        "system",
        "tools",
        "tool_choice",
        "stream",
        "temperature",
        "top_p",
        "top_k",
        "stop_sequences",
        "metadata",
        "thinking",
        "service_tier",
        "cache_control",
    }
)
BLOCK_FIELDS = {
    "text": frozenset({"type", "text", "cache_control", "citations"}),
    "image": frozenset({"type", "source", "cache_control"}),
    "document": frozenset({"type", "source", "title", "context", "citations", "cache_control"}),
    "tool_use": frozenset({"type", "id", "name", "input", "cache_control"}),
    "tool_result": frozenset({"type", "tool_use_id", "content", "is_error", "cache_control"}),
    "thinking": frozenset({"type", "thinking", "signature"}),
    "redacted_thinking": frozenset({"type", "data"}),
}
ROLE_BLOCKS = {
    "user": frozenset({"text", "image", "document", "tool_result"}),
    "assistant": frozenset({"text", "tool_use", "thinking", "redacted_thinking"}),
}
TOOL_FIELDS = frozenset({"name", "description", "input_schema", "cache_control", "type"})
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
TOOL_USE_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
MAX_BREAKPOINTS = 4


__all__ = ["RequestRejected", "validate_headers", "validate_request"]
_reject = reject


def validate_request(body: Any, api_version: str = LATEST_API_VERSION) -> None:
    """Raise `RequestRejected` unless `body` is a request the real API would accept under
    `api_version` (the header's value; SDK 2.x sends the latest)."""
    if not isinstance(body, dict):
        raise _reject("request body must be a JSON object")
    for key in body:
        if key not in TOP_LEVEL_FIELDS:
            raise _reject(f"{key}: Extra inputs are not permitted")
    check_parameters(body, api_version)
    # Breakpoints in prefix order (tools, system, messages), each as its TTL.
    breakpoints = _check_tools(body.get("tools"))
    breakpoints += _check_system(body.get("system"))
    breakpoints += _check_messages(body["messages"])
    check_images(body["messages"])
    breakpoints += check_request_cache_control(body.get("cache_control"))
    if len(breakpoints) > MAX_BREAKPOINTS:
        raise _reject(
            f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be "
            f"provided. Found {len(breakpoints)}."
        )
    if "5m" in breakpoints and "1h" in breakpoints[breakpoints.index("5m") :]:
        raise _reject(
            "cache_control: a breakpoint with ttl '1h' must come before any with ttl '5m' "
            "(order: tools, system, messages)"
        )


def _check_cache_control(block: dict[str, Any], where: str) -> list[str]:
    """The block's breakpoint as a one-item list of its TTL, or [] when it has none."""
    if "cache_control" not in block:
        return []
    return [check_cache_control_value(block["cache_control"], where)]


def _check_text(block: dict[str, Any], where: str) -> None:
    text = block.get("text")
    if not isinstance(text, str):
        raise _reject(f"{where}.text: Field required")
    if not text:
        raise _reject(f"{where}: text content blocks must be non-empty")
    if not text.strip():
        raise _reject(f"{where}: text content blocks must contain non-whitespace text")


def _check_block_fields(block: Any, allowed_types: frozenset[str], where: str) -> str:
    if not isinstance(block, dict) or block.get("type") not in allowed_types:
        kind = block.get("type") if isinstance(block, dict) else type(block).__name__
        raise _reject(f"{where}: Input tag '{kind}' is not allowed here")
    for key in block:
        if key not in BLOCK_FIELDS[block["type"]]:
            raise _reject(f"{where}.{block['type']}.{key}: Extra inputs are not permitted")
    return block["type"]


def _check_system(system: Any) -> list[str]:
    if system is None or isinstance(system, str):
        return []
    if not isinstance(system, list):
        raise _reject("system: Input should be a valid string or list")
    breakpoints: list[str] = []
    for index, block in enumerate(system):
        where = f"system.{index}"
        _check_block_fields(block, frozenset({"text"}), where)
        _check_text(block, where)
        breakpoints += _check_cache_control(block, where)
    return breakpoints


def _check_tools(tools: Any) -> list[str]:
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise _reject("tools: Input should be a valid list")
    names: set[str] = set()
    breakpoints: list[str] = []
    for index, tool in enumerate(tools):
        where = f"tools.{index}"
        if not isinstance(tool, dict):
            raise _reject(f"{where}: Input should be an object")
        for key in tool:
            if key not in TOOL_FIELDS:
                raise _reject(f"{where}.{key}: Extra inputs are not permitted")
        name = tool.get("name")
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            raise _reject(f"{where}.name: String should match pattern '{TOOL_NAME.pattern}'")
        if name in names:
            raise _reject(f"tools: Tool names must be unique ({name})")
        names.add(name)
        if "description" in tool and not isinstance(tool["description"], str):
            raise _reject(f"{where}.description: Input should be a valid string")
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            raise _reject(f"{where}.input_schema: an object schema with type 'object' is required")
        _check_input_schema(schema, f"{where}.custom.input_schema")
        if tool.get("type", "custom") != "custom":
            raise _reject(f"{where}.type: Input tag '{tool['type']}' is not allowed here")
        breakpoints += _check_cache_control(tool, where)
    return breakpoints


PROPERTY_KEY = re.compile(r"[a-zA-Z0-9_.-]{1,64}")  # the API's `^...$`, read whole


def _check_input_schema(schema: dict[str, Any], where: str) -> None:
    """The real API's refusals of a tool's schema, in its words: a combinator at the
    top level, a top-level property name outside its grammar, and a schema that is no
    valid JSON Schema draft 2020-12 (checked against the meta-schema; one too deep to
    check is refused too, stricter than the API may be)."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    if any(key in schema for key in ("oneOf", "allOf", "anyOf")):
        raise _reject(
            f"{where}: input_schema does not support oneOf, allOf, or anyOf at the top level"
        )
    properties = schema.get("properties")
    if isinstance(properties, dict) and any(not PROPERTY_KEY.fullmatch(key) for key in properties):
        raise _reject(
            f"{where}.properties: Property keys should match pattern '^{PROPERTY_KEY.pattern}$'"
        )
    try:
        Draft202012Validator.check_schema(schema, format_checker=None)
    except (SchemaError, RecursionError):
        raise _reject(
            f"{where}: JSON schema is invalid. It must match JSON Schema draft 2020-12 "
            "(https://json-schema.org/draft/2020-12). Learn more about tool use at "
            "https://docs.claude.com/en/docs/tool-use."
        ) from None


def _check_messages(messages: list[Any]) -> list[str]:
    breakpoints: list[str] = []
    pending_ids: list[str] = []
    seen_ids: set[str] = set()
    for index, message in enumerate(messages):
        role = _check_message_frame(messages, index)
        blocks = _message_blocks(message, index, is_last=index == len(messages) - 1)
        if role == "user":
            _check_results_answer(blocks, pending_ids, index)
            pending_ids = []
        elif pending_ids:
            raise _unanswered(pending_ids, index)
        for position, block in enumerate(blocks):
            where = f"messages.{index}.content.{position}"
            kind = _check_block_fields(block, ROLE_BLOCKS[role], where)
            breakpoints += _check_block_body(block, kind, where, seen_ids)
            breakpoints += _check_cache_control(block, where)
        if role == "assistant":
            pending_ids = [b["id"] for b in blocks if b["type"] == "tool_use"]
    if pending_ids:
        raise _unanswered(pending_ids, len(messages))
    return breakpoints


def _unanswered(ids: list[str], index: int) -> RequestRejected:
    return _reject(
        f"messages.{index}: `tool_use` ids were found without `tool_result` blocks "
        f"immediately after: {', '.join(ids)}. Each `tool_use` block must have a "
        "corresponding `tool_result` block in the next message."
    )


def _check_message_frame(messages: list[Any], index: int) -> str:
    message = messages[index]
    if not isinstance(message, dict):
        raise _reject(f"messages.{index}: Input should be an object")
    for key in message:
        if key not in {"role", "content"}:
            raise _reject(f"messages.{index}.{key}: Extra inputs are not permitted")
    role = message.get("role")
    if role not in ROLE_BLOCKS:
        raise _reject(f"messages.{index}.role: Input should be 'user' or 'assistant'")
    if index == 0 and role != "user":
        raise _reject('messages: first message must use the "user" role')
    if index > 0 and messages[index - 1].get("role") == role:
        raise _reject(
            f'messages.{index}: roles must alternate between "user" and "assistant" '
            "(stricter than the real API, which merges them)"
        )
    return role


def _message_blocks(message: dict[str, Any], index: int, *, is_last: bool) -> list[Any]:
    content = message.get("content")
    if isinstance(content, str):
        if not content.strip():
            raise _reject(
                f"messages.{index}: all messages must have non-empty content except "
                "for the optional final assistant message"
            )
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list) or not content:
        raise _reject(
            f"messages.{index}: all messages must have non-empty content except for "
            "the optional final assistant message"
        )
    last = content[-1]
    if (
        is_last
        and message["role"] == "assistant"
        and isinstance(last, dict)
        and isinstance(last.get("text"), str)
        and last["text"] != last["text"].rstrip()
    ):
        raise _reject("final assistant content cannot end with trailing whitespace")
    return content


def _check_results_answer(blocks: list[Any], pending_ids: list[str], index: int) -> None:
    answered: list[str] = []
    leading = True
    for position, block in enumerate(blocks):
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            leading = False
            continue
        tool_use_id = block.get("tool_use_id")
        if tool_use_id not in pending_ids or tool_use_id in answered:
            raise _reject(
                f"messages.{index}.content.{position}: unexpected `tool_use_id` found "
                f"in `tool_result` blocks: {tool_use_id}. Each `tool_result` block "
                "must have a corresponding `tool_use` block in the previous message."
            )
        if not leading:
            raise _reject(
                f"messages.{index}.content.{position}: `tool_result` blocks must come "
                "before any other content in the message"
            )
        answered.append(tool_use_id)
    missing = [tool_use_id for tool_use_id in pending_ids if tool_use_id not in answered]
    if missing:
        raise _unanswered(missing, index)


def _check_block_body(
    block: dict[str, Any], kind: str, where: str, seen_ids: set[str]
) -> list[str]:
    """Check the block's own fields; returns the breakpoints nested inside it."""
    if kind == "text":
        _check_text(block, where)
    elif kind in {"image", "document"}:
        source = block.get("source")
        if not isinstance(source, dict) or source.get("type") not in {"base64", "url", "text"}:
            raise _reject(f"{where}.source: Field required")
    elif kind == "tool_use":
        _check_tool_use(block, where, seen_ids)
    elif kind == "tool_result":
        return _check_tool_result(block, where)
    return []


def _check_tool_use(block: dict[str, Any], where: str, seen_ids: set[str]) -> None:
    tool_id = block.get("id")
    if not isinstance(tool_id, str) or not TOOL_USE_ID.match(tool_id):
        raise _reject(f"{where}.id: String should match pattern '{TOOL_USE_ID.pattern}'")
    if tool_id in seen_ids:
        raise _reject(f"{where}: `tool_use` ids must be unique ({tool_id})")
    seen_ids.add(tool_id)
    if not isinstance(block.get("name"), str) or not block["name"]:
        raise _reject(f"{where}.name: Field required")
    if not isinstance(block.get("input"), dict):
        raise _reject(f"{where}.input: Input should be a valid dictionary")


def _check_tool_result(block: dict[str, Any], where: str) -> list[str]:
    """Check a tool_result; returns the breakpoints of the blocks in its content."""
    if "is_error" in block and not isinstance(block["is_error"], bool):
        raise _reject(f"{where}.is_error: Input should be a valid boolean")
    content = block.get("content")
    if block.get("is_error") is True and not content:
        raise _reject(f"{where}: content cannot be empty if `is_error` is true")
    if content is None or isinstance(content, str):
        return []
    if not isinstance(content, list):
        raise _reject(f"{where}.content: Input should be a valid string or list")
    breakpoints: list[str] = []
    for position, part in enumerate(content):
        part_where = f"{where}.content.{position}"
        kind = _check_block_fields(part, frozenset({"text", "image", "document"}), part_where)
        _check_block_body(part, kind, part_where, set())
        breakpoints += _check_cache_control(part, part_where)
    return breakpoints
