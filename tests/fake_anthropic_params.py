"""The fake Messages API's checks of the request's parameters and headers.

`fake_anthropic_rules` checks the conversation (messages, blocks, tools, breakpoints);
this module checks everything else the code may send, with the types and ranges of the
Messages API reference (SDK 2.16's `MessageCreateParams` and the API's documented limits):
`anthropic-version`, `max_tokens`, `stream`, `tool_choice`, `temperature`, `top_p`,
`top_k`, `stop_sequences`, `metadata`, `service_tier`, `thinking`, and the top-level
`cache_control`. Where a rule depends on the model (sampling parameters, thinking budgets)
we take the strict side and say so.

Rules depend on the `anthropic-version` header. SDK 2.x sends `2026-10-21`, which removed
`temperature`, `top_p` and `top_k` (a 400 "Extra inputs are not permitted" even at their
default values) and refuses non-empty `citations` on text in user messages; under
`2023-06-01` the sampling parameters are accepted within their ranges.
"""

from __future__ import annotations

from typing import Any

# Versions the API has published; any other value of the header is refused.
LATEST_API_VERSION = "2026-10-21"
KNOWN_API_VERSIONS = frozenset({LATEST_API_VERSION, "2023-06-01", "2023-01-01"})
SAMPLING_PARAMETERS = ("temperature", "top_p", "top_k")
TOOL_CHOICE_FIELDS = {
    "auto": frozenset({"type", "disable_parallel_tool_use"}),
    "any": frozenset({"type", "disable_parallel_tool_use"}),
    "tool": frozenset({"type", "name", "disable_parallel_tool_use"}),
    "none": frozenset({"type"}),
}
SERVICE_TIERS = frozenset({"auto", "standard_only"})
MIN_THINKING_BUDGET = 1_024
MAX_MESSAGES = 100_000


