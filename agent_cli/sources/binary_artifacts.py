"""What a stored artifact that is not text is, in words recall can show in its place. Pure.

Contract: `describe_binary(head, size)` names bytes that are not UTF-8 text (an MCP image,
audio, a blob resource, stored as given): an image in one of the four formats the API takes
(PNG, JPEG, GIF, WebP, known by its signature) with its type, its size in bytes and its
pixel size where `head` (the artifact's first bytes, at most all of them) declares one
(`image_size.decoded_image_size`); any other as binary data of its size in bytes. Never any
of the bytes themselves: they are not text to show, and a stored copy may have had secrets
redacted from it.
"""

from __future__ import annotations

from agent_cli.image_size import decoded_image_size

HEAD_BYTES = 4_194_304  # an artifact's first bytes kept to read an image's size (over 5 MB
# encoded, no image is sent at all)
_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "PNG"),
    (b"\xff\xd8\xff", "JPEG"),
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
)


def describe_binary(head: bytes, size: int) -> str:
    """The words shown for a binary artifact of `size` bytes beginning `head` (module
    contract)."""
    kind = _image_kind(head)
    if kind is None:
        return (
            f"[binary data, {size:,} bytes, stored as given: not UTF-8 text, so recall "
            "cannot show it]"
        )
    pixels = decoded_image_size(head)
    measured = f"{pixels[0]:,} x {pixels[1]:,} px" if pixels else "its pixel size not read"
    return (
        f"[a stored {kind} image, {measured}, {size:,} bytes: an image, not text, so recall "
        "cannot show it]"
    )


def _image_kind(head: bytes) -> str | None:
    """The image format `head` begins with the signature of, or None."""
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WebP"
    for signature, kind in _SIGNATURES:
        if head.startswith(signature):
            return kind
    return None
