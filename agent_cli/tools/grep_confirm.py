"""Confirming grep's matches by reading them back the way every file tool reads.

Why: ripgrep walks and opens files by name. If a folder of the workspace is swapped for
a link to somewhere else while it walks (a race a hostile process can run), rg may read
outside files and report their lines. So its output is only a list of candidates: each
matched file is opened again through the workspace's own opener (which refuses links and
anything outside), and a match is kept only when that file holds the very same line at
the same number. Every byte grep shows has then been read from inside the workspace.

Contract: `confirm_matches(matches, open_inside, max_bytes, secrets)` returns the
matches that hold and how many did not. `open_inside(relative_path)` returns a readable fd
or raises (`ToolError`/`OSError`); its matches then count as not confirmed.

The lines read back are also what tells whether a matched line is part of a secret that
spans lines (a PEM key): shown alone behind `path:N:`, such a line would never be whole
for the result's redaction to find. So each kept match's text has `secrets` hidden with
the file's lines around it as context (`secret_lines`), and says how many it hid.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import groupby

from agent_cli.errors import ToolError
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.secret_lines import context_chars, hide_in_lines


@dataclass(frozen=True)
class Match:
    """One line rg reported: the file (relative to the workspace), its number, its text;
    once confirmed, `secrets_hidden` counts the secrets hidden in that text."""

    path: str
    number: int
    text: bytes
    secrets_hidden: int = 0


def confirm_matches(
    matches: Sequence[Match],
    open_inside: Callable[[str], int],
    max_bytes: int,
    secrets: SecretForms = NO_SECRETS,
) -> tuple[list[Match], int]:
    """The matches whose line reads the same through `open_inside`, secrets hidden, and
    the count dropped."""
    kept: list[Match] = []
    margin = context_chars(secrets)
    for path, group in groupby(matches, key=lambda match: match.path):
        wanted = list(group)
        last = max(m.number for m in wanted)
        lines = _lines_of(path, open_inside, max_bytes, last, margin)
        confirmed = [m for m in wanted if lines.get(m.number) == m.text]
        kept += (
            [_hide_secrets(m, lines, margin, secrets) for m in confirmed] if margin else confirmed
        )
    return kept, len(matches) - len(kept)


def _hide_secrets(
    match: Match, lines: dict[int, bytes], margin: int, secrets: SecretForms
) -> Match:
    """`match` with the secrets in its line hidden, the lines within `margin` characters
    either side taken as context."""
    text = {match.number: lines[match.number].decode("utf-8", "replace")}
    for step in (-1, 1):
        number, reach = match.number, 0
        while number + step in lines and reach < margin:
            number += step
            text[number] = lines[number].decode("utf-8", "replace")
            reach += len(text[number]) + 1
    numbers = sorted(text)
    index = numbers.index(match.number)
    shown, hidden = hide_in_lines([text[n] for n in numbers], index, index + 1, secrets)
    if not hidden:
        return match
    return replace(match, text=shown[0].encode("utf-8"), secrets_hidden=hidden)


def _lines_of(
    path: str, open_inside: Callable[[str], int], max_bytes: int, last: int, after_chars: int
) -> dict[int, bytes]:
    """Lines 1..`last` of the file (without line endings), and after them lines of at
    least `after_chars` characters (as far as the file goes); none if it cannot be read."""
    try:
        descriptor = open_inside(path)
    except (ToolError, OSError):
        return {}
    found: dict[int, bytes] = {}
    with os.fdopen(descriptor, "rb") as handle:
        read = after = 0
        for number, raw in enumerate(handle, 1):
            read += len(raw)
            if read > max_bytes or (number > last and after >= after_chars):
                break
            if number > last:
                after += len(raw.decode("utf-8", "replace"))
            found[number] = raw.rstrip(b"\n")
    return found