class RequestRejected(Exception):
    """What the fake answers instead of a reply: an HTTP status and an API error body."""

    def __init__(self, status: int, error_type: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error_type = error_type
        self.message = message


def reject(message: str) -> RequestRejected:
    return RequestRejected(400, "invalid_request_error", message)


def validate_headers(headers: dict[str, str], api_key: str | None) -> None:
    """Authentication and version headers, checked before the body like the real API.

    The key may come as `x-api-key` or as `Authorization: Bearer` (SDK 2.16 sends the
    latter).
    """
    bearer = headers.get("authorization", "")
    sent_key = headers.get("x-api-key") or (bearer[7:] if bearer.startswith("Bearer ") else "")
    if not sent_key:
        raise RequestRejected(401, "authentication_error", "x-api-key header is required")
    if api_key is not None and sent_key != api_key:
        raise RequestRejected(401, "authentication_error", "invalid x-api-key")
    version = headers.get("anthropic-version")
    if not version:
        raise reject("anthropic-version: header is required")
    if version not in KNOWN_API_VERSIONS:
        raise reject(f"anthropic-version: invalid version {version!r}")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_parameters(body: dict[str, Any], version: str = LATEST_API_VERSION) -> None:
    """Every top-level field but the conversation, tools and system, under `version`."""
    check_required(body)
    if version == LATEST_API_VERSION:
        _check_latest_version_rules(body)
    else:
        _check_sampling(body)
    _check_stop_sequences(body.get("stop_sequences"))
    _check_metadata(body.get("metadata"))
    if "service_tier" in body and body["service_tier"] not in SERVICE_TIERS:
        raise reject("service_tier: Input should be 'auto' or 'standard_only'")
    _check_thinking(body)
    check_tool_choice(body)


def check_required(body: dict[str, Any]) -> None:
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise reject("model: Field required")
    if not _is_int(body.get("max_tokens")) or body["max_tokens"] < 1:
        raise reject("max_tokens: Field required (an integer of at least 1)")
    if not isinstance(body.get("messages"), list) or not body["messages"]:
        raise reject("messages: Field required (at least one message)")
    if len(body["messages"]) > MAX_MESSAGES:
        raise reject(f"messages: at most {MAX_MESSAGES} messages are allowed")
    if "stream" in body and not isinstance(body["stream"], bool):
        raise reject("stream: Input should be a valid boolean")


def _check_latest_version_rules(body: dict[str, Any]) -> None:
    """What `2026-10-21` refuses that `2023-06-01` accepted."""
    for name in SAMPLING_PARAMETERS:
        if name in body:
            raise reject(f"{name}: Extra inputs are not permitted")
    for index, message in enumerate(body["messages"]):
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        for position, block in enumerate(content if isinstance(content, list) else []):
            if isinstance(block, dict) and block.get("type") == "text" and block.get("citations"):
                raise reject(
                    f"messages.{index}.content.{position}: text blocks in user messages "
                    "may not carry citations"
                )


def _check_sampling(body: dict[str, Any]) -> None:
    """temperature and top_p in [0, 1], top_k a non-negative integer. Newer models refuse
    temperature and top_p together; the fake refuses it for every model."""
    for name in ("temperature", "top_p"):
        if name in body and not (_is_number(body[name]) and 0 <= body[name] <= 1):
            raise reject(f"{name}: Input should be a number between 0 and 1")
    if "top_k" in body and not (_is_int(body["top_k"]) and body["top_k"] >= 0):
        raise reject("top_k: Input should be a non-negative integer")
    if "temperature" in body and "top_p" in body:
        raise reject("`temperature` and `top_p` cannot both be specified for this model")


def _check_stop_sequences(sequences: Any) -> None:
    if sequences is None:
        return
    if not isinstance(sequences, list) or not all(isinstance(s, str) for s in sequences):
        raise reject("stop_sequences: Input should be a valid list of strings")
    if any(not s.strip() for s in sequences):
        raise reject("stop_sequences: each stop sequence must contain non-whitespace")


def _check_metadata(metadata: Any) -> None:
    if metadata is None:
        return
    if not isinstance(metadata, dict) or set(metadata) - {"user_id"}:
        raise reject("metadata: only `user_id` is permitted")
    user_id = metadata.get("user_id")
    if user_id is not None and (not isinstance(user_id, str) or len(user_id) > 256):
        raise reject("metadata.user_id: a string of at most 256 characters")


def _check_thinking(body: dict[str, Any]) -> None:
    thinking = body.get("thinking")
    if thinking is None:
        return
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    if kind in {"disabled", "adaptive"} and set(thinking) == {"type"}:
        return
    if kind != "enabled" or set(thinking) != {"type", "budget_tokens"}:
        raise reject("thinking: Input should be enabled (with budget_tokens), adaptive or disabled")
    budget = thinking["budget_tokens"]
    if not _is_int(budget) or budget < MIN_THINKING_BUDGET:
        raise reject(f"thinking.budget_tokens: Input should be at least {MIN_THINKING_BUDGET}")
    if budget >= body["max_tokens"]:
        raise reject("`max_tokens` must be greater than `thinking.budget_tokens`")


def check_tool_choice(body: dict[str, Any]) -> None:
    """The shape of `tool_choice`, and that it fits the tools and thinking sent with it."""
    if "tool_choice" not in body:
        return
    choice = body["tool_choice"]
    kind = choice.get("type") if isinstance(choice, dict) else None
    if not isinstance(kind, str) or kind not in TOOL_CHOICE_FIELDS:
        raise reject("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'")
    for key in choice:
        if key not in TOOL_CHOICE_FIELDS[kind]:
            raise reject(f"tool_choice.{kind}.{key}: Extra inputs are not permitted")
    parallel = choice.get("disable_parallel_tool_use", False)
    if not isinstance(parallel, bool):
        raise reject("tool_choice.disable_parallel_tool_use: Input should be a valid boolean")
    tools = body.get("tools")
    if not tools and kind != "none":
        raise reject("tool_choice may only be specified while providing tools")
    names = {tool.get("name") for tool in tools or [] if isinstance(tool, dict)}
    if kind == "tool" and choice.get("name") not in names:
        raise reject(f"tool_choice.name: no tool named {choice.get('name')!r} was provided")
    thinking = body.get("thinking")
    thinking_on = isinstance(thinking, dict) and thinking.get("type") in {"enabled", "adaptive"}
    if thinking_on and kind in {"any", "tool"}:
        raise reject("Thinking may not be enabled when tool_choice forces tool use.")


def check_request_cache_control(control: Any) -> list[str]:
    """The top-level `cache_control` (automatic caching): it takes one of the four
    breakpoints, on the last cacheable block. Returns its TTL as a one-item list."""
    if control is None:
        return []
    return [check_cache_control_value(control, "cache_control")]


def check_cache_control_value(control: Any, where: str) -> str:
    """The TTL of a valid `{"type": "ephemeral", "ttl"?: "5m" | "1h"}`; raises otherwise."""
    if (
        not isinstance(control, dict)
        or control.get("type") != "ephemeral"
        or set(control) - {"type", "ttl"}
        or control.get("ttl", "5m") not in {"5m", "1h"}
    ):
        raise reject(f"{where}.cache_control: must be {{'type': 'ephemeral'}} (optional ttl)")
    return str(control.get("ttl", "5m"))
