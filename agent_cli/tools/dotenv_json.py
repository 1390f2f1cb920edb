"""What a dotenv file written as JSON assigns (`.env.json`, env-cmd's `.env-cmdrc`). Pure.

Tools that read `.env.json` (`dotenv-json`, `env-cmd`) take a JSON object of names and
values, flat or one object per environment; the line reader (`tools.dotenv_syntax`)
sees no `NAME=value` in it, so without this its keys would go out unredacted.

Contract: `json_pairs(text)` gives, for a text whose first character past blanks is `{`
or `[`, a `(name, value)` pair for every string or number in its JSON at any depth, named
as the YAML form is read, by its own key (an array's items by the array's key), but by
the nearest credential-named key above it when there is one (`{"credentials": {"github":
"..."}}` names it `credentials`, as `tools.credentials.credentials_inside` reads a JSON
value). A text that is no valid JSON (comments, a trailing comma, a file cut short, or
nested past the parser) gives each `"key": "string"` pair written in it (`quoted_pairs`).
Empty strings, `true`, `false` and `null` give none, and neither does any other text.
Never raises.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from agent_cli.tools.credentials import is_credential_name
from agent_cli.tools.quoted_pairs import quoted_pairs


def json_pairs(text: str) -> Iterator[tuple[str, str]]:
    """The names and values a JSON dotenv text assigns (module contract)."""
    if not text.lstrip().startswith(("{", "[")):
        return
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        yield from quoted_pairs(text)
        return
    yield from _document_pairs(document)


def _document_pairs(document: object) -> Iterator[tuple[str, str]]:
    """Every string and number in `document` with its name (module contract), walked
    with a stack of its own: a deeply nested document is no recursion limit."""
    stack: list[tuple[object, str | None]] = [(document, None)]
    while stack:
        node, name = stack.pop()
        if isinstance(node, dict):
            for key, item in reversed(node.items()):
                keeps = name is not None and is_credential_name(name)
                stack.append((item, name if keeps else str(key)))
        elif isinstance(node, list):
            stack.extend((item, name) for item in reversed(node))
        elif name is not None and (value := _scalar_text(node)):
            yield name, value


def _scalar_text(node: object) -> str:
    """A string as it is, a number as JSON writes it; nothing for booleans and null."""
    if isinstance(node, str):
        return node
    if isinstance(node, int | float) and not isinstance(node, bool):
        return json.dumps(node)
    return ""
