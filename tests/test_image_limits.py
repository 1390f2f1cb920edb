"""The rule of which images a request leaves out, and the request it gives: the view and
the kept turns of the wire builder keep every image; only the request changes."""

from __future__ import annotations

import base64
import copy
import functools
import io
import json
import random
import struct
import zlib

from PIL import Image

from agent_cli.events import ModelRequest
from agent_cli.frozen import freeze
from agent_cli.image_limits import INCOMPLETE, image_edge, images_left_out
from agent_cli.image_notes import view_images
from agent_cli.mcp_servers.call_results import render_call_result
from agent_cli.provider.wire import WireBuilder, build_wire_request


def _chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


@functools.cache
def _png(width: int, height: int) -> str:
    """Base64 of a whole black grey PNG of `width` x `height` px (a file a decoder reads)."""
    header = _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
    pixels = _chunk(b"IDAT", zlib.compress((b"\x00" * (width + 1)) * height))
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + header + pixels + _chunk(b"IEND", b"")).decode()


def test_up_to_20_images_of_any_size_under_8000_px_are_all_sent() -> None:
    assert images_left_out([7_999] * 20) == ()


def test_an_image_over_8000_px_is_left_out_whatever_else_the_request_holds() -> None:
    assert images_left_out([9_000, 10, 8_001]) == (0, 2)
    assert images_left_out([10] * 100 + [9_000]) == (100,)


def test_past_100_small_images_the_oldest_are_left_out_in_steps_of_25() -> None:
    assert images_left_out([1] * 104) == tuple(range(25))
    assert images_left_out([1] * 126) == tuple(range(50))


def test_the_newest_stay_in_steps_of_10_when_one_of_the_newest_20_is_over_2000_px() -> None:
    """A screenshot workflow keeps its latest screenshots, whatever came before."""
    assert images_left_out([2_560] * 21) == tuple(range(10))
    assert images_left_out([1] * 50 + [2_560]) == tuple(range(40))


def test_older_images_over_2000_px_go_first_when_the_newest_20_are_small() -> None:
    edges = [2_560, 1, 2_560] + [1] * 30
    assert images_left_out(edges) == (0, 2)
    assert images_left_out([3_000] + [1] * 120) == tuple(range(26))


def test_the_left_out_set_stays_put_while_the_next_images_fill_a_step() -> None:
    """The prompt cache: each turn adds images, and the set a request leaves out is the same
    for every turn until a step is filled, under either limit; the newest always stay."""
    for edge, limit, step in ((1, 100, 25), (2_560, 20, 10)):
        sets = [images_left_out([edge] * count) for count in range(limit + 1, limit + step + 1)]
        assert all(left == tuple(range(step)) for left in sets)
        assert images_left_out([edge] * (limit + step + 1)) == tuple(range(2 * step))
        for count in range(limit + 1, limit + 4 * step):
            kept = count - len(images_left_out([edge] * count))
            assert limit - step < kept <= limit


def test_an_image_of_unread_size_is_left_out_and_counts_for_no_limit() -> None:
    """Its size may be over 8,000 px (a decoder may find it so): never sent, and it does not
    make the 20-image rule leave out older images the API takes."""
    assert images_left_out([None] * 20) == tuple(range(20))
    assert images_left_out([1] * 80 + [None]) == (80,)
    assert images_left_out([None] + [2_560] * 20) == (0,)
    assert images_left_out([1] * 100 + [None]) == (100,)


def _view(turns: int, width: int) -> list[dict]:
    view: list[dict] = [{"role": "user", "content": "hi"}]
    for turn in range(turns):
        images = [
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": _png(width, 4)},
                "_pointer": f"artifact:s:{turn}-{at}.png:abcdefabcdef",
            }
            for at in range(7)
        ]
        result = [{"type": "text", "text": "shots"}, *images]
        view += [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": f"t{turn}", "name": "x", "input": {}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{turn}", "content": result}],
            },
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "next"},
        ]
    return view


def _request(messages: list) -> ModelRequest:
    return ModelRequest(system="s", durable_context="", messages=tuple(messages), tools=())


def _sent(wire: dict) -> str:
    return json.dumps(wire["messages"])


