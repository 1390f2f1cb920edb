"""The `"key": "string"` pairs written in a text that no JSON parser takes whole. Pure.

Why: a JSON value can be unreadable as a whole (a comment, a trailing comma, a text cut
short, or nesting deeper than Python's parser follows: `[` 20,000 times), yet the
credentials written in it are as plain as in a valid one. Reading what is written pair by
pair finds them without parsing the document.

Contract: `quoted_pairs(text)` gives each `"key": "string"` pair written in `text`, both
decoded as JSON strings, in the order written; a pair whose value is empty, or whose key
or value is no valid JSON string, gives none. Never raises, and takes no stack for depth.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

_QUOTED_PAIR = re.compile(r'"((?:[^"\\\r\n]|\\.)*)"\s*:\s*("(?:[^"\\\r\n]|\\.)*")')


def quoted_pairs(text: str) -> Iterator[tuple[str, str]]:
    """Each `"key": "string"` pair written in `text` (module contract)."""
    for found in _QUOTED_PAIR.finditer(text):
        try:
            name, value = json.loads(f'"{found.group(1)}"'), json.loads(found.group(2))
        except ValueError:
            continue
        if value:
            yield name, value
