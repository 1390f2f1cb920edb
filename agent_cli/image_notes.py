"""The text a request carries in place of each image it leaves out, and what that does to
the request's tokens. Pure.

Contract: `left_out_note(edge, pointer, kept)` is the text sent in place of an image of
`edge` (`image_limits.Edge`: its long edge, unread or incomplete) with its `pointer` (None:
none), in a request that sends `kept` images (`image_limits.left_out_reason`).
`find_view_images(message)` lists the images of one view message in the order the request
carries them (top-level image blocks and those in a tool_result's content), each with its
edge, its pointer and the tokens the API bills
for it (`image_size.image_tokens`). `left_out_excess(images, count_text)` is what the
request of a view holding `images` (oldest first) carries beyond a count that weighs every
image at its pixels: for each image the rule leaves out (`image_limits.images_left_out`),
its note's tokens (by `count_text`) less the image's. Negative when the left-out images
are larger than their notes.

Why: a count per message weighs an image by its pixels, but which images a request leaves
out depends on the whole view, and a note weighs ~60 tokens where a small image weighs 1:
500 notes of 1x1 images sent a request 5% over `--hard-limit`, 2,000 sent one past the
200k window. Every figure of a view (its measure, the compaction run's last figure) adds
this excess to the sum of its messages' counts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from agent_cli.image_limits import (
    POINTER_KEY,
    Edge,
    image_edge,
    images_left_out,
    left_out_reason,
)
from agent_cli.image_size import image_tokens


@dataclass(frozen=True, slots=True)
class ViewImage:
    """An image of a view: its edge (`image_limits.Edge`), pointer and pixel tokens."""

    edge: Edge
    pointer: str | None
    tokens: int


def left_out_note(edge: Edge, pointer: str | None, kept: int) -> str:
    """The text sent in place of a left-out image (module contract)."""
    size = f" ({edge:,} px on its long side)" if isinstance(edge, int) else ""  # (reason says)
    where = f"; it is stored as {pointer}" if pointer else ""
    return f"[an image{size} not sent in this request: {left_out_reason(edge, kept)}{where}]"


def find_view_images(message: Any) -> tuple[ViewImage, ...]:
    """The images of one view message, in request order (module contract)."""
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return ()
    found: list[ViewImage] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "image":
            found.append(_view_image(block))
        elif block.get("type") == "tool_result" and isinstance(block.get("content"), list):
            found.extend(_view_image(part) for part in block["content"] if _is_image(part))
    return tuple(found)


def view_images(messages: Iterable[Any]) -> list[ViewImage]:
    """The images of `messages`, oldest first."""
    return [image for message in messages for image in find_view_images(message)]


def left_out_excess(images: Sequence[ViewImage], count_text: Callable[[str], int]) -> int:
    """Tokens the notes of the left-out images of `images` weigh beyond those images
    (module contract)."""
    return sum(left_out_deltas(images, count_text).values())


def left_out_deltas(
    images: Sequence[ViewImage], count_text: Callable[[str], int]
) -> dict[int, int]:
    """`left_out_excess` image by image: the position in `images` of each one left out, and
    its note's tokens less its own."""
    left_out = images_left_out([image.edge for image in images])
    kept = len(images) - len(left_out)
    return {
        at: count_text(left_out_note(images[at].edge, images[at].pointer, kept)) - images[at].tokens
        for at in left_out
    }


def _view_image(block: dict[str, Any]) -> ViewImage:
    source = block.get("source")
    pointer = block.get(POINTER_KEY)
    return ViewImage(
        image_edge(source), pointer if isinstance(pointer, str) else None, image_tokens(source)
    )


def _is_image(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "image"
