"""The fake Messages API's limits on the images of one request, as the real API applies them.

`check_images(messages)` raises `RequestRejected` (400 `invalid_request_error`, in the real
API's words) when a request holds an image over 8,000 px on a side, more than 100 images,
or more than 20 images of which one is over 2,000 px on a side. Images are counted wherever
they sit (message blocks and a tool_result's content) and sized by a decoder (Pillow, through
`bench.prompt_cache.billed_size`), not by agent-cli's header readers: an oracle of its own.
Data that does not decode is not sized here (the real API would refuse it for that).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from typing import Any

from fake_anthropic_params import RequestRejected, reject

from bench.prompt_cache import billed_size

MAX_EDGE = 8_000
MAX_IMAGES = 100
MANY_IMAGES = 20
MANY_IMAGES_MAX_EDGE = 2_000


def check_images(messages: list[Any]) -> None:
    """Raise `RequestRejected` for a request whose images the real API refuses (module doc)."""
    sized = [(where, _size(block)) for where, block in _images(messages)]
    for where, size in sized:
        if size is not None and max(size) > MAX_EDGE:
            raise reject(
                f"{where}.source.base64.data: image dimensions exceed max allowed size: "
                f"{MAX_EDGE} pixels"
            )
    if len(sized) > MAX_IMAGES:
        raise reject(f"messages: too many images in the request: {len(sized)} > {MAX_IMAGES}")
    if len(sized) > MANY_IMAGES:
        for where, size in sized:
            if size is not None and max(size) > MANY_IMAGES_MAX_EDGE:
                raise reject(
                    f"{where}.source.base64.data: At least one of the image dimensions exceed "
                    f"max allowed size for many-image requests: {MANY_IMAGES_MAX_EDGE} pixels"
                )


def _images(messages: list[Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for index, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        for position, block in enumerate(content):
            where = f"messages.{index}.content.{position}"
            if not isinstance(block, dict):
                continue
            if block.get("type") == "image":
                yield f"{where}.image", block
            elif block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                for part_at, part in enumerate(block["content"]):
                    if isinstance(part, dict) and part.get("type") == "image":
                        yield f"{where}.content.{part_at}.image", part


def _size(block: dict[str, Any]) -> tuple[int, int] | None:
    source = block.get("source")
    if not isinstance(source, dict) or source.get("type") != "base64":
        return None
    try:
        data = base64.b64decode(str(source.get("data")), validate=True)
    except (binascii.Error, ValueError):
        return None
    return billed_size(data)


__all__ = ["RequestRejected", "check_images"]
