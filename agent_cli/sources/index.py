"""An in-memory index from transcript sequence to the byte span of its line.

A transcript holds record n on line n (sequences run 1, 2, 3 ... without gaps), so the
index only needs to find line n. It keeps a sparse set of checkpoints, one per 64 KiB
block: the block's offset and how many complete lines lie before it. Building it counts
newlines block by block (a C-speed `bytes.count`, no JSON parsing, bounded memory);
finding line n reads one block from the nearest checkpoint. It is extended
incrementally as the file grows.

Contract: an entry is trusted only while the file is the same file and has only grown:
same device and inode, size not below what was scanned, the same mtime if the size is
unchanged, and the last scanned byte still a newline. Anything else rebuilds from the
start. The caller still verifies the record it reads and calls `forget` on a failure
seen through an older entry, so a stale entry can cost a rescan but never a wrong
answer. Only complete (newline-terminated) lines count as records.
"""

from __future__ import annotations

import os
from array import array
from bisect import bisect_left
from collections import OrderedDict
from dataclasses import dataclass, field

from agent_cli.sources.files import CHUNK_BYTES, ReadAt, corrupt, missing

BLOCK_BYTES = 1 << 16


@dataclass
class _FileIndex:
    device: int
    inode: int
    mtime_ns: int = 0
    scanned_size: int = 0  # just past the last complete line seen
    line_count: int = 0
    block_offsets: array[int] = field(default_factory=lambda: array("Q"))
    lines_before: array[int] = field(default_factory=lambda: array("Q"))


def _scan(entry: _FileIndex, fd: int, size: int, read_at: ReadAt) -> None:
    """Add checkpoints for the bytes between the scanned size and `size`."""
    offset, count = entry.scanned_size, entry.line_count
    last_end = entry.scanned_size
    checkpoints: list[tuple[int, int]] = []
    while offset < size:
        chunk = read_at(fd, min(CHUNK_BYTES, size - offset), offset)
        if not chunk:
            raise missing("vanished")
        for start in range(0, len(chunk), BLOCK_BYTES):
            checkpoints.append((offset + start, count))
            count += chunk.count(b"\n", start, start + BLOCK_BYTES)
        tail = chunk.rfind(b"\n")
        if tail != -1:
            last_end = offset + tail + 1
        offset += len(chunk)
    for block_offset, before in checkpoints:
        if block_offset < last_end:  # blocks inside a torn tail wait for the next scan
            entry.block_offsets.append(block_offset)
            entry.lines_before.append(before)
    entry.scanned_size, entry.line_count = last_end, count


def _find_line(fd: int, offset: int, skip: int, limit: int, read_at: ReadAt) -> tuple[int, int]:
    """The span of the line that starts past the `skip`-th newline from `offset`.

    Reads forward one block at a time (a warm lookup touches about one block); a line
    longer than `limit` bytes raises corrupt ("record_too_large") once that many bytes
    were passed, without keeping them.
    """
    start = offset if skip == 0 else -1
    while start < 0 or offset - start <= limit:
        chunk = read_at(fd, BLOCK_BYTES, offset)
        if not chunk:
            raise missing("vanished")
        position = -1
        while True:
            position = chunk.find(b"\n", position + 1)
            if position == -1:
                break
            if start >= 0:
                if offset + position - start > limit:
                    raise corrupt("record_too_large")
                return start, offset + position
            skip -= 1
            if skip == 0:
                start = offset + position + 1
        offset += len(chunk)
    raise corrupt("record_too_large")


class TranscriptOffsetIndex:
    """Per-file checkpoints, kept for the most recently used `max_files` transcripts."""

    def __init__(self, max_files: int = 64) -> None:
        self._entries: OrderedDict[str, _FileIndex] = OrderedDict()
        self._max_files = max_files

    def has_entry(self, key: str) -> bool:
        return key in self._entries

    def forget(self, key: str) -> None:
        self._entries.pop(key, None)

    @staticmethod
    def _is_trustworthy(entry: _FileIndex, fd: int, info: os.stat_result, read_at: ReadAt) -> bool:
        """Same file, only grown, and the last scanned byte still ends a line."""
        if (entry.device, entry.inode) != (info.st_dev, info.st_ino):
            return False
        if info.st_size < entry.scanned_size:
            return False
        if info.st_size == entry.scanned_size and info.st_mtime_ns != entry.mtime_ns:
            return False
        return entry.scanned_size == 0 or read_at(fd, 1, entry.scanned_size - 1) == b"\n"

    def _current(self, key: str, fd: int, info: os.stat_result, read_at: ReadAt) -> _FileIndex:
        entry = self._entries.pop(key, None)  # a scan that fails leaves no entry behind
        if entry is None or not self._is_trustworthy(entry, fd, info, read_at):
            entry = _FileIndex(info.st_dev, info.st_ino)
        _scan(entry, fd, info.st_size, read_at)
        entry.mtime_ns = info.st_mtime_ns
        self._entries[key] = entry
        while len(self._entries) > self._max_files:
            self._entries.popitem(last=False)
        return entry

    def locate(
        self,
        key: str,
        fd: int,
        info: os.stat_result,
        sequence: int,
        read_at: ReadAt,
        max_line_bytes: int,
    ) -> tuple[int, int] | None:
        """The [start, end) byte span of line `sequence` without its newline, or None.

        A line longer than `max_line_bytes` raises corrupt ("record_too_large") after
        reading at most that many bytes, one chunk at a time.
        """
        entry = self._current(key, fd, info, read_at)
        if sequence > entry.line_count:
            return None
        newlines_before = sequence - 1
        if newlines_before == 0:
            return _find_line(fd, 0, 0, max_line_bytes, read_at)
        # The last checkpoint with fewer newlines before it: line `sequence` starts just
        # past a newline inside that checkpoint's stretch of the file.
        slot = bisect_left(entry.lines_before, newlines_before) - 1
        return _find_line(
            fd,
            entry.block_offsets[slot],
            newlines_before - entry.lines_before[slot],
            max_line_bytes,
            read_at,
        )
