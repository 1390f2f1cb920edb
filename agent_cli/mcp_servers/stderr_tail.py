"""The last bytes a stdio MCP server wrote to stderr, kept in a bounded buffer.

Contract: `StderrTail(keep)` makes a pipe; `writer` (its write end, a text file) is what
the server gets as its stderr. A daemon thread reads the pipe as fast as the server
writes, so the server never blocks on stderr, and keeps only the last `keep` to
`2 * keep` bytes: whatever a server writes, its stderr costs bounded memory and no disk
(it used to go to a temporary file that grew without end). `text(wait)` closes the
write end agent-cli holds, waits up to `wait` seconds for the reader to reach end of
file (every writer gone: the server and what it started) and returns the last `keep`
bytes decoded (undecodable bytes replaced); safe to call more than once. `so_far()` is
what `text` gives, read now, the pipe left open (a server that is still running). `close()`
closes the write end; the thread ends when the last writer does.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from typing import TextIO

TAIL_BYTES = 64 * 1024


class StderrTail:
    """See the module contract."""

    def __init__(self, keep: int = TAIL_BYTES) -> None:
        self._keep = keep
        read_end, write_end = os.pipe()  # neither inherited but as the server's stderr
        self.writer: TextIO = os.fdopen(write_end, "w", encoding="utf-8", errors="replace")
        self._kept = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(
            target=self._pump, args=(read_end,), name="mcp-stderr", daemon=True
        )
        self._thread.start()

    def _pump(self, read_end: int) -> None:
        try:
            while True:
                chunk = os.read(read_end, 65_536)
                if not chunk:
                    return
                with self._lock:
                    self._kept += chunk
                    if len(self._kept) > 2 * self._keep:
                        del self._kept[: -self._keep]
        except OSError:
            return
        finally:
            os.close(read_end)

    def text(self, wait: float = 0.0) -> str:
        """The last `keep` bytes written, once the writers are gone or `wait` passed."""
        self.close()
        deadline = time.monotonic() + wait
        while self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        with self._lock:
            return bytes(self._kept[-self._keep :]).decode("utf-8", errors="replace")

    def so_far(self) -> str:
        """The last `keep` bytes written until now, decoded; the server writes on."""
        with self._lock:
            return bytes(self._kept[-self._keep :]).decode("utf-8", errors="replace")

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.writer.close()
