"""What the API bills for an image block, read from the size its data declares. Pure.

Contract: `image_tokens(source)` is width x height / 750 (rounded up, at least 1) of the image as
the API bills it: a long edge over `MAX_IMAGE_EDGE` pixels scaled down to it, proportions kept,
and never more than `MAX_IMAGE_TOKENS`. The size is read from the header of base64 data in one of
the four formats the API takes (PNG, GIF, JPEG, WebP), whatever `media_type` says, as a decoder
sizes it where the first header alone may lie: a GIF is as large as the largest of its logical
screen and every frame (its left and top offsets added), its blocks walked to the trailer (or
the end of the data); a PNG's IHDR must be its first chunk, as the PNG spec says (a decoder
that finds it later sizes an image a strict one refuses: unread). When it cannot be read (a
URL or file source, data that does not decode, another format, a header that names no size, a
GIF block of no known kind) the image counts `MAX_IMAGE_TOKENS`, the most any image costs, so
an estimate is never under what is billed for want of a header (and `image_limits` sends no
image of unread size). Only as much of the data is decoded as the header walked needs.
`decoded_image_size(data)` reads image bytes already decoded the same way.
"""

from __future__ import annotations

import binascii
import math
import struct
from collections.abc import Callable
from typing import Any

MAX_IMAGE_TOKENS = 1_600  # what a ~1.15 megapixel image costs, the most any image does
MAX_IMAGE_EDGE = 1_568  # a longer edge is scaled down to this before the image is billed
PIXELS_PER_TOKEN = 750
_FIRST_CHARS = 4_096  # of base64 decoded first; a JPEG's size may come after long segments
_JPEG_SIZE_MARKERS = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}  # start of frame

Header = Callable[[int], bytes]  # the data decoded at least n bytes far (less where it is shorter)


def image_tokens(source: Any) -> int:
    """Tokens the API bills for an image block with this `source` (module contract)."""
    size = image_size(source)
    if size is None:
        return MAX_IMAGE_TOKENS
    width, height = size
    longest = max(width, height)
    if longest > MAX_IMAGE_EDGE:  # whole pixels, none of its edges gone
        width = max(1, width * MAX_IMAGE_EDGE // longest)
        height = max(1, height * MAX_IMAGE_EDGE // longest)
    return max(1, min(MAX_IMAGE_TOKENS, math.ceil(width * height / PIXELS_PER_TOKEN)))


def image_size(source: Any) -> tuple[int, int] | None:
    """(width, height) in pixels that base64 `source` data declares, or None (module contract)."""
    if not isinstance(source, dict) or source.get("type") != "base64":
        return None
    data = source.get("data")
    if not isinstance(data, str):
        return None
    return _read_size(_Base64Head(data).first)


def decoded_image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) in pixels that image bytes `data` declare, or None: read as
    `image_size` reads base64 data (module contract)."""
    return _read_size(lambda count: data)


def _read_size(first: Header) -> tuple[int, int] | None:
    for reader in (_png_size, _gif_size, _webp_size, _jpeg_size):
        size = reader(first)
        if size is not None:
            return size if size[0] > 0 and size[1] > 0 else None
    return None


class _Base64Head:
    """The decoded start of base64 text, decoding more only as far as a reader asks."""

    def __init__(self, data: str) -> None:
        self._data = data
        self._chars = 0
        self._bytes = b""

    def first(self, count: int) -> bytes:
        """The decoded data, at least its first `count` bytes where it has them (more may come:
        readers index it, so walking a header never copies what was decoded)."""
        while len(self._bytes) < count and self._chars < len(self._data):
            self._chars = min(len(self._data), max(_FIRST_CHARS, self._chars * 2, count * 2))
            self._bytes = _decode_prefix(self._data[: self._chars])
        return self._bytes


def _decode_prefix(text: str) -> bytes:
    """The bytes of the whole base64 quads at the start of `text` (whitespace set aside)."""
    quads = "".join(text.split())
    try:
        return binascii.a2b_base64(quads[: len(quads) - len(quads) % 4])
    except binascii.Error:
        return b""


def _png_size(first: Header) -> tuple[int, int] | None:
    head = first(24)
    if len(head) < 24 or not head.startswith(b"\x89PNG\r\n\x1a\n") or head[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def _gif_size(first: Header) -> tuple[int, int] | None:
    """The largest of a GIF's logical screen and each frame's extent (offset plus size),
    walking its blocks: a decoder draws every frame, whatever the screen says."""
    head = first(13)
    if len(head) < 13 or not head.startswith((b"GIF87a", b"GIF89a")):
        return None
    width, height = struct.unpack("<HH", head[6:10])
    at: int | None = 13 + gif_color_table(head[10])
    while at is not None:
        head = first(at + 1)
        if len(head) <= at or head[at] == 0x3B:  # the end of the data, or the trailer
            return width, height
        if head[at] == 0x21:  # an extension: its label, then sub-blocks
            at = gif_after_sub_blocks(first, at + 2)
        elif head[at] == 0x2C:  # a frame: its descriptor, color table, code size, sub-blocks
            head = first(at + 10)
            if len(head) < at + 10:
                return None
            left, top, frame_width, frame_height = struct.unpack("<HHHH", head[at + 1 : at + 9])
            width, height = max(width, left + frame_width), max(height, top + frame_height)
            at = gif_after_sub_blocks(first, at + 11 + gif_color_table(head[at + 9]))
        else:  # a block of no known kind: a lenient decoder reads on past it, so it is unread
            return None
    return None


def gif_color_table(flags: int) -> int:
    """Bytes of the color table a GIF screen or frame descriptor's `flags` announce."""
    return 3 * 2 ** ((flags & 0x07) + 1) if flags & 0x80 else 0


def gif_after_sub_blocks(first: Header, at: int) -> int | None:
    """Where the sub-blocks starting at `at` end (past their zero terminator); None when
    the data ends inside them."""
    while True:
        head = first(at + 1)
        if len(head) <= at:
            return None
        if head[at] == 0:
            return at + 1
        at += 1 + head[at]


def _webp_size(first: Header) -> tuple[int, int] | None:
    head = first(30)
    if len(head) < 30 or head[:4] != b"RIFF" or head[8:12] != b"WEBP":
        return None
    chunk = head[12:16]
    if chunk == b"VP8 ":  # lossy: the frame header after its start code
        width, height = struct.unpack("<HH", head[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":  # lossless: 14 bits each, less one, after the signature byte
        bits = int.from_bytes(head[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":  # extended: the canvas, 24 bits each, less one
        return int.from_bytes(head[24:27], "little") + 1, int.from_bytes(head[27:30], "little") + 1
    return None


def _jpeg_size(first: Header) -> tuple[int, int] | None:
    """The size in a JPEG's first start-of-frame segment, walking the segments before it."""
    if not first(2).startswith(b"\xff\xd8"):
        return None
    at = 2
    while True:
        head = first(at + 9)
        if len(head) < at + 4 or head[at] != 0xFF:
            return None
        marker = head[at + 1]
        if marker == 0xFF:  # fill bytes before a marker
            at += 1
            continue
        if marker in _JPEG_SIZE_MARKERS:
            if len(head) < at + 9:
                return None
            height, width = struct.unpack(">HH", head[at + 5 : at + 9])
            return width, height
        at += 2 + struct.unpack(">H", head[at + 2 : at + 4])[0]
