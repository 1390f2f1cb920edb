"""Lines a stdio MCP server wrote to stdout that are not JSON-RPC messages: which of them
break the connection, and how one is quoted. Pure.

Why: the MCP stdio transport carries one JSON-RPC message a line, and a server MUST NOT
write anything else to its stdout. The SDK hands each line it cannot read as a message
to its session as an error item, and the session drops it: a call whose answer was such
a line waited for its whole timeout (an outside attack: 60 s). Two kinds are told apart:
- a broken message: a line meant to be a JSON-RPC message that is none: it begins with
  `{`, names `"jsonrpc"` and is not JSON (half a message, or one cut in two by a raw
  line feed), or it is JSON naming `jsonrpc` (an object, or a batch of them) that is
  no valid message. The message (most likely the answer a call waits for) is lost, and
  what follows it cannot be trusted to be framed as messages: the hub stops the server
  at once, and a call waiting for it ends then;
- a stray line: anything else (a start-up banner, a log line, a blank line, a JSON log
  record, a pretty-printed dump whose first line is `{`). Skipped, as the SDKs' own
  clients skip it: some servers print such lines and work, and stopping them for it
  would cost more than it saves. The last one is quoted should a call then get no
  answer (also a broken message that does not name `"jsonrpc"` before its cut).

Contract: `might_be_message(line)` says whether a line's bytes can be a JSON-RPC message
or a broken one at all: False for a line that does not begin with `{` or `[` after white
space, or names no `jsonrpc` (written plainly or with a `\\u` escape): such a line is a
stray line whatever else it holds, told so without parsing it (a server logging to stdout
costs next to nothing). `read_stray_line(item)` is the line behind an error item of the SDK's stdio
reader (`StrayLine`: its text, at most `KEPT_CHARS`, and whether it is a broken message),
None for any other item; `read_deep_line(item)` is the whole line when the SDK's parser
gave up on it only for its depth (its limit is 200 objects and arrays);
`quote_line(text, secrets)` is the start of a line for a reason or a failure: `secrets`
redacted before anything is cut (a cut first could split a secret, which then would not
be recognised), controls written out (`written_out.reveal_all`), at most
`QUOTED_CHARS` characters, in quotes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from agent_cli.safe_cuts import cut_head, safe_head_end
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.written_out import reveal_all

KEPT_CHARS = 65_536  # of a line, for its quote: a secret at the window's end is cut off whole
QUOTE_WINDOW = 2_000  # characters read for a quote, before redaction
QUOTED_CHARS = 120


@dataclass(frozen=True)
class StrayLine:
    """A line of a server's stdout that is not a JSON-RPC message (module contract)."""

    text: str
    is_broken_message: bool


_FIRST_BYTE = re.compile(rb"[ \t\n\r\x0b\x0c]*([^ \t\n\r\x0b\x0c])")
_OPENINGS = frozenset(b"{[\x1c\x1d\x1e\x1f")  # and the rest str.lstrip() strips


def might_be_message(line: bytes) -> bool:
    """False when `line` is a stray line, told without parsing it (module contract): a
    message, or a broken one, is a JSON object or a batch (an array), and names
    `"jsonrpc"`; a parser reads a name written with `\\u` escapes as the same name. A
    line that begins with what `str.lstrip()` strips beyond ASCII white space (a broken
    message is told by its text stripped so) is left to the parser."""
    first = _FIRST_BYTE.match(line)
    if first is None:
        return False
    opening = first.group(1)[0]
    if opening not in _OPENINGS and opening < 0x80:
        return False
    return b'"jsonrpc"' in line or b"\\u" in line


def read_stray_line(item: object) -> StrayLine | None:
    """The line behind `item`, when it is the SDK's error for a line it could not read as
    a JSON-RPC message (a pydantic `ValidationError`); None otherwise."""
    errors = getattr(item, "errors", None)
    if type(item).__name__ != "ValidationError" or not callable(errors):
        return None
    try:
        found = [e for e in errors(include_url=False, include_context=False) if "input" in e]
    except Exception:  # noqa: BLE001  not the error it looks like
        return None
    if not found:
        return None
    value = found[0]["input"]
    if found[0].get("type") == "json_invalid" and isinstance(value, str):
        kept = value[:KEPT_CHARS]
        return StrayLine(kept, kept.lstrip().startswith("{") and '"jsonrpc"' in kept)
    value = _whole_value(found)
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except ValueError:  # a value nested too deep to write again
        text = str(value)
    return StrayLine(text[:KEPT_CHARS], _names_jsonrpc(value))


def read_deep_line(item: object) -> str | None:
    """The whole line behind `item`, when it is the SDK's error for a line its JSON parser
    gave up on as nested too deep (pydantic's `json_invalid`, "recursion limit
    exceeded"): such a line may still be a valid message. None for any other item."""
    errors = getattr(item, "errors", None)
    if type(item).__name__ != "ValidationError" or not callable(errors):
        return None
    try:
        found = errors(include_url=False, include_context=False)
    except Exception:  # noqa: BLE001  not the error it looks like
        return None
    if len(found) != 1 or found[0].get("type") != "json_invalid":
        return None
    value, said = found[0].get("input"), str(found[0].get("msg", ""))
    return value if isinstance(value, str) and "recursion limit" in said else None


def _whole_value(errors: list[Any]) -> object:
    """The JSON value a line held, from the errors of validating it as each kind of
    message: the object or list nearest the top (an error about a missing member holds
    the object that lacks it; one about a member's value, only that value)."""
    wholes = [e for e in errors if isinstance(e["input"], dict | list)]
    if not wholes:
        return errors[0]["input"]
    return min(wholes, key=lambda e: len(e.get("loc", ())))["input"]


def _names_jsonrpc(value: object) -> bool:
    """True for a JSON object with a `jsonrpc` member, or a list holding one (a batch)."""
    if isinstance(value, dict):
        return "jsonrpc" in value
    return isinstance(value, list) and any(
        isinstance(part, dict) and "jsonrpc" in part for part in value
    )


def quote_line(text: str, secrets: SecretForms = NO_SECRETS) -> str:
    """The start of `text`, quoted, for a reason (module contract)."""
    window = text[: QUOTE_WINDOW + secrets.longest_match]
    end = safe_head_end(window, QUOTE_WINDOW, secrets)
    said = reveal_all(secrets.redact(window[:end]))
    quoted = cut_head(said, QUOTED_CHARS - 1)  # with its "…" when cut
    if quoted == said and end < len(text):  # the window left the rest out
        quoted += "…"
    return f"'{quoted}'"
