"""Reading a Models API page by hand: whole bodies strictly, bodies cut at the byte bound
entry by entry; and the fetch that bounds the body in bytes and in time."""

from __future__ import annotations

import json
from contextlib import contextmanager

import pytest

from agent_cli.errors import ModelsPageUnusable
from agent_cli.provider.anthropic_models import MAX_PAGE_BYTES, fetch_models_page
from agent_cli.provider.models_page import MAX_LISTED_MODELS, read_models_page
from agent_cli.provider.stream_assembly import StreamFault


def page(count: int, **extra) -> bytes:
    data = [{"id": f"m-{i}", "display_name": f"M {i}", "lifecycle": "active"} for i in range(count)]
    return json.dumps({**extra, "data": data}).encode()


def ids(entries) -> list[str]:
    return [entry["id"] for entry in entries]


def reason(body: bytes, complete: bool) -> str:
    with pytest.raises(ModelsPageUnusable) as caught:
        read_models_page(body, complete)
    return caught.value.reason


def test_a_whole_page_gives_at_most_the_first_hundred_entries():
    assert ids(read_models_page(page(3), complete=True)) == ["m-0", "m-1", "m-2"]
    assert ids(read_models_page(page(250), complete=True)) == [f"m-{i}" for i in range(100)]


def test_a_cut_page_gives_its_whole_entries_after_any_other_members():
    body = page(10, has_more=True, first_id="m-0", note={"nested": [1, {"a": "]"}]})
    cut = body[: body.index(b'"m-7"')]
    assert ids(read_models_page(cut, complete=False)) == [f"m-{i}" for i in range(7)]
    assert len(read_models_page(page(5_000), complete=False)) == MAX_LISTED_MODELS


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'{"data": [{"id": "m-0", "displ', "too_large"),  # not one entry whole
        (b'{"has_more": true, "first_id": "m-', "too_large"),
        (b'{"data": "abc', "malformed_answer"),
        (b"[1, 2, 3", "malformed_answer"),
        (b"<html><body>", "malformed_answer"),
        (b'{"data" 5', "malformed_answer"),
    ],
)
def test_a_cut_page_without_one_whole_entry_is_unusable(body, expected):
    assert reason(body, complete=False) == expected


def test_trailing_garbage_spoils_a_whole_page_but_not_a_cut_one():
    body = page(2)[:-1] + b"}garbage"
    assert reason(body, complete=True) == "malformed_answer"
    assert ids(read_models_page(body, complete=False)) == ["m-0", "m-1"]


def test_a_page_nested_past_the_parser_is_unusable_or_read_up_to_that_entry():
    """A gateway's answer 20,000 levels deep raised RecursionError out of the reader."""
    deep = b"[" * 20_000 + b"]" * 20_000
    assert reason(b'{"data": [' + deep + b"]}", complete=True) == "malformed_answer"
    body = page(2)[:-2] + b", " + deep + b"]}"
    assert ids(read_models_page(body, complete=False)) == ["m-0", "m-1"]


class FakeStreamingClient:
    """The part of the SDK client `fetch_models_page` uses, streaming scripted chunks."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks
        self.asked: list[dict] = []
        self.models = self
        self.with_streaming_response = self

    @contextmanager
    def list(self, **params):
        self.asked.append(params)
        yield self

    def iter_bytes(self, size: int):
        yield from self.chunks


def test_the_fetch_stops_at_the_byte_bound_and_says_the_body_is_cut():
    chunk = b"x" * 65_536
    client = FakeStreamingClient([chunk] * 100)
    body, complete = fetch_models_page(client, 5.0)
    assert (len(body), complete) == (MAX_PAGE_BYTES, False)
    assert client.asked == [{"limit": 100, "timeout": 5.0}]


def test_the_fetch_gives_up_when_the_whole_time_has_passed():
    ticks = iter(range(100))
    client = FakeStreamingClient([b"{"] * 50)  # a trickle, each chunk a second apart
    with pytest.raises(StreamFault) as caught:
        fetch_models_page(client, 5.0, clock=lambda: float(next(ticks)))
    assert caught.value.kind == "timeout"
