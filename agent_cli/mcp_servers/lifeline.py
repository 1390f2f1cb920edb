"""The lifeline of a session's MCP servers: a FIFO whose only write end agent-cli holds.

Contract: `Lifeline.open()` makes a FIFO in a new private temporary folder and keeps its
write end open (not inherited by any child); `path` is what each server's launcher opens
for reading. agent-cli never writes into it: when agent-cli ends, however it ends (SIGKILL
included), the kernel closes the write end, every reader sees end of file, and each
server's supervisor kills its server's process group (`launcher`,
`tools.command_supervisor`). A FIFO rather than a pipe because the SDK starts a server
with every descriptor but stdin, stdout and stderr closed: a path is what gets through.
`close()` closes the write end and removes the folder; idempotent. A SIGKILLed agent-cli
leaves the empty folder behind (nothing is running in it).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path


class Lifeline:
    """See the module contract."""

    def __init__(self, folder: Path, write_end: int) -> None:
        self._folder = folder
        self._write_end: int | None = write_end
        self.path = folder / "lifeline"

    @classmethod
    def open(cls) -> Lifeline:
        folder = Path(tempfile.mkdtemp(prefix="agent-cli-mcp-"))
        fifo = folder / "lifeline"
        os.mkfifo(fifo, 0o600)
        # Opening the write end alone would wait for a reader: hold one for a moment.
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        try:
            write_end = os.open(fifo, os.O_WRONLY)
        finally:
            os.close(reader)
        return cls(folder, write_end)

    def close(self) -> None:
        if self._write_end is not None:
            with contextlib.suppress(OSError):
                os.close(self._write_end)
            self._write_end = None
        shutil.rmtree(self._folder, ignore_errors=True)
