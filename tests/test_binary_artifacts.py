"""A stored artifact that is not text (an MCP image, audio, a blob) is recalled as what it
is, never as its bytes and never as corrupt: images written by a real encoder (Pillow) and
crafted ones, read through the resolver recall uses, from real files."""

from __future__ import annotations

import hashlib
import io
import struct
from pathlib import Path

import pytest
from PIL import Image

from agent_cli.recall import Recall
from agent_cli.sources.binary_artifacts import describe_binary


def _encoded(width: int, height: int, form: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (9, 99, 199)).save(out, format=form)
    return out.getvalue()


def _store(home: Path, name: str, data: bytes) -> str:
    folder = home / "artifacts" / "s1" / "tool-results"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)
    return f"artifact:s1:{name}:{hashlib.sha256(data).hexdigest()[:12]}"


@pytest.mark.parametrize(
    ("form", "kind", "suffix"),
    [
        ("PNG", "PNG", ".png"),
        ("JPEG", "JPEG", ".jpg"),
        ("GIF", "GIF", ".gif"),
        ("WEBP", "WebP", ".webp"),
    ],
)
def test_recall_of_a_stored_image_says_what_it_is(
    form: str, kind: str, suffix: str, tmp_path
) -> None:
    data = _encoded(640, 48, form)
    pointer = _store(tmp_path, "20260101-000000-ab12cd" + suffix, data)
    recall = Recall("s1", tmp_path / "transcripts", tmp_path / "artifacts")
    page = recall.answer(pointer).text
    assert f"(available, sha256 {hashlib.sha256(data).hexdigest()})" in page
    assert f"[a stored {kind} image, 640 x 48 px, {len(data):,} bytes: an image, not text" in page
    assert "corrupt" not in page


def test_a_gif_is_described_by_its_largest_frame_and_other_binary_by_its_bytes() -> None:
    lying = (
        b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff"
        + b",\x00\x00\x00\x00"
        + struct.pack("<HH", 9000, 2)
        + b"\x00\x02\x02D\x01\x00;"
    )
    assert describe_binary(lying, len(lying)).startswith(
        "[a stored GIF image, 9,000 x 2 px, 35 bytes"
    )
    text_first = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 3) + b"tEXta\x00b" + b"\0" * 40
    assert "a stored PNG image, its pixel size not read, 63 bytes" in describe_binary(
        text_first, 63
    )
    audio = b"RIFF\x00\x00\x00\x00WAVEfmt \xff\xfe"
    assert describe_binary(audio, 1_234_567) == (
        "[binary data, 1,234,567 bytes, stored as given: not UTF-8 text, so recall cannot show it]"
    )
