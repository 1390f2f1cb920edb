"""Opening evidence files under a trusted root without following any link.

Contract: `open_beneath(root, parts)` opens the root (trusted configuration, which may
itself be a link), then walks below it with the one no-follow walker
(`agent_cli.nofollow_open`, shared with the file tools): each component opened relative
to its parent's descriptor with `O_NOFOLLOW`, a descriptor returned only for a regular
file. A symlink anywhere below the root is denied, whether it was there before the call
or swapped in during it: the check *is* the open. Failures raise `SourceUnavailable`
with the status and a short reason code.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from agent_cli.errors import PathStepRefused, SourceUnavailable
from agent_cli.nofollow_open import OpenAt, open_file_beneath, os_open_at

__all__ = [
    "CHUNK_BYTES",
    "ReadAt",
    "check_still_linked",
    "corrupt",
    "denied",
    "missing",
    "open_beneath",
    "read_span",
]

ReadAt = Callable[[int, int, int], bytes]
"""`read_at(fd, size, offset) -> bytes`, like `os.pread`; injectable for fault tests."""

CHUNK_BYTES = 1 << 20


def missing(reason: str) -> SourceUnavailable:
    return SourceUnavailable("missing", reason)


def denied(reason: str) -> SourceUnavailable:
    return SourceUnavailable("denied", reason)


def corrupt(reason: str) -> SourceUnavailable:
    return SourceUnavailable("corrupt", reason)


# A refused step as a resolution status; anything unlisted reads as unreadable.
_DENIED_STEPS = {
    "symlink": "symlink",
    "permission": "permission",
    "not_a_plain_name": "not_a_plain_name",
    "is_a_directory": "not_a_regular_file",
    "not_a_regular_file": "not_a_regular_file",
}
_MISSING_STEPS = {"not_found": "not_found", "not_a_directory": "not_a_directory"}


def _status_of(refusal: PathStepRefused) -> SourceUnavailable:
    if refusal.reason in _DENIED_STEPS:
        return denied(_DENIED_STEPS[refusal.reason])
    return missing(_MISSING_STEPS.get(refusal.reason, "unreadable"))


def _open_root(root: str, open_at: OpenAt) -> int:
    try:
        return open_at(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, None)
    except FileNotFoundError as exc:
        raise missing("root_not_found") from exc
    except PermissionError as exc:
        raise denied("permission") from exc
    except OSError as exc:
        raise missing("root_unreadable") from exc


def open_beneath(
    root: str, parts: Sequence[str], open_at: OpenAt = os_open_at
) -> tuple[int, os.stat_result]:
    """Open `root/parts...` as a regular file, refusing links; returns (fd, fstat)."""
    root_fd = _open_root(root, open_at)
    try:
        return open_file_beneath(root_fd, parts, os.O_RDONLY, open_at)
    except PathStepRefused as refusal:
        raise _status_of(refusal) from refusal
    finally:
        os.close(root_fd)


def read_span(fd: int, offset: int, size: int, read_at: ReadAt) -> bytes:
    """Exactly `size` bytes from `offset`; a short read means the file shrank under us."""
    pieces: list[bytes] = []
    remaining = size
    while remaining > 0:
        piece = read_at(fd, min(remaining, CHUNK_BYTES), offset)
        if not piece:
            raise missing("vanished")
        pieces.append(piece)
        offset += len(piece)
        remaining -= len(piece)
    return b"".join(pieces)


def check_still_linked(fd: int) -> None:
    """A file unlinked while we read it is gone: its evidence cannot be shown again."""
    if os.fstat(fd).st_nlink == 0:
        raise missing("vanished")
