"""Which lines grep may show: none that holds a secret, whatever the pattern.

Why: redacting the lines grep shows is not enough. Whether a pattern matches is itself
an answer, so probing `^TOKEN=.{4}[a-m]` call after call would spell out a secret one
bit at a time, with no approval asked (found by an outside attack). A line that holds
any form of a secret the toolbox redacts (`SecretForms`), or part of one that spans
lines, is therefore never shown and never counted: not as a match, not towards the
match cap, not as a binary file that matched, not as a match "left out". What grep says
then depends on the pattern and the other lines alone, the same whatever the secret is.
`read_file` shows such lines with the secret redacted.

A line that cannot be checked counts as one that holds a secret (a fifth outside attack):
a file that cannot be opened (rg's output named a file whose name holds a line feed, so
the name grep parsed is not the file's), a line the check did not read, or a line rg
reported with other bytes than the check read. The bytes are checked as they are and in
the other readings a program may give them: Latin-1 (each byte a character, so line
numbers stay), and UTF-16 in either byte order at either alignment and with NUL bytes
left out (a UTF-16 or UTF-32 `.env`); a secret found in one of those withholds the whole
file, since its lines are not rg's lines.

Contract: `SecretFiles.shown_line(path, number)` reads a file grep reported once, through
the workspace's own opener (as `grep_confirm` does), and gives line `number`'s bytes
(without its line feed) when no secret touches it, else None (module rules above).
`SecretFiles.holds(path)` says whether any line of the file holds a secret or cannot be
checked.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from agent_cli.errors import ToolError
from agent_cli.secret_forms import SecretForms
from agent_cli.tools.grep_confirm import as_rg_reads

_OTHER_WHOLE_FILE_READINGS = (
    ("utf-16-le", 0),
    ("utf-16-le", 1),
    ("utf-16-be", 0),
    ("utf-16-be", 1),
)


@dataclass(frozen=True)
class _Scan:
    """What one read of a file found: its lines, and which of them a secret touches."""

    lines: tuple[bytes, ...] = ()
    secret_lines: frozenset[int] = frozenset()  # numbers from 1
    is_withheld: bool = True  # the whole file: unreadable, or a secret in another reading

    def shown_line(self, number: int) -> bytes | None:
        if self.is_withheld or number in self.secret_lines or not 0 < number <= len(self.lines):
            return None
        return self.lines[number - 1]


_UNCHECKED = _Scan()


class SecretFiles:
    """The lines grep may show of the files one grep call reported (module contract)."""

    def __init__(
        self, open_inside: Callable[[str], int], max_bytes: int, secrets: SecretForms
    ) -> None:
        self._open_inside = open_inside
        self._max_bytes = max_bytes
        self._secrets = secrets
        self._scans: dict[str, _Scan] = {}

    def shown_line(self, path: str, number: int) -> bytes | None:
        """Line `number` (from 1) of the file at `path` (relative to the workspace) as
        read now, without its line feed; None when a secret touches it or it cannot be
        checked."""
        return self._scan(path).shown_line(number)

    def holds(self, path: str) -> bool:
        """True when any line of the file holds a secret or part of one, or the file
        cannot be checked."""
        scan = self._scan(path)
        return scan.is_withheld or bool(scan.secret_lines)

    def _scan(self, path: str) -> _Scan:
        if path not in self._scans:
            self._scans[path] = self._read(path)
        return self._scans[path]

    def _read(self, path: str) -> _Scan:
        try:
            descriptor = self._open_inside(path)
        except (ToolError, OSError):
            return _UNCHECKED
        try:
            with os.fdopen(descriptor, "rb") as handle:
                data = handle.read(self._max_bytes)
        except OSError:
            return _UNCHECKED
        read = as_rg_reads(data)  # the lines rg reported are these (UTF-16 transcoded)
        lines = tuple(read.split(b"\n"))
        if not self._secrets:
            return _Scan(lines, frozenset(), is_withheld=False)
        if any(self._has_secret(text) for text in _whole_file_readings(data)):
            return _UNCHECKED
        text = read.decode("utf-8", "replace")
        found = self._secret_lines(text)
        if "\ufffd" in text:  # not all UTF-8: Latin-1 too (one character a byte)
            found |= self._secret_lines(read.decode("latin-1"))
        return _Scan(lines, found, is_withheld=False)

    def _has_secret(self, text: str) -> bool:
        return self._secrets.pattern is not None and self._secrets.pattern.search(text) is not None

    def _secret_lines(self, text: str) -> frozenset[int]:
        """The numbers (from 1) of the lines that an occurrence of a secret touches."""
        if not self._has_secret(text):  # (the usual case: one scan)
            return frozenset()
        lines: set[int] = set()
        for start, end in self._secrets.occurrences(text, 0, len(text)):  # overlapping too
            first = text.count("\n", 0, start) + 1
            lines.update(range(first, first + text.count("\n", start, end) + 1))
        return frozenset(lines)


def _whole_file_readings(data: bytes) -> Iterator[str]:
    """The readings of `data` whose lines are not its bytes' lines: UTF-16 both ways at
    both alignments, and the bytes without NULs (UTF-16 or UTF-32 of ASCII text). Only
    data holding a NUL or starting with a UTF-16 byte order mark can be such text."""
    if b"\0" not in data and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return
    yield data.replace(b"\0", b"").decode("utf-8", "replace")
    for encoding, skip in _OTHER_WHOLE_FILE_READINGS:
        yield data[skip:].decode(encoding, "replace")