def test_a_request_names_each_image_it_leaves_out_and_the_view_keeps_them() -> None:
    """Four turns of 7 screenshots: every request of the builder equals a build from
    nothing, the last sends the newest 18 and names the 10 oldest (a step) with their pointers, and
    neither the view nor the kept turns lose an image."""
    view = [freeze(message) for message in _view(4, 2_560)]
    before = copy.deepcopy([dict(m) for m in view])
    builder = WireBuilder()
    for end in range(1, len(view) + 1):
        if "tool_use" in json.dumps(view[end - 1]["content"]):
            continue  # a call not answered yet is no request
        built = builder.build(_request(view[:end]), "m")
        assert built == build_wire_request(_request(view[:end]), "m")
    sent = _sent(built)
    assert sent.count('"type": "image"') == 18
    assert sent.count("not sent in this request") == 10
    assert "artifact:s:0-0.png:abcdefabcdef" in sent and "artifact:s:1-0.png" in sent
    assert "_pointer" not in sent
    assert [dict(m) for m in view] == before
    again = builder.build(_request([*view, freeze({"role": "assistant", "content": "more"})]), "m")
    assert _sent(again).count('"type": "image"') == 18


def test_an_image_over_8000_px_in_a_resumed_view_is_not_sent() -> None:
    """A view written before the gate (or any other path) holding a 9000 px image."""
    view = _view(1, 9_000)
    sent = _sent(build_wire_request(_request(view), "m"))
    assert '"type": "image"' not in sent
    assert sent.count("over 8,000 px on a side, which the API refuses") == 7


def test_an_mcp_image_over_8000_px_is_stored_and_named_as_not_sent() -> None:
    saved: list[bytes] = []

    def save(data: bytes, suffix: str) -> str:
        saved.append(data)
        return f"artifact:s1:{len(saved)}"

    items = [
        {"type": "image", "data": _png(9_000, 2), "mimeType": "image/png"},
        {"type": "image", "data": _png(8_000, 2), "mimeType": "image/png"},
    ]
    result, images = render_call_result("pics", "pictures", items, False, save)
    lines = result.body.splitlines()
    assert len(saved) == 2 and len(images) == 1
    assert "saved as artifact:s1:1" in lines[0]
    assert "not sent to the model: it is 9,000 px on its long side, over the 8,000 px" in lines[0]
    assert "not sent" not in lines[1]


def _gif(screen: tuple[int, int], frame: tuple[int, int]) -> str:
    """A GIF whose logical screen is `screen` and whose one frame is `frame` (a decoder
    sizes it by the larger)."""
    head = b"GIF89a" + struct.pack("<HH", *screen) + b"\x80\x00\x00\x00\x00\x00\xff\xff\xff"
    body = b",\x00\x00\x00\x00" + struct.pack("<HH", *frame) + b"\x00\x02\x02D\x01\x00;"
    return base64.b64encode(head + body).decode()


def _text_first_png(width: int, height: int) -> str:
    """A PNG whose first chunk is tEXt, not IHDR: its size is not read."""
    raw = base64.b64decode(_png(width, height))
    text = struct.pack(">I", 3) + b"tEXta\x00b" + b"\x00" * 4
    return base64.b64encode(raw[:8] + text + raw[8:]).decode()


def _with_images(datas: list[str]) -> list[dict]:
    """A view of one tool result holding an image of each of `datas`, pointers kept."""
    images = [
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/gif", "data": data},
            "_pointer": f"artifact:s:{at}.gif:abcdefabcdef",
        }
        for at, data in enumerate(datas)
    ]
    tool_use = {"type": "tool_use", "id": "t", "name": "x", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "t", "content": images}
    return [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [tool_use]},
        {"role": "user", "content": [result]},
    ]


def test_a_resumed_view_sends_no_image_whose_header_lies_or_cannot_be_read() -> None:
    """A transcript written before the reader walked a GIF's frames: a GIF whose screen
    says 1 x 1 and whose frame is 9000 x 2, and a PNG of unread size, are left out and
    named; 21 GIFs of 2560 px frames behind 1 x 1 screens keep the 20-image rule."""
    sent = _sent(build_wire_request(_request(_with_images([_gif((1, 1), (9_000, 2))])), "m"))
    assert '"type": "image"' not in sent
    assert "(9,000 px on its long side) not sent in this request: it is over 8,000 px" in sent
    unread = _sent(build_wire_request(_request(_with_images([_text_first_png(9_000, 2)])), "m"))
    assert '"type": "image"' not in unread
    assert "[an image not sent in this request: its size could not be read" in unread
    assert "stored as artifact:s:0.gif:abcdefabcdef" in unread
    shots = _with_images([_gif((1, 1), (2_560, 4))] * 21)
    sent = _sent(build_wire_request(_request(shots), "m"))
    assert sent.count('"type": "image"') == 11  # a step of the oldest 10 left out
    assert "at most 20 images a request when one is over 2,000 px" in sent


