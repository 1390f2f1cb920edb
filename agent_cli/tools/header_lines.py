"""HTTP header lines written inside a longer value. Pure.

A header reaches a program through a variable of any name as often as through a flag
(mcp-remote-style wrappers take `AUTH_HEADER = "X-API-Key: <key>"`; a command in a
variable says `curl -H 'Cookie: session=<id>'`). `tools.credentials` decides which
header names carry a credential; this module finds the lines.

Contract: `header_lines_in(value)` yields `(name, header_value)` for each `Name: value`
written in `value` (on any of its lines, or quoted in a command: the value ends at a line
break or a quote) whose value has the shape of one credential: one word, a scheme and a
word (`Bearer xyz`), or, of a cookie header (`COOKIE_HEADERS`), `name=value` pairs (of
`Set-Cookie`, the first; attributes follow it). Prose (`Token: see the wiki`) and a
variable's reference (`X-API-Key: ${API_KEY}`) are none. A URL's `https:` is a name
too; the caller asks whether a name carries a credential.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

COOKIE_HEADERS = frozenset({"cookie", "set-cookie"})
_WRITTEN_LINE = re.compile(
    r"(?<![A-Za-z0-9_.-])([A-Za-z][A-Za-z0-9_-]*)[ \t]*:[ \t]*([\"']?)([^\r\n\"']+)\2"
)
_COOKIE = re.compile(r"\s*[^\s=;]+=[^\s;]*\s*")


def header_lines_in(value: str) -> Iterator[tuple[str, str]]:
    """The header lines written in `value` that hold one credential's shape (module
    contract), as `(name, header_value)`."""
    if ":" not in value:
        return
    for line in _WRITTEN_LINE.finditer(value):
        name, header = line.group(1), line.group(3).strip()
        if _holds_one_credential(name.lower(), header):
            yield name, header


def _holds_one_credential(name: str, header: str) -> bool:
    if header.startswith("$"):
        return False
    if name == "set-cookie":
        return bool(_COOKIE.fullmatch(header.partition(";")[0]))
    if name == "cookie":
        return all(_COOKIE.fullmatch(pair) for pair in header.split(";") if pair.strip())
    words = header.split()
    return len(words) == 1 or (len(words) == 2 and words[0].isalpha())
