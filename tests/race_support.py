"""A second process that swaps a file or folder for a link out, as fast as it can.

Shared by the race tests of the pointer resolver (`test_hostile_pointer_races.py`) and
of the workspace tools (`test_hostile_tool_races.py`).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

_SWAP_SCRIPT = r"""
import ctypes, os, sys
target, outside = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
link = target + b".swap-link"
os.symlink(outside, link)
libc = ctypes.CDLL(None, use_errno=True)
RENAME_EXCHANGE, AT_FDCWD = 2, -100
exchange = getattr(libc, "renameat2", None)
if exchange is None or exchange(AT_FDCWD, target, AT_FDCWD, link, RENAME_EXCHANGE) != 0:
    print("unsupported", flush=True)
    sys.exit(0)
import signal
swaps = 0
def report(*_):
    print(swaps, flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, report)
print("ready", flush=True)
while exchange(AT_FDCWD, target, AT_FDCWD, link, RENAME_EXCHANGE) == 0:
    swaps += 1
"""


class LinkSwapper:
    """Another process that atomically exchanges `target` with a symlink to `outside`,
    over and over (renameat2 RENAME_EXCHANGE), so the name is always there: half the
    time the real file or folder, half the time a link out. A real second process, not a
    thread, so the swaps interleave with the code under test at any instruction.
    `is_supported` is False where the kernel or libc cannot exchange names."""

    def __init__(self, target: Path, outside: Path) -> None:
        self.target, self.outside = target, outside
        self.is_supported = False
        self.swaps = 0  # how many exchanges were made, known once the swapper stopped
        self._process: subprocess.Popen[str] | None = None

    def __enter__(self) -> LinkSwapper:
        self._process = subprocess.Popen(
            [sys.executable, "-c", _SWAP_SCRIPT, str(self.target), str(self.outside)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdout is not None
        self.is_supported = self._process.stdout.readline().strip() == "ready"
        return self

    def __exit__(self, *exc_info: object) -> None:
        assert self._process is not None and self._process.stdout is not None
        self._process.terminate()
        try:
            self._process.wait(timeout=10)
            self.swaps = int(self._process.stdout.read().strip() or 0)
        except (subprocess.TimeoutExpired, ValueError):
            self._process.kill()
            self._process.wait()
        self._process.stdout.close()
        link = self.target.with_name(self.target.name + ".swap-link")
        if os.path.islink(self.target):  # stopped with the link in place: swap back
            os.unlink(self.target)
            os.rename(link, self.target)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(link)
