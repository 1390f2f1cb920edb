"""The images of a request on the wire: where each one sits, and the text sent in place of
those the request leaves out (`image_limits`: the API's limits on one request's images).

Contract: `find_images(blocks, sources)` lists the images of one message's cleaned wire
blocks (top-level image blocks and those in a tool_result's content), with the edge of
each (`image_limits.Edge`: its long edge, unread or incomplete) and the pointer its source block keeps (`image_limits.POINTER_KEY`); it
is derived once per frozen message, beside its wire blocks (`wire_message`).
`leave_out_images(messages, placed)` returns the wire messages with the images the rule
leaves out replaced by a text block saying the image was not sent in this request, why,
and its pointer when it has one. Only the request changes: the messages it is given are
shared with later requests and the view, so every dict and list on the way to a replaced
image is copied, never changed. Nothing is copied when nothing is left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent_cli.image_limits import POINTER_KEY, Edge, image_edge, images_left_out
from agent_cli.image_notes import left_out_note


@dataclass(frozen=True, slots=True)
class WireImage:
    """An image of one message or turn: its block, its place in that block's content (None
    for a top-level image block), its edge (`image_limits.Edge`) and its pointer."""

    block: int
    part: int | None
    edge: Edge
    pointer: str | None

    def moved(self, blocks: int) -> WireImage:
        """The same image in a turn where `blocks` blocks come before its message's."""
        return WireImage(self.block + blocks, self.part, self.edge, self.pointer)


@dataclass(frozen=True, slots=True)
class PlacedImage:
    """An image of a request: the wire message it is in, and where in it."""

    message: int
    image: WireImage


def find_images(blocks: Sequence[dict[str, Any]], sources: Sequence[Any]) -> tuple[WireImage, ...]:
    """The images of cleaned `blocks`, whose source blocks are `sources` (same order)."""
    found: list[WireImage] = []
    for at, (block, source) in enumerate(zip(blocks, sources, strict=True)):
        if block["type"] == "image":
            found.append(WireImage(at, None, image_edge(block["source"]), _pointer(source)))
        elif block["type"] == "tool_result" and isinstance(block.get("content"), list):
            found.extend(_result_images(at, block["content"], source.get("content")))
    return tuple(found)


def _result_images(at: int, parts: list[Any], sources: Any) -> list[WireImage]:
    """The images of a tool_result's cleaned content; its source images in the same order
    (cleaning drops empty text only, never an image)."""
    kept = [source for source in sources if _is_image(source)] if isinstance(sources, list) else []
    found: list[WireImage] = []
    for position, part in enumerate(parts):
        if part["type"] == "image":
            source = kept[len(found)] if len(found) < len(kept) else None
            found.append(WireImage(at, position, image_edge(part["source"]), _pointer(source)))
    return found


def _is_image(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "image"


def _pointer(source: Any) -> str | None:
    pointer = source.get(POINTER_KEY) if isinstance(source, dict) else None
    return pointer if isinstance(pointer, str) else None


def leave_out_images(
    messages: list[dict[str, Any]], placed: Sequence[PlacedImage]
) -> list[dict[str, Any]]:
    """`messages` with the images the rule leaves out replaced (module contract)."""
    left_out = images_left_out([image.image.edge for image in placed])
    if not left_out:
        return messages
    kept = len(placed) - len(left_out)
    out = list(messages)
    copied: set[int] = set()
    for at in left_out:
        image = placed[at]
        if image.message not in copied:
            out[image.message] = _copied_message(out[image.message])
            copied.add(image.message)
        _replace(out[image.message]["content"], image.image, _note(image.image, kept))
    return out


def _copied_message(message: dict[str, Any]) -> dict[str, Any]:
    """The message with its content list and each tool_result in it copied one level deep
    (their content lists too), so replacing an image changes nothing shared."""
    blocks = [
        {**block, "content": list(block["content"])}
        if block.get("type") == "tool_result" and isinstance(block.get("content"), list)
        else block
        for block in message["content"]
    ]
    return {**message, "content": blocks}


def _replace(blocks: list[dict[str, Any]], image: WireImage, note: str) -> None:
    if image.part is None:
        old = blocks[image.block]
        blocks[image.block] = _note_block(note, old)
    else:
        content = blocks[image.block]["content"]
        content[image.part] = _note_block(note, content[image.part])


def _note_block(note: str, old: dict[str, Any]) -> dict[str, Any]:
    """The text in place of `old`, with its cache breakpoint if it had one."""
    block: dict[str, Any] = {"type": "text", "text": note}
    if "cache_control" in old:
        block["cache_control"] = old["cache_control"]
    return block


def _note(image: WireImage, kept: int) -> str:
    return left_out_note(image.edge, image.pointer, kept)
