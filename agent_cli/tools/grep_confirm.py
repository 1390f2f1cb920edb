"""Confirming grep's matches by reading them back the way every file tool reads.

Why: ripgrep walks and opens files by name. If a folder of the workspace is swapped for
a link to somewhere else while it walks (a race a hostile process can run), rg may read
outside files and report their lines. So its output is only a list of candidates: each
matched file is opened again through the workspace's own opener (which refuses links and
anything outside), and a match is kept only when that file holds the very same line at
the same number. Every byte grep shows has then been read from inside the workspace.

Contract: `confirm_matches(matches, open_inside, max_bytes)` returns the matches that
hold and how many did not. `open_inside(relative_path)` returns a readable fd or raises
(`ToolError`/`OSError`); its matches then count as not confirmed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import groupby

from agent_cli.errors import ToolError

_BYTE_ORDER_MARKS = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


@dataclass(frozen=True)
class Match:
    """One line rg reported: the file (relative to the workspace), its number, its text."""

    path: str
    number: int
    text: bytes


def confirm_matches(
    matches: Sequence[Match], open_inside: Callable[[str], int], max_bytes: int
) -> tuple[list[Match], int]:
    """The matches whose line reads the same through `open_inside`, and the count dropped."""
    kept: list[Match] = []
    for path, group in groupby(matches, key=lambda match: match.path):
        wanted = list(group)
        lines = _lines_of(path, open_inside, max_bytes, max(m.number for m in wanted))
        kept += [m for m in wanted if lines.get(m.number) == m.text]
    return kept, len(matches) - len(kept)


def as_rg_reads(data: bytes) -> bytes:
    """The bytes rg searches in a file that starts with `data` (`--encoding=auto`): a
    file with a UTF-16 byte order mark (as Windows writes text) transcoded to UTF-8, a
    UTF-8 one without its mark, any other as it is. A code unit cut off at the end of a
    partial read, or one that is not UTF-16, reads as U+FFFD, as in rg."""
    for mark, encoding in _BYTE_ORDER_MARKS:
        if data.startswith(mark):
            return data[len(mark) :].decode(encoding, "replace").encode("utf-8", "replace")
    return data


def _lines_of(
    path: str, open_inside: Callable[[str], int], max_bytes: int, last: int
) -> dict[int, bytes]:
    """Lines 1..`last` of the file as rg reads it (without line endings), or none if it
    cannot be read."""
    try:
        descriptor = open_inside(path)
    except (ToolError, OSError):
        return {}
    try:
        with os.fdopen(descriptor, "rb") as handle:
            raw = handle.read(max_bytes)
    except OSError:
        return {}
    lines = as_rg_reads(raw).split(b"\n")
    if len(raw) >= max_bytes:
        del lines[-1]  # (the read may have cut it short)
    return dict(enumerate(lines[:last], 1))
