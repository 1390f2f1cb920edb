"""Assemble a streamed answer from the raw events into a wire-clean message: pure, SDK-agnostic.

Why our own: the SDK's `messages.stream` helper re-parses a tool call's whole partial
input with jiter at every `input_json_delta` (quadratic in the input: a 750 KB input in
7-character pieces took 20-60 s) and jiter stops at about 200 levels of nesting, which
failed a valid answer. Here each piece is kept as it came and each complete input is
parsed once, by Python's json.

Contract: `StreamTracker.observe(event)` takes the raw stream events in order (anything
with `.type`, `.index`, `.delta`, ... like the SDK's `RawMessageStreamEvent` models) and
returns the text of a text delta, so the provider can pass it on. It builds what the
SDK's accumulator built: the blocks (type, text, tool id/name, input), the stop reason,
and the usage, `message_start`'s overwritten by `message_delta`'s (`output_tokens`
always, input and cache figures when given: they are cumulative totals). An event it
cannot read (a field missing or of the wrong type, a block index that was never
started, a message event before `message_start`) raises `StreamFault("stream_malformed")`;
pings and event types it does not know are ignored. `build_model_response(tracker)` is
the finished answer: a `ModelResponse` whose message holds only `text` and `tool_use`
blocks with plain-dict input.

A tool_use whose input JSON did not arrive whole (the answer hit `max_tokens` inside it)
is dropped: a half call must never be run or sent back. The text that arrived is kept
and the stop reason stays `max_tokens`, so the session can tell the user. A stream that
ended without `message_stop`, or that says `tool_use` while a call is broken, raises
`StreamFault` so the provider can retry. A complete input nested more than
`MAX_TOOL_INPUT_DEPTH` levels (or past what Python's json reads at all) raises
`StreamFault("tool_input_too_deep")`, which is not retried: the same answer would fail
the same way. The bound is what the session's recursive walks over an input are given
room for (`agent_cli.__main__.RECURSION_LIMIT`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agent_cli.events import ModelResponse, Usage, reported_figure

USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)
# Events that belong to a message, and so may only come after its `message_start`.
MESSAGE_EVENTS = frozenset(
    {"content_block_start", "content_block_delta", "content_block_stop"}
    | {"message_delta", "message_stop"}
)
_MISSING = object()
# The deepest tool input taken (the input object itself counts as one level).
MAX_TOOL_INPUT_DEPTH = 600


class StreamFault(Exception):
    """The stream itself was broken; `kind` is a ProviderRequestFailed kind code."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


@dataclass
class BlockSoFar:
    """One content block as its events built it; text kept as the pieces that came."""

    type: object
    text: list[str] = field(default_factory=list)
    id: object = None
    name: object = None
    start_input: object = None


