"""An image is estimated as the API bills it, by the size its data declares, read from images
written by a real encoder (Pillow) in each format the API takes; what cannot be read counts the
most an image costs."""

from __future__ import annotations

import base64
import io
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from agent_cli.image_size import MAX_IMAGE_TOKENS, image_size, image_tokens
from agent_cli.tokens import BLOCK_OVERHEAD_TOKENS, TokenCounter
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
