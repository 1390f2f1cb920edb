"""Whether an item's source still holds what the item was made from.

Contract: a resolution says whether a pointer leads to intact evidence now (one of the
five statuses); an item also remembers the sha256 that evidence had when the item was
made (`evidence_sha256`). `item_source_status` joins the two: the resolution's status,
except `CHANGED` when the source is available but its digest is no longer the recorded
one, so a source edited since `/remember` is never shown as verified. An item without a
recorded digest (saved before digests were kept) gets the resolution's status, as before.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping

from agent_cli.durable.model import DurableContextState
from agent_cli.sources.resolution import SourceResolution

CHANGED = "changed"


def is_source_changed(recorded_sha256: str | None, resolution: SourceResolution) -> bool:
    """True when the source is available and no longer has the digest recorded for it."""
    return (
        recorded_sha256 is not None
        and resolution.is_available
        and resolution.evidence_sha256 != recorded_sha256
    )


def item_source_status(recorded_sha256: str | None, resolution: SourceResolution) -> str:
    """The status to show for an item: `CHANGED`, or its resolution's status."""
    if is_source_changed(recorded_sha256, resolution):
        return CHANGED
    return resolution.status.value


def source_statuses(
    state: DurableContextState, resolutions: Mapping[str, SourceResolution]
) -> dict[str, str]:
    """Each pointer of the state that has a resolution, with its status as shown: `CHANGED`
    when any fact or pending item made from it recorded a digest its source no longer has."""
    recorded = [(fact.source_pointer, fact.evidence_sha256) for fact in state.facts]
    recorded += [(item.source_pointer, item.evidence_sha256) for item in state.pending_items]
    statuses = {pointer: res.status.value for pointer, res in resolutions.items()}
    for pointer, digest in recorded:
        resolution = resolutions.get(pointer)
        if resolution is not None and is_source_changed(digest, resolution):
            statuses[pointer] = CHANGED
    return statuses
