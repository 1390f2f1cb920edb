"""Hiding secrets in text that is shown line by line, keeping its lines. Pure: no I/O.

Why: `read_file` numbers the lines it shows and shows a window of them; `grep` shows
single lines behind `path:N:`. A secret that spans lines (a PEM private key) is then
never whole in the tool's result, so redacting the result, which finds whole forms only,
let it out a line at a time. These tools therefore hide secrets in the file's own text,
before it is numbered or windowed, and keep its line count, so that line numbers still
point where the user expects and a window shows the same lines as the whole file.

Contract: `hide_in_lines(lines, start, stop, secrets)` takes consecutive lines of a text
without their `\\n` (a `\\r` before it stays, as in the file) and returns
`lines[start:stop]` with every character that an occurrence of a form of `secrets` covers
hidden, and how many separate hidden stretches touched them. Occurrences are looked for in
`"\\n".join(lines)`, overlapping ones included (`SecretForms.occurrences`), so what a
line shows does not depend on where a window began. Within a line each run of hidden
characters becomes `REDACTED_MARK`: a line wholly inside a secret becomes the mark alone,
and the text before a secret on its first line and after it on its last stays. The
other lines are context: with `secrets.longest_match` characters of it on each side
(`context_chars`), the result is what the whole text would give, since no occurrence is
longer than that.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent_cli.secret_forms import REDACTED_MARK, SecretForms

_LINE_RUN = re.compile(r"[^\n]+")


def context_chars(secrets: SecretForms) -> int:
    """Characters of context on each side that make `hide_in_lines` exact (0: none)."""
    return secrets.longest_match if secrets else 0


def hide_in_lines(
    lines: Sequence[str], start: int, stop: int, secrets: SecretForms
) -> tuple[list[str], int]:
    """`lines[start:stop]` with secrets hidden, and how many stretches (module contract)."""
    shown = list(lines[start:stop])
    if not secrets or not shown or secrets.pattern is None:
        return shown, 0
    text = "\n".join(lines)
    begin = len("\n".join(lines[:start])) + (1 if start > 0 else 0)
    end = begin + len("\n".join(shown))
    reach = secrets.longest_match
    # Any occurrence that touches [begin, end) lies within `reach` of it; when the plain
    # search finds nothing there (the usual case), no occurrence does.
    if secrets.pattern.search(text, max(0, begin - reach), end + reach) is None:
        return shown, 0
    spans = _hidden_spans(text, begin, end, secrets)
    if not spans:
        return shown, 0
    pieces, position = [], begin
    for span_start, span_end in spans:
        pieces.append(text[position:span_start])
        pieces.append(_LINE_RUN.sub(REDACTED_MARK, text[span_start:span_end]))
        position = span_end
    pieces.append(text[position:end])
    return "".join(pieces).split("\n"), len(spans)


def _hidden_spans(text: str, begin: int, end: int, secrets: SecretForms) -> list[tuple[int, int]]:
    """The stretches of [begin, end) that occurrences cover, overlapping ones merged."""
    spans: list[tuple[int, int]] = []
    for found_start, found_end in secrets.occurrences(text, begin - secrets.longest_match, end):
        if found_end <= begin:
            continue
        span = (max(found_start, begin), min(found_end, end))
        if spans and span[0] < spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], span[1]))
        else:
            spans.append(span)
    return spans
