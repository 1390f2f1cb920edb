"""The prompt history file, used only while it is a regular file.

Contract: `RegularFileHistory(path)` is prompt_toolkit's `FileHistory` except that it reads
and appends only when `path` is a regular file (or absent, for appending: it is then
created). Anything else there (a FIFO, a folder, a device) makes it a history of this run
only: `FileHistory` would block forever opening a FIFO nobody writes to, and the prompt
would never appear. `is_file_usable()` tells the caller whether lines are being kept.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from prompt_toolkit.history import FileHistory


class RegularFileHistory(FileHistory):
    """`FileHistory` that never opens what is not a regular file (see the module)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
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
        if self.is_file_usable():
            super().store_string(string)
