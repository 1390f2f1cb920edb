"""Turn a streamed answer into a wire-clean assistant message: pure, SDK-agnostic.

Contract: `StreamTracker.observe(event)` watches the raw stream events (anything with
`.type`, `.index`, `.delta` like the SDK's) and returns the text of a text delta, so the
provider can pass it on. `build_model_response(final, tracker)` turns the SDK's final
message into a `ModelResponse` whose message holds only `text` and `tool_use` blocks
with plain-dict input.

A tool_use whose input JSON did not arrive whole (the answer hit `max_tokens` inside it)
is dropped: a half call must never be run or sent back. The text that arrived is kept
and the stop reason stays `max_tokens`, so the session can tell the user. A stream that
ended without `message_stop`, or that says `tool_use` while a call is broken, raises
`StreamFault` so the provider can retry.
"""

from __future__ import annotations

import json
from typing import Any

from agent_cli.events import ModelResponse, Usage, reported_figure


class StreamFault(Exception):
    """The stream itself was broken; `kind` is a ProviderRequestFailed kind code."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


class StreamTracker:
    """What the raw events said about each block: its input JSON and whether it ended."""

    def __init__(self) -> None:
        self.raw_inputs: dict[int, list[str]] = {}
        self.stopped: set[int] = set()
        self.finished = False

    def observe(self, event: Any) -> str | None:
        """Record one stream event; return the text if it was a text delta."""
        kind = getattr(event, "type", None)
        if kind == "content_block_delta":
            delta = event.delta
            if delta.type == "text_delta":
                return str(delta.text)
            if delta.type == "input_json_delta":
                self.raw_inputs.setdefault(event.index, []).append(delta.partial_json)
        elif kind == "content_block_stop":
            self.stopped.add(event.index)
        elif kind == "message_stop":
            self.finished = True
        return None

    def complete_tool_input(self, index: int, start_input: Any) -> dict[str, Any] | None:
        """The parsed input of tool block `index`, or None if it did not arrive whole."""
        if index not in self.stopped:
            return None
        raw = "".join(self.raw_inputs.get(index, []))
        if not raw.strip():
            return dict(start_input) if isinstance(start_input, dict) else {}
        try:
            parsed = json.loads(raw)
        except ValueError:
            return None
        return parsed if isinstance(parsed, dict) else None


def build_model_response(final: Any, tracker: StreamTracker) -> ModelResponse:
    """The final SDK message as a `ModelResponse`; raises `StreamFault` if it is unusable."""
    stop_reason = getattr(final, "stop_reason", None)
    if not tracker.finished or not stop_reason:
        raise StreamFault("stream_incomplete")
    blocks, dropped = build_content_blocks(getattr(final, "content", []), tracker)
    if dropped and stop_reason == "tool_use":
        raise StreamFault("stream_malformed")
    message = {"role": "assistant", "content": blocks}
    return ModelResponse(
        message=message,
        stop_reason=str(stop_reason),
        usage=build_usage(getattr(final, "usage", None)),
    )


def build_content_blocks(content: Any, tracker: StreamTracker) -> tuple[list[dict[str, Any]], int]:
    """Text and complete tool_use blocks as plain dicts, and how many calls were dropped.

    Other block types (thinking, server tools) are not requested by us and are left out.
    """
    blocks: list[dict[str, Any]] = []
    dropped = 0
    for index, block in enumerate(content):
        kind = getattr(block, "type", None)
        if kind == "text" and block.text:
            blocks.append({"type": "text", "text": block.text})
        elif kind == "tool_use":
            tool_input = tracker.complete_tool_input(index, getattr(block, "input", None))
            if tool_input is None:
                dropped += 1
                continue
            blocks.append(
                {"type": "tool_use", "id": block.id, "name": block.name, "input": tool_input}
            )
    return blocks, dropped


def build_usage(usage: Any) -> Usage:
    """Usage from the SDK object; a field the API left out, or reported as no request's
    could be (`events.reported_figure`), counts as zero."""

    def read(name: str) -> int:
        return reported_figure(getattr(usage, name, None))

    return Usage(
        input_tokens=read("input_tokens"),
        output_tokens=read("output_tokens"),
        cache_creation_input_tokens=read("cache_creation_input_tokens"),
        cache_read_input_tokens=read("cache_read_input_tokens"),
    )
