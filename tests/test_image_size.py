"""An image is estimated as the API bills it, by the size its data declares, read from images
written by a real encoder (Pillow) in each format the API takes; what cannot be read counts the
most an image costs."""

from __future__ import annotations

import base64
import io
import math
import struct
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from agent_cli.image_size import MAX_IMAGE_TOKENS, image_size, image_tokens
from agent_cli.tokens import BLOCK_OVERHEAD_TOKENS, TokenCounter
from bench.prompt_cache import billed_size
from bench.prompt_cache import image_tokens as billed_by_the_fake

FORMATS = {
    "png": ("PNG", {}),
    "gif": ("GIF", {}),
    "jpeg": ("JPEG", {"quality": 80}),
    "jpeg-progressive": ("JPEG", {"progressive": True}),
    "webp-lossy": ("WEBP", {"quality": 70}),
    "webp-lossless": ("WEBP", {"lossless": True}),
}
MEDIA_TYPES = {"PNG": "image/png", "GIF": "image/gif", "JPEG": "image/jpeg", "WEBP": "image/webp"}


def encoded(width: int, height: int, form: str, mode: str = "RGB", **extra: object) -> str:
    """Base64 of a `width` x `height` image in Pillow's format `form`."""
    image = Image.new(mode, (width, height), color=(200, 30, 90, 128)[: len(mode)])
    out = io.BytesIO()
    image.save(out, format=form, **extra)
    return base64.b64encode(out.getvalue()).decode()


def source(data: str, form: str = "PNG") -> dict[str, str]:
    return {"type": "base64", "media_type": MEDIA_TYPES[form], "data": data}


def expected_tokens(width: int, height: int) -> int:
    """The API's rule, written out: scaled to a long edge of 1,568, then pixels / 750."""
    longest = max(width, height)
    if longest > 1568:
        width, height = max(1, width * 1568 // longest), max(1, height * 1568 // longest)
    return max(1, min(1600, math.ceil(width * height / 750)))


@pytest.mark.parametrize("name", sorted(FORMATS))
@pytest.mark.parametrize("size", [(1, 1), (300, 200), (17, 1000), (2000, 1000), (4000, 30)])
def test_each_format_gives_the_size_its_encoder_wrote(name: str, size: tuple[int, int]) -> None:
    form, options = FORMATS[name]
    data = encoded(*size, form, **options)
    assert image_size(source(data, form)) == size
    assert image_tokens(source(data, form)) == expected_tokens(*size)


def test_a_webp_with_alpha_and_a_jpeg_with_long_segments_before_its_frame() -> None:
    with_alpha = encoded(640, 480, "WEBP", mode="RGBA", quality=60)  # the extended (VP8X) form
    assert image_size(source(with_alpha, "WEBP")) == (640, 480)
    exif = Image.Exif()
    exif[0x010E] = "x" * 60_000  # ImageDescription: one long APP1 segment
    long_head = encoded(800, 600, "JPEG", exif=exif.tobytes(), icc_profile=b"\0" * 150_000)
    assert len(long_head) > 280_000
    assert image_size(source(long_head, "JPEG")) == (800, 600)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5000), st.integers(1, 5000))
def test_a_png_counts_what_the_fake_api_bills_for_it(width: int, height: int) -> None:
    header_only = base64.b64encode(png_header(width, height)).decode()
    assert image_tokens(source(header_only)) == billed_by_the_fake(source(header_only))


def png_header(width: int, height: int) -> bytes:
    """A PNG's signature and IHDR chunk (what the size is read from; the pixels do not matter)."""
    ihdr = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    return b"\x89PNG\r\n\x1a\n" + len(ihdr).to_bytes(4, "big") + b"IHDR" + ihdr + b"\0" * 4


