"""The outcome of re-verifying one source pointer: a frozen value with one of five statuses.

Contract: only `available` carries the full sha256 of the evidence and may carry an
excerpt (bounded by the resolver); every other status carries neither, so nothing
downstream can mistake an unverified pointer for evidence. `reason` is a short code
("ok", "not_found", "symlink", "digest_mismatch", ...), never file contents; it is
folded to one line like all durable text, and the renderer quotes it if needed. Pure value
type, shared by the resolver (I/O) and the durable renderer (pure).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from agent_cli.durable.text import require_text
from agent_cli.errors import DurableStateError

_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


class SourceResolutionStatus(StrEnum):
    """What re-verifying a pointer found."""

    AVAILABLE = "available"  # the owner file exists and structure, owner and digest check out
    MISSING = "missing"  # no such file or record, including one that vanished mid-read
    DENIED = "denied"  # authorisation, a symlink, or the root boundary said no
    CORRUPT = "corrupt"  # malformed pointer, bad record envelope, bad UTF-8, bad digest
    UNSUPPORTED = "unsupported"  # a scheme this program does not own


@dataclass(frozen=True)
class SourceResolution:
    """One pointer's verification result, frozen as observed at resolution time."""

    pointer: str
    status: SourceResolutionStatus
    reason: str
    evidence_sha256: str | None = None
    excerpt: str | None = None
    excerpt_truncated: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.pointer, str):
            raise DurableStateError("pointer", "not_text")
        try:
            object.__setattr__(self, "status", SourceResolutionStatus(self.status))
        except ValueError as exc:
            raise DurableStateError("status", "unknown_status") from exc
        object.__setattr__(self, "reason", require_text("reason", self.reason))
        self._check_evidence()

    def _check_evidence(self) -> None:
        if self.status is SourceResolutionStatus.AVAILABLE:
            if not isinstance(self.evidence_sha256, str) or not _SHA256_HEX.fullmatch(
                self.evidence_sha256
            ):
                raise DurableStateError("evidence_sha256", "required_when_available")
            if self.excerpt is not None and not isinstance(self.excerpt, str):
                raise DurableStateError("excerpt", "not_text")
            return
        if self.evidence_sha256 is not None:
            raise DurableStateError("evidence_sha256", "only_when_available")
        if self.excerpt is not None or self.excerpt_truncated:
            raise DurableStateError("excerpt", "only_when_available")

    @property
    def is_available(self) -> bool:
        return self.status is SourceResolutionStatus.AVAILABLE
