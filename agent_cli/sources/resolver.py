"""Source pointers: parse them (pure), and re-verify them against the stores (I/O).

A pointer string is not evidence. Before the durable state is rendered into a request,
each of its pointers is resolved again: authorised, located under its trusted root
without following links, and checked (a transcript record's envelope, an artifact's
digest). The outcome is one of five statuses (`SourceResolutionStatus`); only
`available` carries the evidence's full sha256 and a bounded excerpt.

Parsing lives in `agent_cli.sources.pointers`, the resolution value in
`agent_cli.sources.resolution`, the file checks in `files`, `index`, `transcript_check`
and `artifact_check` (all in `agent_cli.sources`); this module wires them. The package's
`__init__` is the public face.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from agent_cli.durable.model import DurableContextState, distinct_source_pointers
from agent_cli.errors import (
    ConfigError,
    SourcePointerError,
    SourceUnavailable,
    UnknownSourceSchemeError,
)
from agent_cli.nofollow_open import OpenAt, os_open_at
from agent_cli.sources.artifact_check import verify_artifact
from agent_cli.sources.files import ReadAt
from agent_cli.sources.index import TranscriptOffsetIndex
from agent_cli.sources.pointers import (
    ParsedSourcePointer,
    parse_source_pointer,
)
from agent_cli.sources.resolution import SourceResolution, SourceResolutionStatus
from agent_cli.sources.transcript_check import (
    MAX_RECORD_BYTES,
    VerifiedEvidence,
    verify_transcript_record,
)

__all__ = [
    "SourcePointerResolver",
    "resolve_durable_sources",
]

Authorize = Callable[[ParsedSourcePointer], bool]


class SourcePointerResolver:
    """Re-verifies pointers under two trusted roots; `resolve` never raises for bad input.

    `authorize(parsed_pointer)` runs before any file is looked at; only a return value
    of exactly `True` allows the lookup, and a callback that raises counts as denied.
    Transcripts are `<transcript_root>/<session>.jsonl`; artifacts are
    `<artifact_root>/<session>/tool-results/<file>`. `read_at` (like `os.pread`) is the
    one seam through which file bytes are read, and `open_at` (like `os.open` with
    `dir_fd`) the one through which files are opened, so tests can inject faults. The offset
    index is kept in memory per resolver; the resolver is not thread-safe.
    """

    def __init__(
        self,
        transcript_root: str | Path,
        artifact_root: str | Path,
        authorize: Authorize | None = None,
        max_excerpt_chars: int = 2000,
        *,
        max_record_bytes: int = MAX_RECORD_BYTES,
        read_at: ReadAt = os.pread,
        open_at: OpenAt = os_open_at,
    ) -> None:
        for key, value in (
            ("max_excerpt_chars", max_excerpt_chars),
            ("max_record_bytes", max_record_bytes),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(key, "not_a_non_negative_integer")
        self.transcript_root = os.path.abspath(os.fspath(transcript_root))
        self.artifact_root = os.path.abspath(os.fspath(artifact_root))
        self.max_excerpt_chars = max_excerpt_chars
        self.max_record_bytes = max_record_bytes
        self._authorize = authorize
        self._read_at = read_at
        self._open_at = open_at
        self._index = TranscriptOffsetIndex()

    def resolve(self, pointer: str | ParsedSourcePointer) -> SourceResolution:
        """Verify one pointer now and freeze what was found."""
        text = pointer.text if isinstance(pointer, ParsedSourcePointer) else pointer
        if not isinstance(text, str):
            return SourceResolution("", SourceResolutionStatus.CORRUPT, "not_text")
        try:
            parsed = parse_source_pointer(text)
        except UnknownSourceSchemeError as exc:
            return SourceResolution(text, SourceResolutionStatus.UNSUPPORTED, exc.reason)
        except SourcePointerError as exc:
            return SourceResolution(text, SourceResolutionStatus.CORRUPT, exc.reason)
        refusal = self._refusal(parsed)
        if refusal is not None:
            return SourceResolution(text, SourceResolutionStatus.DENIED, refusal)
        try:
            evidence = self._verify(parsed)
        except SourceUnavailable as exc:
            return SourceResolution(text, SourceResolutionStatus(exc.status), exc.reason)
        except OSError:
            return SourceResolution(text, SourceResolutionStatus.MISSING, "unreadable")
        return self._available(text, evidence)

    def _refusal(self, parsed: ParsedSourcePointer) -> str | None:
        if self._authorize is None:
            return None
        try:
            allowed = self._authorize(parsed)
        except Exception:
            return "authorize_failed"
        return None if allowed is True else "not_authorized"

    def _verify(self, parsed: ParsedSourcePointer) -> VerifiedEvidence:
        if parsed.is_transcript:
            return verify_transcript_record(
                self.transcript_root,
                parsed,
                self._index,
                self._read_at,
                self.max_record_bytes,
                self._open_at,
            )
        return verify_artifact(
            self.artifact_root, parsed, self._read_at, self.max_excerpt_chars, self._open_at
        )

    def _available(self, text: str, evidence: VerifiedEvidence) -> SourceResolution:
        limit = self.max_excerpt_chars
        excerpt = evidence.text[:limit] if limit else None
        return SourceResolution(
            text,
            SourceResolutionStatus.AVAILABLE,
            "ok",
            evidence_sha256=evidence.sha256,
            excerpt=excerpt,
            excerpt_truncated=len(evidence.text) > limit,
        )


def resolve_durable_sources(
    state: DurableContextState, resolver: SourcePointerResolver
) -> tuple[SourceResolution, ...]:
    """Resolve each distinct pointer of `state` once, in first-seen order.

    Facts come first, then pending items; the result binds one-to-one to the state, as
    `render_durable_context` requires.
    """
    return tuple(resolver.resolve(pointer) for pointer in distinct_source_pointers(state))