def test_an_mcp_image_whose_size_a_header_hides_is_stored_and_named_as_not_sent() -> None:
    saved: list[bytes] = []

    def save(data: bytes, suffix: str) -> str:
        saved.append(data)
        return f"artifact:s1:{len(saved)}"

    items = [
        {"type": "image", "data": data, "mimeType": mime}
        for data, mime in [
            (_gif((1, 1), (9_000, 2)), "image/gif"),
            (_gif((0, 0), (9_000, 2)), "image/gif"),
            (_text_first_png(10, 10), "image/png"),
            (_gif((1, 1), (2_560, 4)), "image/gif"),
        ]
    ]
    result, images = render_call_result("pics", "pictures", items, False, save)
    lines = result.body.splitlines()
    assert len(saved) == 4 and len(images) == 1
    for line in lines[:2]:
        assert "not sent to the model: it is 9,000 px on its long side, over the 8,000" in line
    assert "not sent to the model: its size could not be read, and the API refuses" in lines[2]
    assert "saved as artifact:s1:3" in lines[2]
    assert "not sent" not in lines[3]


def _ihdr_only(width: int, height: int) -> str:
    """Base64 of a PNG's signature and IHDR chunk alone (its size reads; no pixels)."""
    return base64.b64encode(base64.b64decode(_png(width, height))[:33]).decode()


def _half_png() -> str:
    """Base64 of the first half of a real 100 x 100 PNG of noise (a tool that cut it)."""
    rng = random.Random(1)
    out = io.BytesIO()
    Image.frombytes("RGB", (100, 100), rng.randbytes(100 * 100 * 3)).save(out, "PNG")
    return base64.b64encode(out.getvalue()[: len(out.getvalue()) // 2]).decode()


def test_an_incomplete_image_is_left_out_and_counts_for_no_limit() -> None:
    assert images_left_out([INCOMPLETE] * 3) == (0, 1, 2)
    assert images_left_out([1] * 80 + [INCOMPLETE]) == (80,)
    assert images_left_out([INCOMPLETE] + [2_560] * 20) == (0,)


def test_a_resumed_view_sends_no_image_whose_file_is_incomplete() -> None:
    """A view written before the gate checked files whole: 80 whole 1 x 1 PNGs, then one
    PNG of its IHDR alone and one cut in half (Pillow decodes neither). Those two are left
    out of every request and named with their pointers and why; the 80 are all sent; the
    view's own figures (`image_notes`) see the same edges, and a frozen source holds it."""
    view = [freeze(m) for m in _with_images([_png(1, 1)] * 80 + [_ihdr_only(1, 1), _half_png()])]
    sent = _sent(build_wire_request(_request(view), "m"))
    assert sent.count('"type": "image"') == 80
    why = "not sent in this request: its file is incomplete or damaged (cut short"
    assert sent.count(why) == 2
    assert "stored as artifact:s:80.gif" in sent and "stored as artifact:s:81.gif" in sent
    edges = [image.edge for image in view_images(view)]
    assert edges[-2:] == [INCOMPLETE, INCOMPLETE] and images_left_out(edges) == (80, 81)
    source = view[-1]["content"][0]["content"][-1]["source"]
    assert image_edge(source) is INCOMPLETE and image_edge(dict(source)) is INCOMPLETE


def test_an_mcp_image_whose_file_is_incomplete_is_stored_and_named_as_not_sent() -> None:
    """The tester's two PNGs (its IHDR alone; a real one cut in half), then a whole one."""
    saved: list[bytes] = []

    def save(data: bytes, suffix: str) -> str:
        saved.append(data)
        return f"artifact:s1:{len(saved)}"

    datas = [_ihdr_only(1, 1), _half_png(), _png(3, 3)]
    items = [{"type": "image", "data": data, "mimeType": "image/png"} for data in datas]
    result, images = render_call_result("pics", "pictures", items, False, save)
    lines = result.body.splitlines()
    assert saved == [base64.b64decode(data) for data in datas]
    assert [block["source"]["data"] for block in images] == [datas[2]]
    for at, line in enumerate(lines[:2]):
        assert f"saved as artifact:s1:{at + 1}" in line
        assert "; not sent to the model: its file is incomplete or damaged" in line
    assert "not sent" not in lines[2]


def test_an_image_declared_over_8000_px_is_refused_without_decoding_it(monkeypatch) -> None:
    """Its header alone refuses it: a zlib bomb declaring 60,000 px on a side is never
    inflated (the completeness check decodes the whole image)."""
    import agent_cli.image_limits as limits

    def never(raw: bytes) -> bool:
        raise AssertionError("decoded an image its header already refuses")

    monkeypatch.setattr(limits, "is_complete_image", never)
    source = {"type": "base64", "media_type": "image/png", "data": _png(9_000, 2)}
    assert limits.image_edge(source) == 9_000
    assert limits.decoded_image_edge(base64.b64decode(source["data"])) == 9_000
