"""What an MCP tool call returned, as a tool result like any other.

Contract: `render_call_result(server, tool, items, is_error, save_blob, secrets)` turns
the content items of a call (plain dicts as the SDK dumps them: `type` text, image,
audio, resource or resource_link) into a `ToolResult` whose header names the server and
tool and whose body holds the text in order, and the image blocks to send with it.
Binary content (images, audio, blob resources) is handed to `save_blob(data, suffix)`,
which stores it and returns a pointer, and is named in the text with its type and size;
an image the Messages API takes in a tool_result (PNG, JPEG, GIF or WebP, at most
`MAX_IMAGE_BYTES`, at most `MAX_IMAGES` a call) is also sent as an image block, so the
model sees it, if its bytes begin with the signature of that type (else the text says
it was not sent: the API refuses an invalid image, and every later request with it). The
text of an image not sent for its size (over 5 MB, or over `image_limits.MAX_EDGE` pixels
on a side as a decoder sizes it, or of a size that cannot be read: `image_size`), for a file
that is not whole (cut short or damaged: `image_completeness`; the API refuses an image it
cannot decode) or past `MAX_IMAGES` says so and why, unlike that of one
sent, so the model knows which it never saw. An image block sent keeps its pointer under
the private `image_limits.POINTER_KEY` (never sent): a request that must leave it out names it.
Data that is not valid base64 is named as dropped. Anything else is named
as unsupported, never silently lost. The result then goes the way of every tool result
(redacted, bounded, spilled with a pointer when big). With `max_text_bytes` (the
toolbox's `ToolLimits.max_output_bytes`, the cap of a command's output) the text is cut
to that many bytes, never inside a secret form, and a note says how much was dropped:
nothing further (redaction, the artifact, `/last`) handles more than that. A result
with no text item but `structured` content (`structuredContent`, MCP 2025-06-18) shows
that as JSON text, so the model gets the data rather than "(no content)".

Secrets (`secrets`, the forms the toolbox redacts): binary content is stored with every
form redacted in its bytes (`SecretForms.redact_bytes`; the stored copy of an image is
then no valid image, and the text says how many values were redacted), and an image
whose bytes or base64 hold a form is never sent (`image_holds_secret`, which a resumed
view's images go through too): the text says it was withheld and why (`IMAGE_WITHHELD`).
Redacting the picture would not do (the base64 of changed bytes is another picture, or
none), and the model must not get the secret back by reading it. Pure but for
`save_blob`.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from agent_cli.image_limits import (
    INCOMPLETE,
    INCOMPLETE_FILE,
    MAX_EDGE,
    POINTER_KEY,
    UNREAD_SIZE,
    decoded_image_edge,
    is_refused,
)
from agent_cli.safe_cuts import safe_head_end
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.tools.output import ToolResult, count_noun, format_size

BlobSaver = Callable[[bytes, str], str]
API_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
MAX_IMAGE_BYTES = 3_750_000  # 5 MB once base64-encoded, the API's limit for one image
MAX_IMAGES = 8
IMAGE_WITHHELD = (
    "withheld from the model: it holds a secret agent-cli keeps (an API key or token), so "
    "it is not sent"
)
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
    secrets: SecretForms = NO_SECRETS,
    max_text_bytes: int | None = None,
    structured: Any = None,
) -> tuple[ToolResult, tuple[dict[str, Any], ...]]:
    """The call's result and the image blocks to send with it (module contract)."""
    rendering = _Rendering(save_blob, secrets)
    items = list(items)
    parts = [rendering.item(item) for item in items]
    if structured is not None and not any(item.get("type") == "text" for item in items):
        parts.append(_structured(structured))
    body = "\n".join(part for part in parts if part)
    if max_text_bytes is not None:
        body = _capped(body, max_text_bytes, secrets)
    state = "error" if is_error else "ok"
    result = ToolResult(
        header=f"MCP {server} {tool}: {state}",
        body=body or "(no content)",
        is_error=is_error,
        summary=f"{state}, {format_size(len(body.encode('utf-8')))}",
    )
    return result, tuple(rendering.images)


