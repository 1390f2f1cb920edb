"""`stream_assembly` builds the answer from the raw stream events, as the SDK's
accumulator did (fix22f): pure, driven here with plain objects in the events' shape."""

from __future__ import annotations

from types import SimpleNamespace as Obj
from typing import Any

import pytest

from agent_cli.events import Usage
from agent_cli.provider.stream_assembly import (
    MAX_TOOL_INPUT_DEPTH,
    StreamFault,
    StreamTracker,
    build_model_response,
    nesting_depth,
)


def start(**usage: int) -> Obj:
    return Obj(type="message_start", message=Obj(stop_reason=None, usage=Obj(**usage)))


def block_start(index: int, **block: Any) -> Obj:
    return Obj(type="content_block_start", index=index, content_block=Obj(**block))


def delta(index: int, **fields: Any) -> Obj:
    return Obj(type="content_block_delta", index=index, delta=Obj(**fields))


def stop(index: int) -> Obj:
    return Obj(type="content_block_stop", index=index)


def end(stop_reason: str, **usage: Any) -> list[Obj]:
    message_delta = Obj(
        type="message_delta", delta=Obj(stop_reason=stop_reason), usage=Obj(**usage)
    )
    return [message_delta, Obj(type="message_stop")]


def assemble(events: list[Obj]) -> tuple[StreamTracker, list[str]]:
    tracker = StreamTracker()
    texts = [text for event in events if (text := tracker.observe(event))]
    return tracker, texts


def test_text_and_tool_input_pieces_are_joined_once_into_the_answer() -> None:
    tracker, texts = assemble(
        [
            start(input_tokens=10, output_tokens=1),
            Obj(type="ping"),
            block_start(0, type="text", text=""),
            *[delta(0, type="text_delta", text=piece) for piece in ("Rea", "ding.")],
            stop(0),
            block_start(1, type="tool_use", id="toolu_1", name="read_file", input={}),
            *[delta(1, type="input_json_delta", partial_json=p) for p in ('{"pa', 'th": "a"}')],
            stop(1),
            *end("tool_use", output_tokens=7),
        ]
    )
    answer = build_model_response(tracker)
    assert texts == ["Rea", "ding."]
    assert answer.stop_reason == "tool_use"
    assert answer.message["content"] == [
        {"type": "text", "text": "Reading."},
        {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a"}},
    ]


def test_message_delta_usage_overwrites_where_given_and_keeps_the_start_elsewhere() -> None:
    """As the SDK merges them: output always; input and cache figures only when present
    (they are cumulative totals; left out, the start's stand)."""
    events = [
        start(input_tokens=100, output_tokens=1, cache_read_input_tokens=40),
        *end("end_turn", output_tokens=9, input_tokens=120, cache_read_input_tokens=None),
    ]
    tracker, _ = assemble(events)
    assert build_model_response(tracker).usage == Usage(
        input_tokens=120, output_tokens=9, cache_creation_input_tokens=0, cache_read_input_tokens=40
    )


@pytest.mark.parametrize(
    "broken",
    [
        [block_start(0, type="text", text="")],  # before message_start
        [start(), delta(0, type="text_delta", text="x")],  # a block never started
        [start(), stop(3)],
        [start(), block_start(0, type="text", text=""), delta(0, type="text_delta", text=5)],
        [start(), block_start(0, type="text", text=""), Obj(type="content_block_delta", index=0)],
        [start(), block_start(0, type="text", text=""), stop("0")],
    ],
    ids=["order", "unknown-index", "unknown-stop", "text-not-a-string", "no-delta", "index-type"],
)
def test_an_event_that_cannot_be_read_is_a_malformed_stream(broken: list[Obj]) -> None:
    with pytest.raises(StreamFault) as caught:
        assemble(broken)
    assert caught.value.kind == "stream_malformed"


def test_events_of_a_newer_kind_are_ignored_and_no_stop_is_an_incomplete_stream() -> None:
    tracker, _ = assemble([start(), Obj(type="content_block_future", index=9)])
    with pytest.raises(StreamFault) as caught:
        build_model_response(tracker)
    assert caught.value.kind == "stream_incomplete"


@pytest.mark.parametrize("levels", [MAX_TOOL_INPUT_DEPTH + 1, 100_000])
def test_a_tool_input_nested_past_the_bound_is_named_as_such(levels: int) -> None:
    """Past the bound, or past what Python's json reads at all: the same words."""
    raw = '{"a": ' + "[" * (levels - 1) + "]" * (levels - 1) + "}"
    tracker, _ = assemble(
        [
            start(),
            block_start(0, type="tool_use", id="toolu_d", name="x", input={}),
            delta(0, type="input_json_delta", partial_json=raw),
            stop(0),
            *end("tool_use", output_tokens=1),
        ]
    )
    with pytest.raises(StreamFault) as caught:
        build_model_response(tracker)
    assert caught.value.kind == "tool_input_too_deep"


def test_nesting_depth_counts_arrays_and_objects_without_recursion() -> None:
    assert [nesting_depth(v) for v in ("s", 1, [], {}, {"a": [1, {"b": []}]})] == [0, 0, 1, 1, 4]
    deep: Any = []
    for _ in range(50_000):
        deep = [deep]
    assert nesting_depth(deep) == 50_001
