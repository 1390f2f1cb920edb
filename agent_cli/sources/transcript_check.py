"""Verify a `transcript:<session>:<sequence>` pointer against its JSONL record.

Contract: the record is found through the offset index, read with a bounded size (a
line over `max_record_bytes` is corrupt without being read), and must be a JSON object
whose envelope matches the pointer: the same session id, sequence and event id, a
positive schema version, a kind, a zoned `recorded_at` and a payload. The evidence hash
is the sha256 of the line's bytes without its newline.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any

from agent_cli.durable.text import parse_timestamp
from agent_cli.errors import DurableStateError, SourceUnavailable
from agent_cli.nofollow_open import OpenAt, os_open_at
from agent_cli.sources.files import (
    ReadAt,
    check_still_linked,
    corrupt,
    missing,
    open_beneath,
    read_span,
)
from agent_cli.sources.index import TranscriptOffsetIndex
from agent_cli.sources.pointers import ParsedSourcePointer

MAX_RECORD_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class VerifiedEvidence:
    """What a verifier hands back: the full digest and the decoded text it read (bounded)."""

    sha256: str
    text: str


def _read_line(fd: int, start: int, end: int, read_at: ReadAt) -> bytes:
    """The line's bytes, after checking it starts and ends on line boundaries."""
    head = start - 1 if start > 0 else start
    raw = read_span(fd, head, end + 1 - head, read_at)
    if (start > 0 and raw[:1] != b"\n") or raw[-1:] != b"\n":
        raise corrupt("unstable_file")
    return raw[1:-1] if start > 0 else raw[:-1]


def _decode_record(line: bytes) -> tuple[dict[str, Any], str]:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise corrupt("invalid_utf8") from exc
    try:
        record = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise corrupt("invalid_json") from exc
    if not isinstance(record, dict):
        raise corrupt("not_an_object")
    return record, text


def _is_positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def check_envelope(record: dict[str, Any], pointer: ParsedSourcePointer) -> None:
    """The record must be the one the pointer names, with a well-formed envelope."""
    if record.get("sequence") != pointer.sequence or not _is_positive_int(record.get("sequence")):
        raise corrupt("sequence_mismatch")
    if record.get("session_id") != pointer.session_id:
        raise corrupt("session_mismatch")
    if record.get("event_id") != pointer.text:
        raise corrupt("event_id_mismatch")
    if not _is_positive_int(record.get("schema_version")):
        raise corrupt("bad_schema_version")
    kind = record.get("kind")
    if not isinstance(kind, str) or not kind or "payload" not in record:
        raise corrupt("bad_envelope")
    try:
        parse_timestamp("recorded_at", record.get("recorded_at"))
    except DurableStateError as exc:
        raise corrupt("bad_recorded_at") from exc


def _verify_once(
    fd: int,
    info: os.stat_result,
    pointer: ParsedSourcePointer,
    index: TranscriptOffsetIndex,
    read_at: ReadAt,
    max_record_bytes: int,
) -> VerifiedEvidence:
    assert pointer.sequence is not None
    span = index.locate(pointer.session_id, fd, info, pointer.sequence, read_at, max_record_bytes)
    if span is None:
        raise missing("sequence_not_found")
    start, end = span
    line = _read_line(fd, start, end, read_at)
    record, text = _decode_record(line)
    check_envelope(record, pointer)
    return VerifiedEvidence(hashlib.sha256(line).hexdigest(), text)


def verify_transcript_record(
    root: str,
    pointer: ParsedSourcePointer,
    index: TranscriptOffsetIndex,
    read_at: ReadAt,
    max_record_bytes: int = MAX_RECORD_BYTES,
    open_at: OpenAt = os_open_at,
) -> VerifiedEvidence:
    """Open `<root>/<session>.jsonl` safely and verify the pointed-to record.

    A failure seen through an index entry that existed before this call may be the
    entry's fault (a file rewritten in place), so the entry is dropped and the lookup
    made once more from a fresh scan; only that second verdict is reported.
    """
    fd, info = open_beneath(root, [f"{pointer.session_id}.jsonl"], open_at)
    try:
        had_entry = index.has_entry(pointer.session_id)
        try:
            evidence = _verify_once(fd, info, pointer, index, read_at, max_record_bytes)
        except SourceUnavailable:
            if not had_entry:
                raise
            index.forget(pointer.session_id)
            evidence = _verify_once(fd, os.fstat(fd), pointer, index, read_at, max_record_bytes)
        check_still_linked(fd)
        return evidence
    finally:
        os.close(fd)