@pytest.mark.parametrize(
    "unreadable",
    [
        {"type": "url", "url": "https://example.com/a.png"},
        {"type": "file", "file_id": "file_01"},
        {"type": "base64", "media_type": "image/png", "data": "A" * 100_000},
        {"type": "base64", "media_type": "image/png", "data": "not base64 at all !!"},
        {"type": "base64", "media_type": "image/png", "data": 12},
        {"type": "base64", "media_type": "image/png", "data": ""},
        {
            "type": "base64",
            "media_type": "image/png",
            "data": base64.b64encode(b"\xff\xd8").decode(),
        },
        "a string",
        None,
    ],
)
def test_what_cannot_be_read_counts_the_most_an_image_costs(unreadable: object) -> None:
    assert image_tokens(unreadable) == MAX_IMAGE_TOKENS


def test_a_header_naming_no_pixels_counts_the_most() -> None:
    assert image_tokens(source(base64.b64encode(png_header(0, 500)).decode())) == MAX_IMAGE_TOKENS


def test_base64_broken_by_line_breaks_is_still_read() -> None:
    data = encoded(120, 90, "PNG")
    wrapped = "\n".join(data[i : i + 76] for i in range(0, len(data), 76))
    assert image_size(source(wrapped)) == (120, 90)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400), st.sampled_from([b"", b"\xff\xd8", b"RIFF\0\0\0\0WEBP", b"GIF89a"]))
def test_any_data_gives_a_size_or_none_never_an_error(tail: bytes, start: bytes) -> None:
    tokens = image_tokens(source(base64.b64encode(start + tail).decode()))
    assert 1 <= tokens <= MAX_IMAGE_TOKENS


def test_a_jpeg_of_many_tiny_segments_is_walked_to_its_end() -> None:
    segments = b"".join(b"\xff\xfe\x00\x02" for _ in range(200_000))  # empty comments
    frame = b"\xff\xc0\x00\x11\x08" + (70).to_bytes(2, "big") + (90).to_bytes(2, "big")
    data = base64.b64encode(b"\xff\xd8" + segments + frame + b"\0" * 20).decode()
    assert image_size(source(data, "JPEG")) == (90, 70)


def test_the_counter_bills_an_image_by_its_size_in_a_block_and_in_a_tool_result() -> None:
    counter = TokenCounter()
    small = {"type": "image", "source": source(encoded(1, 1, "PNG"))}
    large = {"type": "image", "source": source(encoded(3000, 2000, "JPEG"), "JPEG")}
    assert counter.count_block(small) == BLOCK_OVERHEAD_TOKENS + 1
    assert counter.count_block(large) == BLOCK_OVERHEAD_TOKENS + expected_tokens(3000, 2000)
    in_result = {"type": "tool_result", "tool_use_id": "toolu_01", "content": [small]}
    assert counter.count_block(in_result) < 30


# A decoder (Pillow: the strict fake API's oracle) sizes these crafted files; the header
# alone may lie. The reader must never read an image smaller than a decoder does: it reads
# the same size, or a larger one, or none (and an image of unread size is never sent).


def gif(
    screen: tuple[int, int], frames: list[tuple[int, int, int, int]], extras: bytes = b""
) -> bytes:
    """A GIF89a of logical `screen`, a global color table, `extras` (blocks) before its
    frames, each frame (left, top, width, height) with a local color table and one pixel
    of LZW data, and the trailer."""
    out = b"GIF89a" + struct.pack("<HH", *screen) + b"\x80\x00\x00" + b"\x00\x00\x00\xff\xff\xff"
    out += extras
    for left, top, width, height in frames:
        out += b"\x21\xf9\x04\x00\x00\x00\x00\x00"  # a graphic control extension
        out += b"," + struct.pack("<HHHH", left, top, width, height) + b"\x81"
        out += b"\x00" * 12 + b"\x02\x02D\x01\x00"  # its local color table, LZW code size, data
    return out + b";"


def png_chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def png_with_first(chunk: bytes, width: int, height: int) -> bytes:
    """A PNG whose first chunk is `chunk`, then IHDR, pixel data and IEND."""
    ihdr = png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
    rows = b"".join(b"\x00" + bytes(width) for _ in range(height))
    idat = png_chunk(b"IDAT", zlib.compress(rows))
    return b"\x89PNG\r\n\x1a\n" + chunk + ihdr + idat + png_chunk(b"IEND", b"")


