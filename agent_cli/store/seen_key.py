"""The key that keeps a transcript's `file_seen` records from telling what a file holds.

Contract: `load_seen_key(folder)` returns the 32-byte key kept in `folder/SEEN_KEY_NAME`
(the transcripts folder, 0700), making one (0600, written whole or not at all) when there
is none or what is there is not such a key. It never raises: when the key can be neither
read nor made (a FIFO or link in its place, a full or read-only disk), it returns a key
made for this run alone, and this run's records then match nothing when resumed (each
file's first write after the resume is refused once and read again: nothing is lost).

Why: the transcript recorded a plain SHA-256 of each file the model saw, so anyone given
a transcript could test guesses of a password held in `.env` (the rest of the file is in
the transcript, redacted) offline, one hash each. Records keyed by a secret kept beside
the transcripts, never in them, tell nothing without it.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from agent_cli.errors import StoreError
from agent_cli.store.fsutil import open_regular_file, write_file_atomic

SEEN_KEY_NAME = "file-seen.key"
SEEN_KEY_BYTES = 32


def load_seen_key(folder: Path) -> bytes:
    """The key in `folder`, made there when missing or damaged (module contract)."""
    path = folder / SEEN_KEY_NAME
    key = _read_key(path)
    if key is not None:
        return key
    made = secrets.token_bytes(SEEN_KEY_BYTES)
    try:
        write_file_atomic(path, made)
    except (OSError, StoreError):
        return made
    return _read_key(path) or made  # (another process may have made its own meanwhile)


def _read_key(path: Path) -> bytes | None:
    """The key at `path`, or None when there is no regular file holding exactly one."""
    try:
        fd = open_regular_file(path, os.O_RDONLY)
    except (OSError, StoreError):
        return None
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(SEEN_KEY_BYTES + 1)
    return data if len(data) == SEEN_KEY_BYTES else None
