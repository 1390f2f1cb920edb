"""Streaming validation of a transcript file, shared by replay and the writer's recovery.

Rules, the same for both so that what replay shows is exactly what a writer keeps:

- A record is a newline-terminated line that parses as UTF-8 JSON and passes
  `records.check_record` for the next expected sequence.
- The final line is *torn* when it has no trailing newline or does not parse: that is
  what a crash in the middle of an append leaves. It is not a record; the scanner stops
  there and reports it (`torn_tail`), and a writer moves those bytes aside.
- Anything wrong before the final line, or a final line that parses but lies (wrong
  sequence, session or event id, ...), is corruption: `TranscriptCorrupt` with the
  1-based line number. Nothing is ever skipped silently.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO

from agent_cli.errors import TranscriptCorrupt
from agent_cli.store.records import LineUnparsable, check_record, parse_line


class TranscriptScanner:
    """Walks one open transcript (binary, positioned at 0) once, yielding valid records.

    After `records()` is exhausted, `valid_end` is the byte offset just past the last
    valid record, `last_sequence` its sequence (0 if none) and `torn_tail` says whether
    bytes after `valid_end` form a torn final line.
    """

    def __init__(self, handle: BinaryIO, session_id: str) -> None:
        self._handle = handle
        self._session_id = session_id
        self.valid_end = 0
        self.last_sequence = 0
        self.torn_tail = False

    def records(self) -> Iterator[dict[str, Any]]:
        unparsable: tuple[int, str] | None = None
        for line_number, raw in enumerate(self._handle, start=1):
            if unparsable is not None:  # an unparsable line with more after it
                raise TranscriptCorrupt(self._session_id, *unparsable)
            if not raw.endswith(b"\n"):
                self.torn_tail = True
                return
            try:
                record = parse_line(raw[:-1])
            except LineUnparsable as exc:
                unparsable = (line_number, exc.reason)
                continue
            yield self._accept(record, line_number, len(raw))
        if unparsable is not None:
            self.torn_tail = True

    def _accept(self, record: dict[str, Any], line_number: int, size: int) -> dict[str, Any]:
        reason = check_record(record, self._session_id, self.last_sequence + 1)
        if reason is not None:
            raise TranscriptCorrupt(self._session_id, line_number, reason)
        self.last_sequence += 1
        self.valid_end += size
        return record

    def run_to_end(self) -> None:
        """Validate the whole file without keeping the records."""
        for _ in self.records():
            pass
