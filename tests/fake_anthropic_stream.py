"""Scripts the fake Messages API plays, and the SSE events and usage it reports.

A script is one answer to one request: a `Reply` (content blocks, stop reason) or a fault.
Faults that happen mid-stream first send `after_events` events of their `reply`.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def tool_use_block(
    tool_id: str, name: str, tool_input: dict[str, Any], raw_json: str | None = None
) -> dict[str, Any]:
    """A tool_use to stream; `raw_json` (if given) is sent verbatim instead of the input."""
    block: dict[str, Any] = {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}
    if raw_json is not None:
        block["raw_json"] = raw_json
    return block


@dataclass
class Reply:
    """A complete answer: `blocks` are text or tool_use blocks, streamed in small deltas.
    `first_token_delay` is how long the model seems to think: the seconds between the
    stream's `message_start` and its first content block. `held_until`, when given, makes
    the model think until the test sets that event (or the server stops), then for
    `first_token_delay` more: a test that must act while the model thinks sets it once it
    has seen its action on screen, where a fixed delay could run out first on a loaded
    machine."""

    blocks: list[dict[str, Any]]
    stop_reason: str = "end_turn"
    chunk_size: int = 7
    first_token_delay: float = 0.0
    held_until: threading.Event | None = None


def _partial_reply() -> Reply:
    return Reply([text_block("This answer will not survive the fault that follows it.")])


@dataclass
class HttpError:
    """An error status instead of a stream (429, 529, 500, 400, ...)."""

    status: int
    error_type: str = ""
    message: str = "fake error"
    retry_after: str | None = None
    retry_after_ms: str | None = None

    def __post_init__(self) -> None:
        if not self.error_type:
            self.error_type = {
                400: "invalid_request_error",
                401: "authentication_error",
                403: "permission_error",
                404: "not_found_error",
                413: "request_too_large",
                429: "rate_limit_error",
                529: "overloaded_error",
            }.get(self.status, "api_error")

    def response_headers(self) -> dict[str, str]:
        headers = {}
        if self.retry_after is not None:
            headers["retry-after"] = self.retry_after
        if self.retry_after_ms is not None:
            headers["retry-after-ms"] = self.retry_after_ms
        return headers


@dataclass
class StreamError:
    """An `event: error` (e.g. overloaded_error) after `after_events` events of `reply`."""

    after_events: int = 3
    error_type: str = "overloaded_error"
    message: str = "Overloaded"
    reply: Reply = field(default_factory=_partial_reply)


@dataclass
class DropConnection:
    """The socket closes mid-body after `after_events` events of `reply`."""

    after_events: int = 3
    reply: Reply = field(default_factory=_partial_reply)


@dataclass
class Stall:
    """Send `after_events` events, then go silent for `seconds` (longer than the timeout);
    with `ping_every`, silent but for a `ping` event that often (a live proxy, a stuck
    model)."""

    seconds: float = 5.0
    after_events: int = 0
    ping_every: float | None = None
    reply: Reply = field(default_factory=_partial_reply)


@dataclass
class MalformedEvent:
    """After `after_events` good events, an event whose data is not JSON."""

    after_events: int = 3
    event_name: str = "content_block_delta"
    payload: str = '{"type": "content_block_delta", "index": 0, "delta": {"type": "te'
    reply: Reply = field(default_factory=_partial_reply)


@dataclass
class EndStreamEarly:
    """The body ends cleanly after `after_events` events, with no `message_stop`."""

    after_events: int = 3
    reply: Reply = field(default_factory=_partial_reply)


Script = Reply | HttpError | StreamError | DropConnection | Stall | MalformedEvent | EndStreamEarly


def echo_responder(body: dict[str, Any]) -> Reply:
    """Default answer: repeat the last user text, or count the tool results just received."""
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return Reply([text_block(f"echo: {content}")])
    texts = [block["text"] for block in content if block.get("type") == "text"]
    if texts:
        return Reply([text_block("echo: " + " ".join(texts))])
    return Reply([text_block(f"received {len(content)} tool results")])


# --- events -------------------------------------------------------------------------------


def build_reply_events(
    body: dict[str, Any], reply: Reply, usage: dict[str, int]
) -> list[tuple[str, dict[str, Any]]]:
    """Every SSE event of a streamed reply, as (event name, data) pairs."""
    start_usage = {**usage, "output_tokens": 1}
    output_tokens = count_output_tokens(reply)
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_fake",
                    "type": "message",
                    "role": "assistant",
                    "model": body["model"],
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": start_usage,
                },
            },
        ),
        ("ping", {"type": "ping"}),
    ]
    for index, block in enumerate(reply.blocks):
        events.extend(_block_events(index, block, reply.chunk_size))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def _block_events(
    index: int, block: dict[str, Any], chunk_size: int
) -> list[tuple[str, dict[str, Any]]]:
    if block["type"] == "text":
        start = {"type": "text", "text": ""}
        pieces, delta_type, key = _chunks(block["text"], chunk_size), "text_delta", "text"
    else:
        start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        raw = block.get("raw_json", json.dumps(block["input"]))
        pieces, delta_type, key = _chunks(raw, chunk_size), "input_json_delta", "partial_json"
    events = [
        (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        )
    ]
    for piece in pieces:
        events.append(
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": delta_type, key: piece},
                },
            )
        )
    events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    return events


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def build_message_json(body: dict[str, Any], reply: Reply, usage: dict[str, int]) -> dict[str, Any]:
    """The non-streaming answer: one Message object."""
    content = [
        {key: value for key, value in block.items() if key != "raw_json"} for block in reply.blocks
    ]
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content,
        "stop_reason": reply.stop_reason,
        "stop_sequence": None,
        "usage": {**usage, "output_tokens": count_output_tokens(reply)},
    }


def count_output_tokens(reply: Reply) -> int:
    """About chars/4 of what the reply says, at least 1."""
    chars = sum(
        len(block.get("text", "")) + len(json.dumps(block.get("input", "")))
        for block in reply.blocks
    )
    return max(1, chars // 4)
