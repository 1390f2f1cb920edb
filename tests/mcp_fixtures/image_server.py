"""An MCP server of images for the tests, written with the official SDK, run over stdio.

`pictures(kind, count, width, height)` answers a line of text and `count` images: `png` and
`gif` are true to their headers; `lying_gif` is a GIF whose logical screen says 1 x 1 while
its one frame is `width` x `height` (what a decoder, and so the fake API, sizes it by);
`unread_png` is a PNG whose first chunk is tEXt, IHDR after it (a size agent-cli does not
read; Pillow, and so the fake API, reads `width` x `height`). `ihdr_only_png` is a PNG's
signature and IHDR chunk alone, `half_png` the first half of a real PNG of noise Pillow
wrote: files no decoder reads whole (an outside tester's, f4_broken_png.sh).
"""

from __future__ import annotations

import base64
import io
import random
import struct
import zlib

from mcp.server.mcpserver import MCPServer
from mcp.types import ImageContent, TextContent


def _png(width: int, height: int, first: bytes = b"") -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    rows = b"".join(b"\x00" + bytes(width) for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + (chunk(b"tEXt", first) if first else b"")
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def _gif(screen: tuple[int, int], frame: tuple[int, int]) -> bytes:
    return (
        b"GIF89a"
        + struct.pack("<HH", *screen)
        + b"\x80\x00\x00\x00\x00\x00\xff\xff\xff"  # a two-colour global table
        + b",\x00\x00\x00\x00"
        + struct.pack("<HH", *frame)
        + b"\x00\x02\x02D\x01\x00;"
    )


def _half_png(width: int, height: int) -> bytes:
    from PIL import Image  # a test-only dependency, there when the tests run this server

    rng = random.Random(1)
    out = io.BytesIO()
    Image.frombytes("RGB", (width, height), rng.randbytes(width * height * 3)).save(out, "PNG")
    return out.getvalue()[: len(out.getvalue()) // 2]


def _image(kind: str, width: int, height: int) -> tuple[str, bytes]:
    if kind == "png":
        return "image/png", _png(width, height)
    if kind == "ihdr_only_png":
        return "image/png", _png(width, height)[:33]
    if kind == "half_png":
        return "image/png", _half_png(width, height)
    if kind == "unread_png":
        return "image/png", _png(width, height, first=b"Software\x00pics")
    if kind == "gif":
        return "image/gif", _gif((width, height), (width, height))
    return "image/gif", _gif((1, 1), (width, height))  # lying_gif


server = MCPServer("pics")


@server.tool(description="Some pictures.")
def pictures(kind: str = "png", count: int = 1, width: int = 1, height: int = 1) -> list:
    mime, data = _image(kind, width, height)
    encoded = base64.b64encode(data).decode()
    images = [ImageContent(type="image", data=encoded, mime_type=mime) for _ in range(count)]
    return [TextContent(type="text", text=f"{count} {kind} {width}x{height}"), *images]


server.run()
