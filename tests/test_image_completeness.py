"""An image file is whole or not, checked from its bytes, against a real decoder (Pillow) on
images a real encoder (Pillow) wrote: every whole file is complete, every truncation of one
at every cut point is not, and what the check calls complete Pillow decodes (it is stricter:
Pillow reads a PNG cut after its last IDAT, or a GIF without its trailer, which is not sent)."""

from __future__ import annotations

import io
import random
import struct
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from agent_cli.image_completeness import is_complete_image

ENCODINGS = {
    "png": ("RGB", "PNG", {}),
    "png-interlaced": ("RGB", "PNG", {"interlace": 1}),
    "png-palette": ("P", "PNG", {}),
    "png-16-bit-grey": ("I;16", "PNG", {}),
    "png-1-bit": ("1", "PNG", {}),
    "png-grey-alpha": ("LA", "PNG", {}),
    "png-rgba": ("RGBA", "PNG", {}),
    "jpeg": ("RGB", "JPEG", {"quality": 80}),
    "jpeg-progressive": ("RGB", "JPEG", {"progressive": True}),
    "jpeg-grey": ("L", "JPEG", {}),
    "gif": ("RGB", "GIF", {}),
    "gif-animated": ("RGB", "GIF", {"save_all": True, "append_images": "rotated"}),
    "webp-lossy": ("RGB", "WEBP", {"quality": 70}),
    "webp-lossless": ("RGB", "WEBP", {"lossless": True}),
    "webp-alpha": ("RGBA", "WEBP", {"quality": 70}),
}


def noise(width: int, height: int, seed: int = 1) -> Image.Image:
    """An RGBA image of random pixels (alpha too), so no encoder has an easy time."""
    rng = random.Random(seed)
    pixels = bytes(rng.getrandbits(8) for _ in range(width * height * 4))
    return Image.frombytes("RGBA", (width, height), pixels)


def encoded(name: str, width: int = 9, height: int = 7, seed: int = 1) -> bytes:
    """A `width` x `height` image of noise written by Pillow in the encoding `name`."""
    mode, form, options = ENCODINGS[name]
    image = noise(width, height, seed).convert(mode)
    if options.get("append_images") == "rotated":
        options = {**options, "append_images": [image.rotate(90)]}
    out = io.BytesIO()
    image.save(out, format=form, **options)
    return out.getvalue()


def decodes(raw: bytes) -> bool:
    """Whether Pillow decodes every pixel of every frame of `raw`."""
    try:
        with Image.open(io.BytesIO(raw)) as image:
            for frame in range(getattr(image, "n_frames", 1)):
                image.seek(frame)
                image.load()
    except (OSError, SyntaxError, ValueError, EOFError, Image.DecompressionBombError):
        return False
    return True


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(*chunks: bytes) -> bytes:
    return b"\x89PNG\r\n\x1a\n" + b"".join(chunks)


IHDR_1X1_RGB = chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_a_whole_file_is_complete_and_each_of_its_truncations_is_not(name: str) -> None:
    """Every cut point of a small image of each encoding: none is complete."""
    raw = encoded(name)
    assert decodes(raw) and is_complete_image(raw)
    complete_cuts = [cut for cut in range(len(raw)) if is_complete_image(raw[:cut])]
    assert complete_cuts == []


@pytest.mark.parametrize("name", ["webp-alpha", "png-rgba"])
def test_the_extended_webp_and_rgba_png_are_what_they_say(name: str) -> None:
    """The table holds a VP8X WebP (its alpha is real) and a colour type 6 PNG."""
    raw = encoded(name)
    assert raw[12:16] == b"VP8X" if name == "webp-alpha" else raw[25] == 6


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(sorted(ENCODINGS)),
    st.integers(1, 40),
    st.integers(1, 40),
    st.integers(0, 2**16),
    st.floats(0, 1, exclude_max=True),
)
def test_what_is_complete_pillow_decodes_and_a_cut_file_is_never_complete(
    name: str, width: int, height: int, seed: int, where: float
) -> None:
    raw = encoded(name, width, height, seed)
    assert is_complete_image(raw) and decodes(raw)
    cut = raw[: int(len(raw) * where)]
    assert not is_complete_image(cut)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 30), st.integers(1, 30), st.data())
def test_a_png_with_any_one_byte_changed_is_not_complete(width: int, height: int, data) -> None:
    """Each chunk's CRC, length and type guard every byte of a PNG."""
    raw = bytearray(encoded("png", width, height))
    at = data.draw(st.integers(0, len(raw) - 1))
    raw[at] ^= data.draw(st.integers(1, 255))
    assert not is_complete_image(bytes(raw))


