"""The shape of a JSON text as a stream of events, read from a parsed document or, read
tolerantly, from a text no parser takes whole. Pure.

Why: what names a JSON value (its key, a credential-named key above it, a `"name"`
beside it) is the same whether the parser took the text or not: a file cut short, or
nested deeper than Python's parser follows (`[` 20,000 times), still says under which
keys each value stands. One reader of events (`tools.dotenv_json`) names values from
either source.

Contract: an event is `OPEN` (an object or an array begins; `key` is the member's key
it stands under, `None` for an array's item or the top), `CLOSE` (the last one open
ends) or `SCALAR` (`key` as for `OPEN`; `text` a string as it is, a number as JSON
writes it; empty strings, `true`, `false` and `null` give none).
- `document_events(document)`: the events of a parsed JSON document, in document order,
  walked with a stack of its own (no depth is a recursion limit).
- `scanned_events(text)`: the events of whatever JSON is written in `text`: each `{`
  and `[` an `OPEN`, each `}` and `]` a `CLOSE`, a string or bare word followed by `:`
  the key of what follows, any other string (decoded as JSON, or as written when it is
  no valid JSON string) or bare word (a number, JSON5's `Infinity`) a `SCALAR`, a
  string on one line only. A close with nothing open, a missing comma or a text cut
  short change nothing else. A bracket with no key opened when `MAX_DEPTH` are open
  gives no event, nor does its close (what it holds is read as if it stood where it
  opened): `[` a million times costs a count, not a million frames. Linear in the text;
  never raises.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from typing import NamedTuple

OPEN = "open"
CLOSE = "close"
SCALAR = "scalar"
# How many brackets open without a key give events (module contract).
MAX_DEPTH = 256
_NO_VALUE_WORDS = frozenset({"true", "false", "null"})
_STRING = r'"[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*"'
_TOKEN = re.compile(
    rf"(?P<pair>(?P<name>{_STRING})\s*:\s*(?P<value>{_STRING}))|(?P<string>{_STRING})"
    r"|(?P<open>[{\[][{\[\s]*)|(?P<close>[}\]][}\]\s]*)|(?P<colon>:)|(?P<comma>,)"
    r'|(?P<word>[^\s"{}\[\]:,]+)'
)


class JsonEvent(NamedTuple):
    """One event of a JSON text's shape (module contract)."""

    kind: str
    key: str | None = None
    text: str = ""


def document_events(document: object) -> Iterator[JsonEvent]:
    """The events of a parsed JSON document (module contract)."""
    stack: list[Iterator[tuple[str | None, object]]] = [iter([(None, document)])]
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
            if stack:  # the top's own iterator is no container
                yield JsonEvent(CLOSE)
            continue
        key, node = entry
        if isinstance(node, dict):
            yield JsonEvent(OPEN, key)
            stack.append((str(name), item) for name, item in node.items())
        elif isinstance(node, list):
            yield JsonEvent(OPEN, key)
            stack.append((None, item) for item in node)
        elif text := _scalar_text(node):
            yield JsonEvent(SCALAR, key, text)


def scanned_events(text: str) -> Iterator[JsonEvent]:
    """The events of the JSON written in `text`, read token by token (module contract)."""
    brackets = _Brackets()
    key: str | None = None  # a key read, its value not yet
    held: str | None = None  # a string or word read: a key if `:` follows, else a value
    for token in _TOKEN.finditer(text):
        kind = token.lastgroup
        if kind == "colon":
            key, held = (held, None) if held is not None else (key, None)
            continue
        if held is not None:
            if held:
                yield JsonEvent(SCALAR, key, held)
            key = held = None
        if kind == "pair":  # `"key": "value"` at once: most of a text, a third of the steps
            if value := _decoded(token.group("value")):
                yield JsonEvent(SCALAR, _decoded(token.group("name")), value)
        elif kind in ("string", "word"):
            held = _held(token.group())
            continue  # the key read stays for it
        elif kind == "open":
            yield from brackets.opened(key, _brackets(token.group()))
        elif kind == "close":
            yield from brackets.closed(_brackets(token.group()))
        key = None
    if held:
        yield JsonEvent(SCALAR, key, held)


class _Brackets:
    """The brackets open in a scanned text, as the events given for them: each one with
    a key gives one, one without only while fewer than `MAX_DEPTH` are given and open;
    `skipped[i]` counts those that gave none opened above the i-th given (`[0]`: the top),
    so a text of `[` only is a count, not a frame for each."""

    def __init__(self) -> None:
        self.skipped = [0]

    def opened(self, key: str | None, count: int) -> Iterator[JsonEvent]:
        if key is not None:
            self.skipped.append(0)
            yield JsonEvent(OPEN, key)
            count -= 1
            if not count:  # one bracket after a key: most of a text
                return
        given = max(0, min(count, MAX_DEPTH + 1 - len(self.skipped)))
        self.skipped.extend(itertools.repeat(0, given))
        yield from itertools.repeat(JsonEvent(OPEN), given)
        self.skipped[-1] += count - given

    def closed(self, count: int) -> Iterator[JsonEvent]:
        while count:
            taken = min(self.skipped[-1], count)
            self.skipped[-1] -= taken
            count -= taken
            if not count or len(self.skipped) == 1:
                return  # a close with nothing open changes nothing
            self.skipped.pop()
            count -= 1
            yield JsonEvent(CLOSE)


def _held(written: str) -> str:
    """A string's text, or a bare word's (none for `true`, `false`, `null`)."""
    if written.startswith('"'):
        return _decoded(written)
    return "" if written in _NO_VALUE_WORDS else written


def _brackets(run: str) -> int:
    """How many brackets a run of them (blanks between) holds."""
    return 1 if len(run) == 1 else sum(map(run.count, "{[]}"))


def _decoded(quoted: str) -> str:
    """A JSON string's text, or what is written between its quotes if it is no valid one."""
    if "\\" not in quoted:
        return quoted[1:-1]
    try:
        decoded = json.loads(quoted)
    except ValueError:
        return quoted[1:-1]
    return decoded if isinstance(decoded, str) else quoted[1:-1]


def _scalar_text(node: object) -> str:
    """A string as it is, a number as JSON writes it; nothing for booleans and null."""
    if isinstance(node, str):
        return node
    if isinstance(node, int | float) and not isinstance(node, bool):
        return json.dumps(node)
    return ""