class StreamTracker:
    """What the raw events said about the answer; see the module contract."""

    def __init__(self) -> None:
        self.started = False
        self.finished = False
        self.blocks: list[BlockSoFar] = []
        self.raw_inputs: dict[int, list[str]] = {}
        self.stopped: set[int] = set()
        self.stop_reason: object = None
        self.usage: dict[str, object] = {}

    def observe(self, event: Any) -> str | None:
        """Record one stream event; return the text if it was a text delta."""
        kind = getattr(event, "type", None)
        if kind == "message_start":
            if not self.started:  # a second one changes nothing, as in the SDK
                self._start(_field(event, "message"))
            return None
        if kind not in MESSAGE_EVENTS:
            return None  # ping, or an event type newer than this code
        if not self.started:
            raise StreamFault("stream_malformed")
        if kind == "content_block_start":
            self.blocks.append(_read_block_start(_field(event, "content_block")))
        elif kind == "content_block_delta":
            return self._delta(self._index(event), _field(event, "delta"))
        elif kind == "content_block_stop":
            self.stopped.add(self._index(event))
        elif kind == "message_delta":
            self._message_delta(_field(event, "delta"), getattr(event, "usage", None))
        else:
            self.finished = True
        return None

    def build_usage(self) -> Usage:
        """The usage reported so far (`events.reported_figure`: absent or absurd is 0)."""
        return Usage(**{name: reported_figure(self.usage.get(name)) for name in USAGE_FIELDS})

    def complete_tool_input(self, index: int, start_input: Any) -> dict[str, Any] | None:
        """The parsed input of tool block `index`, or None if it did not arrive whole;
        raises `StreamFault("tool_input_too_deep")` past `MAX_TOOL_INPUT_DEPTH`."""
        if index not in self.stopped:
            return None
        raw = "".join(self.raw_inputs.get(index, []))
        if not raw.strip():
            return dict(start_input) if isinstance(start_input, dict) else {}
        try:
            parsed = json.loads(raw)
        except RecursionError:
            raise StreamFault("tool_input_too_deep") from None
        except ValueError:
            return None
        if nesting_depth(parsed) > MAX_TOOL_INPUT_DEPTH:
            raise StreamFault("tool_input_too_deep")
        return parsed if isinstance(parsed, dict) else None

    def _start(self, message: Any) -> None:
        self.started = True
        self.stop_reason = getattr(message, "stop_reason", None)
        usage = getattr(message, "usage", None)
        self.usage = {name: getattr(usage, name, None) for name in USAGE_FIELDS}

    def _index(self, event: Any) -> int:
        index = _field(event, "index")
        if isinstance(index, bool) or not isinstance(index, int):
            raise StreamFault("stream_malformed")
        if not 0 <= index < len(self.blocks):
            raise StreamFault("stream_malformed")
        return index

    def _delta(self, index: int, delta: Any) -> str | None:
        kind = getattr(delta, "type", None)
        block = self.blocks[index]
        if kind == "text_delta":
            text = _text(delta, "text")
            if block.type == "text":
                block.text.append(text)
            return text
        if kind == "input_json_delta":
            piece = _text(delta, "partial_json")
            if block.type == "tool_use":
                self.raw_inputs.setdefault(index, []).append(piece)
        return None  # thinking, signatures, citations: not requested by us

    def _message_delta(self, delta: Any, usage: Any) -> None:
        self.stop_reason = getattr(delta, "stop_reason", None)
        if usage is None:
            return
        self.usage["output_tokens"] = getattr(usage, "output_tokens", None)
        for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"):
            value = getattr(usage, name, None)
            if value is not None:  # left out when it does not apply: the start's stays
                self.usage[name] = value


def nesting_depth(value: object) -> int:
    """How many arrays and objects deep a JSON value is (a scalar: 0), without recursion."""
    deepest = 0
    pending: list[tuple[object, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, depth)
            pending.extend((child, depth + 1) for child in item)
    return deepest


def _field(item: Any, name: str) -> Any:
    value = getattr(item, name, _MISSING)
    if value is _MISSING or value is None:
        raise StreamFault("stream_malformed")
    return value


def _text(item: Any, name: str) -> str:
    value = _field(item, name)
    if not isinstance(value, str):
        raise StreamFault("stream_malformed")
    return value


def _read_block_start(block: Any) -> BlockSoFar:
    kind = getattr(block, "type", None)
    if kind == "text":
        return BlockSoFar(kind, [_text(block, "text")])
    if kind == "tool_use":
        return BlockSoFar(
            kind,
            id=getattr(block, "id", None),
            name=getattr(block, "name", None),
            start_input=getattr(block, "input", None),
        )
    return BlockSoFar(kind)


def build_model_response(tracker: StreamTracker) -> ModelResponse:
    """The finished answer as a `ModelResponse`; raises `StreamFault` if it is unusable."""
    stop_reason = tracker.stop_reason
    if not tracker.finished or not stop_reason:
        raise StreamFault("stream_incomplete")
    blocks, dropped = build_content_blocks(tracker)
    if dropped and stop_reason == "tool_use":
        raise StreamFault("stream_malformed")
    message = {"role": "assistant", "content": blocks}
    return ModelResponse(message=message, stop_reason=str(stop_reason), usage=tracker.build_usage())


def build_content_blocks(tracker: StreamTracker) -> tuple[list[dict[str, Any]], int]:
    """Text and complete tool_use blocks as plain dicts, and how many calls were dropped.

    Other block types (thinking, server tools) are not requested by us and are left out.
    """
    blocks: list[dict[str, Any]] = []
    dropped = 0
    for index, block in enumerate(tracker.blocks):
        if block.type == "text":
            text = "".join(block.text)
            if text:
                blocks.append({"type": "text", "text": text})
        elif block.type == "tool_use":
            tool_input = tracker.complete_tool_input(index, block.start_input)
            if tool_input is None:
                dropped += 1
                continue
            blocks.append(
                {"type": "tool_use", "id": block.id, "name": block.name, "input": tool_input}
            )
    return blocks, dropped
