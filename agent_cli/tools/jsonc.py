"""JSON with comments (JSONC: VS Code's settings, `tsconfig.json`, many `.env.json`) read as
the JSON it holds. Pure.

Why: `// local overrides` above a `.env.json`'s object, or a trailing comma after its
last key, makes the whole file no JSON to Python's parser, though every tool that reads
JSONC takes it; the keys in it are as plain as in a valid file.

Contract: `split_jsonc(text)` gives the text's JSON, each comment outside a string (`//`
to the end of its line, `/* ... */`, one never closed to the end of the text) taken out
and each trailing comma (a `,` with only blanks and comments before the `}` or `]` that
follows it) too, everything else as written; and the comments' text, one a line, since
a key commented out (`// "OLD_TOKEN": "..."`) is a credential on disk all the same. A
string is a `"` to the next `"` that no backslash escapes, on one line; a `"` left open ends
at its line's end. One pass, linear in the text; never raises.
"""

from __future__ import annotations

import re

_COMMENT = r"//[^\r\n]*|/\*.*?(?:\*/|\Z)"
_TAKEN_OUT = re.compile(
    r'(?P<string>"[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*"?)'
    rf"|(?P<comment>{_COMMENT})"
    rf"|(?P<comma>,)(?=(?:\s|{_COMMENT})*[}}\]])",
    re.DOTALL,
)


def split_jsonc(text: str) -> tuple[str, str]:
    """The JSON a JSONC text holds, and its comments' text (module contract)."""
    kept: list[str] = []
    comments: list[str] = []
    start = 0
    for found in _TAKEN_OUT.finditer(text):
        if found.lastgroup == "string":
            continue  # a string is kept as written: `//` and `,}` in it are its text
        kept.append(text[start : found.start()])
        start = found.end()
        if found.lastgroup == "comment":
            kept.append(" ")
            comments.append(found.group().removeprefix("//").removeprefix("/*").removesuffix("*/"))
    kept.append(text[start:])
    return "".join(kept), "\n".join(comments)