def read(data: bytes) -> tuple[int, int] | None:
    return image_size({"type": "base64", "data": base64.b64encode(data).decode()})


@pytest.mark.parametrize(
    ("screen", "frames", "size"),
    [
        ((1, 1), [(0, 0, 9000, 2)], (9000, 2)),  # the screen says 1 x 1; the frame is 9000 px
        ((1, 1), [(0, 0, 2560, 4)], (2560, 4)),
        ((0, 0), [(0, 0, 9000, 2)], (9000, 2)),  # a screen of no pixels
        ((10, 10), [(7990, 0, 20, 5)], (8010, 10)),  # a frame placed past the screen
        ((300, 200), [(0, 0, 300, 200)], (300, 200)),  # true to its header
    ],
)
def test_a_gif_is_as_large_as_a_decoder_finds_it(
    screen: tuple[int, int], frames: list[tuple[int, int, int, int]], size: tuple[int, int]
) -> None:
    data = gif(screen, frames)
    assert read(data) == size == billed_size(data)


def test_every_frame_of_a_gif_counts_and_its_extensions_are_walked() -> None:
    """A later frame larger than the first (a decoder draws it), after a comment and an
    application extension: the reader is never under the decoder's size."""
    extras = b"\x21\xfe\x03abc\x00" + b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
    data = gif((1, 1), [(0, 0, 1, 1), (0, 0, 9000, 2)], extras)
    assert read(data) == (9000, 2)
    decoded = billed_size(data)
    assert decoded is not None and decoded[0] <= 9000 and decoded[1] <= 2


def test_an_animated_gif_pillow_wrote_reads_as_pillow_sizes_it() -> None:
    frames = [Image.new("L", (640, 480), color) for color in (0, 90, 180)]
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:], comment=b"x" * 900)
    assert read(out.getvalue()) == (640, 480) == billed_size(out.getvalue())


@settings(max_examples=150, deadline=None)
@given(
    st.tuples(st.integers(0, 3000), st.integers(0, 3000)),
    st.lists(
        st.tuples(*[st.integers(0, 5000)] * 2, *[st.integers(1, 5000)] * 2), min_size=1, max_size=4
    ),
)
def test_a_gif_is_never_read_smaller_than_a_decoder_finds_it(
    screen: tuple[int, int], frames: list[tuple[int, int, int, int]]
) -> None:
    data = gif(screen, frames)
    size, decoded = read(data), billed_size(data)
    assert size is not None
    assert decoded is None or (size[0] >= decoded[0] and size[1] >= decoded[1])


@pytest.mark.parametrize(
    "broken",
    [
        gif((1, 1), [(0, 0, 9000, 2)])[:-8],  # ends inside the frame's data
        gif((1, 1), [])[:-1] + b"\x99" + gif((1, 1), [(0, 0, 9000, 2)])[19:],  # a block of no kind
        gif((1, 1), [(0, 0, 9000, 2)])[:26],  # ends inside the frame's descriptor
    ],
    ids=["ends-in-frame-data", "unknown-block", "ends-in-descriptor"],
)
def test_a_gif_whose_blocks_cannot_be_walked_is_unread(broken: bytes) -> None:
    """A lenient decoder reads on past what the reader cannot walk: its size is not known."""
    assert read(broken) is None


def test_a_png_whose_first_chunk_is_not_ihdr_is_unread() -> None:
    """A decoder that looks further finds 9000 x 2 (Pillow does; a strict one refuses the
    file): the reader does not guess, so the image is never sent."""
    text_first = png_with_first(png_chunk(b"tEXt", b"Software\x00x"), 9000, 2)
    assert billed_size(text_first) == (9000, 2)
    assert read(text_first) is None
    assert image_tokens({"type": "base64", "data": base64.b64encode(text_first).decode()}) == (
        MAX_IMAGE_TOKENS
    )
    assert read(png_with_first(b"", 9000, 2)) == (9000, 2)
