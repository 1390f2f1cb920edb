"""Which lines grep may show: none that holds a secret, whatever the pattern.

Why: redacting the lines grep shows is not enough. Whether a pattern matches is itself
an answer, so probing `^TOKEN=.{4}[a-m]` call after call would spell out a secret one
bit at a time, with no approval asked (found by an outside attack). A line that holds
any form of a secret the toolbox redacts (`SecretForms`), or part of one that spans
lines, is therefore never shown and never counted: not as a match, not towards the
match cap, not as a binary file that matched. What grep says then depends on the
pattern and the other lines alone, the same whatever the secret is. `read_file` shows
such lines with the secret redacted.

Contract: `SecretFiles.holds(path, line)` reads a file grep reported once, through the
workspace's own opener (as `grep_confirm` does), and says whether that line of it (or,
without a line, any line) holds a secret or part of one. A file that cannot be read
holds none here: `grep_confirm` drops its matches anyway.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from agent_cli.errors import ToolError
from agent_cli.secret_forms import SecretForms


class SecretFiles:
    """The lines holding a secret of the files one grep call reported (module contract)."""

    def __init__(
        self, open_inside: Callable[[str], int], max_bytes: int, secrets: SecretForms
    ) -> None:
        self._open_inside = open_inside
        self._max_bytes = max_bytes
        self._secrets = secrets
        self._lines: dict[str, frozenset[int]] = {}  # path -> numbers of its secret lines

    def holds(self, path: str, line: int | None = None) -> bool:
        """True when line `line` of the file at `path` (relative to the workspace) holds a
        secret or part of one; without `line`, when any line does."""
        if not self._secrets:
            return False
        if path not in self._lines:
            self._lines[path] = self._secret_lines(path)
        found = self._lines[path]
        return bool(found) if line is None else line in found

    def _secret_lines(self, path: str) -> frozenset[int]:
        """The numbers (from 1) of the lines that an occurrence of a secret touches."""
        try:
            descriptor = self._open_inside(path)
        except (ToolError, OSError):
            return frozenset()
        with os.fdopen(descriptor, "rb") as handle:
            text = handle.read(self._max_bytes).decode("utf-8", "replace")
        pattern = self._secrets.pattern
        if pattern is None or pattern.search(text) is None:  # (the usual case: one scan)
            return frozenset()
        lines: set[int] = set()
        for start, end in self._secrets.occurrences(text, 0, len(text)):  # overlapping too
            first = text.count("\n", 0, start) + 1
            lines.update(range(first, first + text.count("\n", start, end) + 1))
        return frozenset(lines)
