"""An in-memory index from transcript sequence to the byte span of its line.

A transcript holds record n on line n (sequences run 1, 2, 3 ... without gaps), so the
index only needs where each line ends. It is built by scanning for newlines in fixed
chunks (bounded memory, no JSON parsing) and extended incrementally as the file grows.

Contract: an entry is trusted only while the file is the same file and has only grown:
same device and inode, size not below what was scanned, and, if the size is unchanged,
the same mtime. Anything else rebuilds from the start. Extending first checks that the
last scanned byte is still a newline. The caller still verifies the record it reads
(boundaries and its sequence) and calls `forget` on a mismatch, so a stale entry can
cost a rescan but never a wrong answer. Only complete (newline-terminated) lines count.
"""

from __future__ import annotations

import os
from array import array
from collections import OrderedDict
from dataclasses import dataclass, field

from agent_cli.source_files import CHUNK_BYTES, ReadAt, missing


@dataclass
class _FileIndex:
    device: int
    inode: int
    mtime_ns: int = 0
    line_ends: array = field(default_factory=lambda: array("Q"))

    @property
    def scanned_size(self) -> int:
        return self.line_ends[-1] if self.line_ends else 0


def _scan(entry: _FileIndex, fd: int, size: int, read_at: ReadAt) -> None:
    """Record the end of every complete line between the scanned size and `size`."""
    offset = entry.scanned_size
    ends = entry.line_ends
    while offset < size:
        chunk = read_at(fd, min(CHUNK_BYTES, size - offset), offset)
        if not chunk:
            raise missing("vanished")
        position = chunk.find(b"\n")
        while position != -1:
            ends.append(offset + position + 1)
            position = chunk.find(b"\n", position + 1)
        offset += len(chunk)


class TranscriptOffsetIndex:
    """Per-file line spans, kept for the most recently used `max_files` transcripts."""

    def __init__(self, max_files: int = 64) -> None:
        self._entries: OrderedDict[str, _FileIndex] = OrderedDict()
        self._max_files = max_files

    def has_entry(self, key: str) -> bool:
        return key in self._entries

    def forget(self, key: str) -> None:
        self._entries.pop(key, None)

    @staticmethod
    def _is_trustworthy(entry: _FileIndex | None, fd: int, info: os.stat_result,
                        read_at: ReadAt) -> bool:
        """Same file, only grown, and the last scanned byte still ends a line."""
        if entry is None or (entry.device, entry.inode) != (info.st_dev, info.st_ino):
            return False
        if info.st_size < entry.scanned_size:
            return False
        if info.st_size == entry.scanned_size and info.st_mtime_ns != entry.mtime_ns:
            return False
        return entry.scanned_size == 0 or read_at(fd, 1, entry.scanned_size - 1) == b"\n"

    def _current(self, key: str, fd: int, info: os.stat_result, read_at: ReadAt) -> _FileIndex:
        entry = self._entries.get(key)
        if entry is None or not self._is_trustworthy(entry, fd, info, read_at):
            entry = _FileIndex(info.st_dev, info.st_ino)
        self._entries.pop(key, None)  # a scan that fails leaves no entry behind
        _scan(entry, fd, info.st_size, read_at)
        entry.mtime_ns = info.st_mtime_ns
        self._entries[key] = entry
        while len(self._entries) > self._max_files:
            self._entries.popitem(last=False)
        return entry

    def locate(self, key: str, fd: int, info: os.stat_result, sequence: int,
               read_at: ReadAt) -> tuple[int, int] | None:
        """The [start, end) byte span of line `sequence` without its newline, or None."""
        entry = self._current(key, fd, info, read_at)
        if sequence > len(entry.line_ends):
            return None
        start = entry.line_ends[sequence - 2] if sequence > 1 else 0
        return start, entry.line_ends[sequence - 1] - 1

    def indexed_lines(self, key: str) -> int:
        """How many complete lines the index holds for `key` (0 if none): for tests and stats."""
        entry = self._entries.get(key)
        return len(entry.line_ends) if entry else 0