class _Rendering:
    """One call's items rendered in order, and the image blocks gathered on the way."""

    def __init__(self, save_blob: BlobSaver, secrets: SecretForms) -> None:
        self._save_blob = save_blob
        self._secrets = secrets
        self.images: list[dict[str, Any]] = []

    def item(self, item: Mapping[str, Any]) -> str:
        kind = item.get("type")
        if kind == "text":
            text = item.get("text")
            return text if isinstance(text, str) else "[a text item without text]"
        if kind in ("image", "audio"):
            return self._binary(str(kind), item.get("data"), _text(item.get("mimeType")))
        if kind == "resource":
            return self._resource(item.get("resource"))
        if kind == "resource_link":
            link = f"[resource link: {_text(item.get('name'))} {_text(item.get('uri'))}]"
            return link.replace("  ", " ")
        return f"[content of type {_text(kind)[:40] or 'unknown'} is not supported; dropped]"

    def _resource(self, resource: Any) -> str:
        if not isinstance(resource, Mapping):
            return "[a resource item without a resource; dropped]"
        uri = _text(resource.get("uri"))
        if isinstance(resource.get("text"), str):
            return f"[resource {uri}]\n{resource['text']}"
        return self._binary("resource", resource.get("blob"), _text(resource.get("mimeType")), uri)

    def _binary(self, kind: str, data: Any, mime: str, uri: str = "") -> str:
        named = " ".join(part for part in (kind, uri, mime) if part)
        data = data if isinstance(data, str) else ""
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            return f"[{named}: its data was not valid base64; dropped]"
        stored, redacted = self._secrets.redact_bytes(raw)
        pointer = self._save_blob(stored, SUFFIXES.get(mime, ".bin"))
        described = f"[{named}, {format_size(len(raw))}, saved as {pointer}"
        if redacted:
            values = count_noun(redacted, "secret value")
            described += f" with {values} held by agent-cli redacted from the stored copy"
        if kind != "image" or mime not in API_IMAGE_TYPES:
            return described + "]"
        if image_holds_secret(data, self._secrets):
            return described + f"; {IMAGE_WITHHELD}]"
        if not _looks_like(raw, mime):
            kind_name = mime.split("/")[1].upper()
            return described + (
                f"; not sent to the model: its bytes are not a {kind_name} image, and the API "
                "refuses an invalid image]"
            )
        if not 0 < len(raw) <= MAX_IMAGE_BYTES:
            return described + (
                "; not sent to the model: it is empty or over 5 MB once encoded, the most the "
                "API takes]"
            )
        edge = decoded_image_edge(raw)  # as a request reads it (`image_limits.image_edge`)
        if edge is None:
            return described + f"; not sent to the model: {UNREAD_SIZE}]"
        if edge is INCOMPLETE:
            return described + f"; not sent to the model: {INCOMPLETE_FILE}]"
        if is_refused(edge):
            return described + (
                f"; not sent to the model: it is {edge:,} px on its long side, over the "
                f"{MAX_EDGE:,} px the API takes, and the API refuses a request holding it]"
            )
        if len(self.images) >= MAX_IMAGES:  # the model must know which ones it never saw
            return described + (
                f"; not sent to the model: one call sends at most {MAX_IMAGES} images, and "
                f"{MAX_IMAGES} of this result were sent before it]"
            )
        source = {"type": "base64", "media_type": mime, "data": data}
        self.images.append({"type": "image", "source": source, POINTER_KEY: pointer})
        return described + "]"


def image_holds_secret(data: str, secrets: SecretForms) -> bool:
    """Whether an image given as base64 `data` holds a form of `secrets`: in the bytes it
    decodes to, or in the base64 text itself (which holds a form's base64 at any
    alignment). Data that is not valid base64 cannot be checked, so it counts as holding
    one. The one test for a live result and for an image of a resumed view."""
    if not secrets:
        return False
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return True
    return secrets.redact_bytes(raw)[1] > 0 or (
        secrets.pattern is not None and secrets.pattern.search(data) is not None
    )


def _looks_like(raw: bytes, mime: str) -> bool:
    """Whether `raw` begins with the signature of the image type `mime` names (PNG,
    JPEG, GIF, WebP): the API refuses an invalid image, and a refused image in the
    history would make every later request fail."""
    if mime == "image/png":
        return raw.startswith(b"\x89PNG\r\n\x1a\n")
    if mime == "image/jpeg":
        return raw.startswith(b"\xff\xd8\xff")
    if mime == "image/gif":
        return raw.startswith((b"GIF87a", b"GIF89a"))
    if mime == "image/webp":
        return raw[:4] == b"RIFF" and raw[8:12] == b"WEBP"
    return False


def _structured(value: Any) -> str:
    """A result's `structuredContent` as JSON text, for a result with no text item."""
    try:
        shown = json.dumps(value, ensure_ascii=False, indent=2)
    except (TypeError, ValueError, RecursionError):
        return "[structured content that is not JSON agent-cli can show; dropped]"
    return f"[structured content]\n{shown}"


def _capped(body: str, limit: int, secrets: SecretForms) -> str:
    """`body` whole when its UTF-8 fits `limit` bytes, else its head up to `limit` bytes
    (never ending inside a secret form) and a note of what was dropped."""
    if len(body) <= limit // 4:  # at most 4 bytes a character: it fits
        return body
    size = len(body.encode("utf-8"))
    if size <= limit:
        return body
    head = body.encode("utf-8")[:limit].decode("utf-8", errors="ignore")
    head = head[: safe_head_end(body, len(head), secrets)]
    dropped = size - len(head.encode("utf-8"))
    return head + (
        f"\n[The result reached the {format_size(limit)} cap of a tool's output; the other "
        f"{format_size(dropped)} were dropped. Ask the server for less, e.g. a page or a "
        "filter, if the tool has one.]"
    )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
