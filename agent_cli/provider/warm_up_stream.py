"""A canned answer stream, in the SDK's raw event form, for warming the SDK up.

`AnthropicProvider.prepare` has the SDK build it into its stream event models, offline,
and assembles it (`anthropic_stream.warm_up_stream_parsing`), so the SDK builds those
models (pydantic does that on first use) before the first real answer arrives. It holds
a text block and a tool call, the two kinds every turn meets, and ends as a whole answer
does. Plain data: no SDK import here.
"""

from __future__ import annotations

from typing import Any

# A stream a request could produce, in the SDK's raw event form (see `warm_up_stream_parsing`).
WARM_UP_EVENTS: tuple[dict[str, Any], ...] = (
    {
        "type": "message_start",
        "message": {
            "id": "msg_warm_up",
            "type": "message",
            "role": "assistant",
            "model": "warm-up",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0},
        },
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}},
    {"type": "content_block_stop", "index": 0},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "tool_use", "id": "toolu_warm", "name": "x", "input": {}},
    },
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "input_json_delta", "partial_json": "{}"},
    },  # fmt: skip
    {"type": "content_block_stop", "index": 1},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": 1},
    },
    {"type": "message_stop"},
)
