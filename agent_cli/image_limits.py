"""The Messages API's limits on the images of one request, and which images a request leaves
out to keep them. Pure.

The API refuses a whole request (a 400, and every later request holding the same image
with it) when one image is over `MAX_EDGE` pixels on a side, when it holds more than
`MAX_IMAGES` images, or when it holds more than `MANY_IMAGES` and one of them is over
`MANY_IMAGES_MAX_EDGE` pixels on a side. An image over `MAX_EDGE`, or whose size cannot be
read (it may be over it), is never sent at all (`is_refused`, the gate where an image enters
the view); the other two limits are kept per request, since the view may hold any number of
images.

Contract: `images_left_out(edges)` takes the long edge of each image of a request, oldest
first (None where its size cannot be read), and
returns the positions of the images the request must leave out so that the API takes it.
Of all the sets of images the API takes, the one kept is the one that keeps the newest
images (compared newest first): when one of the newest `MANY_IMAGES` is over
`MANY_IMAGES_MAX_EDGE`, those `MANY_IMAGES` are sent and every older one is left out (a
screenshot workflow keeps seeing its latest screenshots); else the older images over
`MANY_IMAGES_MAX_EDGE` are left out first, and then any beyond the newest `MAX_IMAGES`.
An image over `MAX_EDGE` or of unread size is always left out (a view resumed from a
transcript written before the gate, or any other path): it counts for none of the other
limits.

The boundary moves in steps (`MAX_IMAGES_STEP`, `MANY_IMAGES_STEP`): past a limit, the
oldest images are left out in whole steps, so a request keeps between the limit less a
step (plus one) and the limit itself, and the next images of the next turns leave the
same ones out until the limit is passed again. Why: the notes sit near the start of the
request, in the prompt cache's prefix; a set that slid by one image a turn made every
request write the whole history to the cache again (1,543 -> 20,151 tokens a turn).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_cli.image_size import image_size

MAX_EDGE = 8_000  # pixels on a side: the API refuses any image over it
MAX_IMAGES = 100  # images in one request
MANY_IMAGES = 20  # past this many images in a request, each must be within the next limit
MANY_IMAGES_MAX_EDGE = 2_000
# The left-out boundary moves in steps of this many images (module doc: the prompt cache)
MAX_IMAGES_STEP = 25
MANY_IMAGES_STEP = 10
POINTER_KEY = "_pointer"  # an image block's own: where its bytes are stored (never sent)
UNREAD_SIZE = (
    f"its size could not be read, and the API refuses an image over {MAX_EDGE:,} px on a side "
    "in any request"
)


def image_edge(source: Any) -> int | None:
    """The long edge in pixels that an image `source` declares, or None (`image_size`)."""
    size = image_size(source)
    return None if size is None else max(size)


def is_over_max_edge(edge: int | None) -> bool:
    """True for an image the API refuses whatever the request holds."""
    return edge is not None and edge > MAX_EDGE


def is_refused(edge: int | None) -> bool:
    """True for an image never sent: over `MAX_EDGE`, or of a size that cannot be read
    (a decoder may find it over; one refused image fails every later request)."""
    return edge is None or is_over_max_edge(edge)


def images_left_out(edges: Sequence[int | None]) -> tuple[int, ...]:
    """Positions in `edges` (oldest first) of the images a request leaves out, in order
    (module contract)."""
    over = {at for at, edge in enumerate(edges) if is_refused(edge)}
    sendable = [at for at in range(len(edges)) if at not in over]
    left_out = over.union(_left_out_of(sendable, edges))
    return tuple(sorted(left_out))


def _left_out_of(sendable: list[int], edges: Sequence[int | None]) -> list[int]:
    """Of the `sendable` positions (oldest first), those the count limits leave out."""
    if len(sendable) <= MANY_IMAGES:
        return []
    newest = sendable[-MANY_IMAGES:]
    if any(_is_large(edges[at]) for at in newest):
        return sendable[: _stepped(len(sendable), MANY_IMAGES, MANY_IMAGES_STEP)]
    small = [at for at in sendable if not _is_large(edges[at])]
    kept = set(small[_stepped(len(small), MAX_IMAGES, MAX_IMAGES_STEP) :])
    return [at for at in sendable if at not in kept]


def _stepped(count: int, limit: int, step: int) -> int:
    """How many of `count` images, oldest first, are left out to keep at most `limit`: the
    excess rounded up to whole `step`s (module doc), never more than there are."""
    if count <= limit:
        return 0
    return min(count, -(-(count - limit) // step) * step)


def _is_large(edge: int | None) -> bool:
    return edge is None or edge > MANY_IMAGES_MAX_EDGE


def left_out_reason(edge: int | None, kept: int) -> str:
    """Why an image of long edge `edge` is left out of a request that sends `kept` images,
    in a few words for the text sent in its place."""
    if edge is None:
        return UNREAD_SIZE
    if is_over_max_edge(edge):
        return f"it is over {MAX_EDGE:,} px on a side, which the API refuses in any request"
    if kept <= MANY_IMAGES or _is_large(edge):
        return (
            f"the API takes at most {MANY_IMAGES} images a request when one is over "
            f"{MANY_IMAGES_MAX_EDGE:,} px on a side, and the newer ones were sent"
        )
    return f"the API takes at most {MAX_IMAGES} images a request, and the newer ones were sent"
