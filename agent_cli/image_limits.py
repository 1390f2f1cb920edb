"""The Messages API's limits on the images of one request, and which images a request leaves
out to keep them. Pure.

The API refuses a whole request (a 400, and every later request holding the same image
with it) when one image is over `MAX_EDGE` pixels on a side, when it holds more than
`MAX_IMAGES` images, or when it holds more than `MANY_IMAGES` and one of them is over
`MANY_IMAGES_MAX_EDGE` pixels on a side; and it refuses an image it cannot decode. An image
over `MAX_EDGE`, whose size cannot be read (it may be over it), or whose file is incomplete or
damaged (`image_completeness`: a tool that cut its output) is never sent at all
(`is_refused`, the gate where an image enters the view); the other two limits are kept per
request, since the view may hold any number of images.

Contract: `image_edge(source)` is an image's `Edge`: its long edge in pixels as its header
declares it (`image_size`), None when that cannot be read, or `INCOMPLETE` when its file is
not whole. Finding that decodes the whole image (tens of ms for a 5 MB PNG; never one
declared over `MAX_EDGE`, refused whatever it holds), so a frozen
source (`agent_cli.frozen`, as the session's view holds them) is checked once and holds its
answer. `decoded_image_edge(raw)` is the same for bytes already decoded.

`images_left_out(edges)` takes the `Edge` of each image of a request, oldest first, and
returns the positions of the images the request must leave out so that the API takes it.
Of all the sets of images the API takes, the one kept is the one that keeps the newest
images (compared newest first): when one of the newest `MANY_IMAGES` is over
`MANY_IMAGES_MAX_EDGE`, those `MANY_IMAGES` are sent and every older one is left out (a
screenshot workflow keeps seeing its latest screenshots); else the older images over
`MANY_IMAGES_MAX_EDGE` are left out first, and then any beyond the newest `MAX_IMAGES`.
An image over `MAX_EDGE`, of unread size or incomplete is always left out (a view resumed
from a transcript written before the gate, or any other path): it counts for none of the
other limits.

The boundary moves in steps (`MAX_IMAGES_STEP`, `MANY_IMAGES_STEP`): past a limit, the
oldest images are left out in whole steps, so a request keeps between the limit less a
step (plus one) and the limit itself, and the next images of the next turns leave the
same ones out until the limit is passed again. Why: the notes sit near the start of the
request, in the prompt cache's prefix; a set that slid by one image a turn made every
request write the whole history to the cache again (1,543 -> 20,151 tokens a turn).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from enum import Enum
from typing import Any

from agent_cli.frozen import FrozenDict
from agent_cli.image_completeness import is_complete_image
from agent_cli.image_size import decoded_image_size, image_size

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
INCOMPLETE_FILE = (
    "its file is incomplete or damaged (cut short, or not whole for its type), and the API "
    "refuses an image it cannot decode in any request"
)


class Incomplete(Enum):
    """The edge of an image whose file is not whole (`image_completeness`)."""

    FILE = "incomplete"


INCOMPLETE = Incomplete.FILE
Edge = int | Incomplete | None  # the long edge in pixels; None: unread; INCOMPLETE: not whole


def image_edge(source: Any) -> Edge:
    """The `Edge` of an image `source` (module contract); a frozen source computes it once."""
    if isinstance(source, FrozenDict):
        return source.derived(_source_edge)
    return _source_edge(source)


def _source_edge(source: Any) -> Edge:
    size = image_size(source)  # its header alone: None for anything but readable base64
    if size is None or max(size) > MAX_EDGE:  # (refused whole: never decoded)
        return None if size is None else max(size)
    try:
        raw = base64.b64decode(source["data"], validate=True)
    except (binascii.Error, ValueError):
        return INCOMPLETE  # its header reads, the rest does not decode
    return max(size) if is_complete_image(raw) else INCOMPLETE


def decoded_image_edge(raw: bytes) -> Edge:
    """The `Edge` of an image's decoded bytes `raw` (module contract)."""
    size = decoded_image_size(raw)
    if size is None or max(size) > MAX_EDGE:  # (refused whole: never decoded)
        return None if size is None else max(size)
    return max(size) if is_complete_image(raw) else INCOMPLETE


def is_over_max_edge(edge: Edge) -> bool:
    """True for an image the API refuses whatever the request holds."""
    return isinstance(edge, int) and edge > MAX_EDGE


def is_refused(edge: Edge) -> bool:
    """True for an image never sent: over `MAX_EDGE`, of a size that cannot be read (a
    decoder may find it over), or incomplete (a decoder cannot read it): one refused image
    fails every later request."""
    return not isinstance(edge, int) or is_over_max_edge(edge)


def images_left_out(edges: Sequence[Edge]) -> tuple[int, ...]:
    """Positions in `edges` (oldest first) of the images a request leaves out, in order
    (module contract)."""
    over = {at for at, edge in enumerate(edges) if is_refused(edge)}
    sendable = [at for at in range(len(edges)) if at not in over]
    left_out = over.union(_left_out_of(sendable, edges))
    return tuple(sorted(left_out))


def _left_out_of(sendable: list[int], edges: Sequence[Edge]) -> list[int]:
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


def _is_large(edge: Edge) -> bool:
    return not isinstance(edge, int) or edge > MANY_IMAGES_MAX_EDGE


def left_out_reason(edge: Edge, kept: int) -> str:
    """Why an image of `edge` is left out of a request that sends `kept` images, in a few
    words for the text sent in its place."""
    if edge is None:
        return UNREAD_SIZE
    if edge is INCOMPLETE:
        return INCOMPLETE_FILE
    if is_over_max_edge(edge):
        return f"it is over {MAX_EDGE:,} px on a side, which the API refuses in any request"
    if kept <= MANY_IMAGES or _is_large(edge):
        return (
            f"the API takes at most {MANY_IMAGES} images a request when one is over "
            f"{MANY_IMAGES_MAX_EDGE:,} px on a side, and the newer ones were sent"
        )
    return f"the API takes at most {MAX_IMAGES} images a request, and the newer ones were sent"