def test_the_testers_pngs_are_not_complete() -> None:
    """A PNG of its signature and IHDR alone, and a real 100 x 100 PNG cut in half: Pillow
    cannot decode either ("image file is truncated")."""
    rng = random.Random(1)
    pixels = bytes(rng.getrandbits(8) for _ in range(100 * 100 * 3))
    out = io.BytesIO()
    Image.frombytes("RGB", (100, 100), pixels).save(out, "PNG")
    whole = out.getvalue()
    for broken in (png(IHDR_1X1_RGB), whole[: len(whole) // 2]):
        assert not decodes(broken) and not is_complete_image(broken)
    assert is_complete_image(whole)


NO_PALETTE = chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 3, 0, 0, 0))
BAD_DEPTH = chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 4, 2, 0, 0, 0))
END = chunk(b"IEND", b"")


@pytest.mark.parametrize(
    ("broken", "pillow_decodes"),
    [
        # chunks whole, CRCs right, but pixels missing or wrong for the header
        (png(IHDR_1X1_RGB, chunk(b"IDAT", b""), END), False),
        (png(IHDR_1X1_RGB, chunk(b"IDAT", zlib.compress(b"\x00\x00\x00")), END), False),
        (png(IHDR_1X1_RGB, chunk(b"IDAT", b"not zlib"), END), False),
        (png(IHDR_1X1_RGB, END), False),
        # Pillow is lenient where the PNG spec (and libpng) is not: a zlib stream without
        # its checksum, a palette image without its palette
        (png(IHDR_1X1_RGB, chunk(b"IDAT", zlib.compress(b"\x00" * 4)[:-4]), END), True),
        (png(NO_PALETTE, chunk(b"IDAT", zlib.compress(b"\x00\x00")), END), True),
        # a colour type and bit depth that do not go together
        (png(BAD_DEPTH, chunk(b"IDAT", zlib.compress(b"\x00\x00\x00")), END), False),
    ],
    ids=["empty", "short", "not-zlib", "no-idat", "no-checksum", "no-palette", "bad-depth"],
)
def test_a_png_whose_pixels_do_not_match_its_header_is_not_complete(
    broken: bytes, pillow_decodes: bool
) -> None:
    assert not is_complete_image(broken)
    assert decodes(broken) is pillow_decodes


def test_a_png_whose_idat_chunks_are_apart_or_after_iend_is_not_complete() -> None:
    stream = zlib.compress(b"\x00" * 4)
    text = chunk(b"tEXt", b"a\x00b")
    halves = chunk(b"IDAT", stream[:5]), chunk(b"IDAT", stream[5:])
    assert is_complete_image(png(IHDR_1X1_RGB, *halves, text, chunk(b"IEND", b"")))
    assert not is_complete_image(png(IHDR_1X1_RGB, halves[0], text, halves[1], chunk(b"IEND", b"")))
    assert not is_complete_image(png(IHDR_1X1_RGB, chunk(b"IEND", b""), *halves))


def test_bytes_after_the_end_marker_are_ignored_as_decoders_ignore_them() -> None:
    for name in ("png", "jpeg", "gif", "webp-lossy"):
        raw = encoded(name) + b"trailing bytes"
        assert decodes(raw) and is_complete_image(raw), name


@pytest.mark.parametrize(
    "broken",
    [
        b"",
        b"\x89PNG\r\n\x1a\n",
        b"\xff\xd8\xff\xd9",  # SOI, EOI: no frame, no scan
        b"GIF89a\x01\x00\x01\x00\x00\x00\x00;",  # a trailer but no frame
        b"RIFF\x04\x00\x00\x00WEBP",
        b"RIFF\x0c\x00\x00\x00WEBPABCD\x00\x00\x00\x00",  # a chunk the API does not take
        b"not an image at all",
    ],
    ids=[
        "empty",
        "png-signature",
        "jpeg-no-frame",
        "gif-no-frame",
        "webp-no-chunk",
        "webp-odd-chunk",
        "text",
    ],
)
def test_files_of_no_image_or_no_pixels_are_not_complete(broken: bytes) -> None:
    assert not is_complete_image(broken)


def test_a_jpeg_without_its_frame_or_a_webp_whose_riff_size_is_off_is_not_complete() -> None:
    jpeg = encoded("jpeg")
    frame = next(at for at in range(2, len(jpeg)) if jpeg[at : at + 2] == b"\xff\xc0")
    length = struct.unpack(">H", jpeg[frame + 2 : frame + 4])[0]
    assert not is_complete_image(jpeg[:frame] + jpeg[frame + 2 + length :])
    webp = bytearray(encoded("webp-lossy"))
    webp[4:8] = struct.pack("<I", len(webp))  # 8 bytes more than the file holds
    assert not is_complete_image(bytes(webp))
