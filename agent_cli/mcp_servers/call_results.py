"""What an MCP tool call returned, as a tool result like any other.

Contract: `render_call_result(server, tool, items, is_error, save_blob)` turns the
content items of a call (plain dicts as the SDK dumps them: `type` text, image, audio,
resource or resource_link) into a `ToolResult` whose header names the server and tool
and whose body holds the text in order, and the image blocks to send with it. Binary
content (images, audio, blob resources) is handed to `save_blob(data, suffix)`, which
stores it and returns a pointer, and is named in the text with its type and size; an
image the Messages API takes in a tool_result (PNG, JPEG, GIF or WebP, at most
`MAX_IMAGE_BYTES`, at most `MAX_IMAGES` a call) is also sent as an image block, so the
model sees it. Data that is not valid base64 is named as dropped. Anything else is named as unsupported, never silently lost. The result then
goes the way of every tool result (redacted, bounded, spilled with a pointer when big).
Pure but for `save_blob`.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from agent_cli.tools.output import ToolResult, format_size

BlobSaver = Callable[[bytes, str], str]
API_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
MAX_IMAGE_BYTES = 3_750_000  # 5 MB once base64-encoded, the API's limit for one image
MAX_IMAGES = 8
SUFFIXES = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
    "audio/wav": ".wav",
    "audio/mpeg": ".mp3",
}


def render_call_result(
    server: str,
    tool: str,
    items: Iterable[Mapping[str, Any]],
    is_error: bool,
    save_blob: BlobSaver,
) -> tuple[ToolResult, tuple[dict[str, Any], ...]]:
    """The call's result and the image blocks to send with it (module contract)."""
    items = list(items)
    parts = [_render_item(item, save_blob) for item in items]
    body = "\n".join(part for part in parts if part)
    state = "error" if is_error else "ok"
    result = ToolResult(
        header=f"MCP {server} {tool}: {state}",
        body=body or "(no content)",
        is_error=is_error,
        summary=f"{state}, {format_size(len(body.encode('utf-8')))}",
    )
    return result, tuple(_api_images(items))


def _api_images(items: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Image blocks for the images the Messages API takes (module contract)."""
    images: list[dict[str, Any]] = []
    for item in items:
        mime, data = _text(item.get("mimeType")), item.get("data")
        if item.get("type") != "image" or mime not in API_IMAGE_TYPES or not isinstance(data, str):
            continue
        try:
            size = len(base64.b64decode(data, validate=True))
        except (binascii.Error, ValueError):
            continue
        if 0 < size <= MAX_IMAGE_BYTES and len(images) < MAX_IMAGES:
            images.append(
                {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}
            )
    return images


def _render_item(item: Mapping[str, Any], save_blob: BlobSaver) -> str:
    kind = item.get("type")
    if kind == "text":
        text = item.get("text")
        return text if isinstance(text, str) else "[a text item without text]"
    if kind in ("image", "audio"):
        return _binary(kind, item.get("data"), _text(item.get("mimeType")), save_blob)
    if kind == "resource":
        return _resource(item.get("resource"), save_blob)
    if kind == "resource_link":
        return f"[resource link: {_text(item.get('name'))} {_text(item.get('uri'))}]".replace(
            "  ", " "
        )
    return f"[content of type {_text(kind)[:40] or 'unknown'} is not supported; dropped]"


def _resource(resource: Any, save_blob: BlobSaver) -> str:
    if not isinstance(resource, Mapping):
        return "[a resource item without a resource; dropped]"
    uri = _text(resource.get("uri"))
    if isinstance(resource.get("text"), str):
        return f"[resource {uri}]\n{resource['text']}"
    return _binary(
        "resource", resource.get("blob"), _text(resource.get("mimeType")), save_blob, uri
    )


def _binary(kind: str, data: Any, mime: str, save_blob: BlobSaver, uri: str = "") -> str:
    named = " ".join(part for part in (kind, uri, mime) if part)
    try:
        raw = base64.b64decode(data if isinstance(data, str) else "", validate=True)
    except (binascii.Error, ValueError):
        return f"[{named}: its data was not valid base64; dropped]"
    pointer = save_blob(raw, SUFFIXES.get(mime, ".bin"))
    return f"[{named}, {format_size(len(raw))}, saved as {pointer}]"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
