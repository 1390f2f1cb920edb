"""The prompt history file, used only while it is a regular file.

Contract: `RegularFileHistory(path)` is prompt_toolkit's `FileHistory` except that it reads
and appends only when `path` is a regular file (or absent, for appending: it is then
created). Anything else there (a FIFO, a folder, a device) makes it a history of this run
only: `FileHistory` would block forever opening a FIFO nobody writes to, and the prompt
would never appear. `is_file_usable()` tells the caller whether lines are being kept.

An append the disk refuses (ENOSPC, EFBIG under a file-size limit, EIO) is never raised:
prompt_toolkit appends from inside its event loop, which would print a traceback and wait
for Enter on every line typed. The file is cut back to its size before the append, so no
half entry is left; the line stays in this run's history all the same, and the error is
handed once per run of failures to `take_write_problem()` for the prompt to say so.

`is_recalled(buffer)` tells whether the text a prompt buffer holds came from the history
(Up, Ctrl-R: edited or not) rather than being typed or pasted afresh; `shown_entry(buffer)`
is which entry it shows, counted back from the new line (0), so the count stays as the
history loads (older entries come in at the far end).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.history import FileHistory


class RegularFileHistory(FileHistory):
    """`FileHistory` that never opens what is not a regular file (see the module)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._failure: OSError | None = None  # the newest refused append, since the last saved
        self._failure_said = False
        super().__init__(str(path))

    def is_file_usable(self, *, absent_is_usable: bool = True) -> bool:
        """True when the path is a regular file (a link to one counts, as for any reader)."""
        try:
            return stat.S_ISREG(os.stat(self.path).st_mode)
        except FileNotFoundError:
            return absent_is_usable
        except OSError:
            return False

    def load_history_strings(self) -> Iterable[str]:
        if not self.is_file_usable(absent_is_usable=False):
            return []
        return super().load_history_strings()

    def store_string(self, string: str) -> None:
        if not self.is_file_usable():
            return
        size_before = _size_of(self.path)
        try:
            super().store_string(string)
        except OSError as error:
            _cut_back(self.path, size_before)
            if self._failure is None:
                self._failure_said = False
            self._failure = error
        else:
            self._failure = None

    def take_write_problem(self) -> OSError | None:
        """The error that kept a line out of the file, once per run of failed appends
        (None when the last line was saved, or when this run of failures was said)."""
        if self._failure is None or self._failure_said:
            return None
        self._failure_said = True
        return self._failure


def is_recalled(buffer: Buffer) -> bool:
    """Whether `buffer` holds a history entry (browsed to with Up or found with Ctrl-R,
    edited or not) instead of the new line; see the module contract."""
    return shown_entry(buffer) > 0


def shown_entry(buffer: Buffer) -> int:
    """The history entry `buffer` shows: 0 the new line, 1 the newest entry, and so on."""
    return len(buffer._working_lines) - 1 - buffer.working_index


def _size_of(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:  # absent: an append creates it
        return 0


def _cut_back(path: Path, size: int) -> None:
    """Drop what a failed append left after `size` bytes (truncating needs no space)."""
    with contextlib.suppress(OSError):
        os.truncate(path, size)
