"""The lines of a stdio MCP server's stdout, split in time linear in their size and
bounded in memory. Pure.

Why: the MCP stdio transport carries one JSON-RPC message a line, and one answer can be
tens of MB on one line. The SDK's reader joined all it had buffered with each chunk it
read and split the whole again, so a line cost time growing with the square of its size
(40 MB: 23 s; 80 MB: past the 60 s call timeout, reported as no answer).

Contract: `LineSplitter(limit)`; `feed(chunk)` returns the lines `chunk` completes, in
order, each without its b"\\n": its bytes when it is at most `limit` bytes long, else an
`OverLimit` (its size, its first and its last `EDGE_BYTES`), whose bytes between were
dropped as they came: a line costs at most `limit` bytes of memory, however long. Only
the bytes of each chunk are scanned for b"\\n", once, and a line is joined once, so
reading costs time linear in what the server wrote. `pending` is the size of the line
under way (the bytes read since the last b"\\n"); a line the stream ends inside is never
given (nor is it by the SDK: it is no whole message).
"""

from __future__ import annotations

from dataclasses import dataclass

EDGE_BYTES = 4_096  # kept of each end of a line over the limit: where its id is written


@dataclass(frozen=True)
class OverLimit:
    """A line longer than the splitter's limit, of which only the ends were kept."""

    size: int
    head: bytes
    tail: bytes


class LineSplitter:
    """See the module contract."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._parts: list[bytes] = []  # of the line under way, while within the limit
        self._pending = 0
        self._head: bytes | None = None  # set once the line under way passed the limit
        self._tail = b""

    @property
    def pending(self) -> int:
        return self._pending

    def feed(self, chunk: bytes) -> list[bytes | OverLimit]:
        """The lines `chunk` completes (module contract)."""
        lines: list[bytes | OverLimit] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            if not self._pending and end - start <= self._limit:
                lines.append(chunk[start:end])  # the usual line: within one chunk
            else:
                self._add(chunk[start:end])
                lines.append(self._take())
            start = end + 1
        if start < len(chunk):
            self._add(chunk[start:])
        return lines

    def _add(self, piece: bytes) -> None:
        self._pending += len(piece)
        if self._head is None and self._pending <= self._limit:
            self._parts.append(piece)
            return
        if self._head is None:  # this piece takes the line past the limit
            self._parts.append(piece)
            self._head = _first_bytes(self._parts, EDGE_BYTES)
            self._tail = _last_bytes(self._parts, EDGE_BYTES)
            self._parts = []
            return
        self._tail = (self._tail + piece[-EDGE_BYTES:])[-EDGE_BYTES:]

    def _take(self) -> bytes | OverLimit:
        """The line under way, now that its b"\\n" came; the splitter starts a new one."""
        line: bytes | OverLimit
        if self._head is not None:
            line = OverLimit(self._pending, self._head, self._tail)
        elif len(self._parts) == 1:
            line = self._parts[0]
        else:
            line = b"".join(self._parts)
        self._parts, self._pending, self._head, self._tail = [], 0, None, b""
        return line


def _first_bytes(parts: list[bytes], count: int) -> bytes:
    """The first `count` bytes of `parts` joined, joining no more than needed."""
    kept: list[bytes] = []
    size = 0
    for part in parts:
        if size >= count:
            break
        kept.append(part[: count - size])
        size += len(kept[-1])
    return b"".join(kept)


def _last_bytes(parts: list[bytes], count: int) -> bytes:
    """The last `count` bytes of `parts` joined, joining no more than needed."""
    kept: list[bytes] = []
    size = 0
    for part in reversed(parts):
        if size >= count:
            break
        kept.append(part[-(count - size) :])
        size += len(kept[-1])
    return b"".join(reversed(kept))
