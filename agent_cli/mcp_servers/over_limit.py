"""A stdio MCP server's message too long to read (`stdout_lines.OverLimit`): which request
it answered, and how the call that made it fails. Pure.

Why: a line past `MESSAGE_LIMIT` is dropped as it is read, so that a server cannot make
agent-cli hold gigabytes; the call it answered must still end then, saying why, not wait
out its timeout as if no answer had come (and the server, whose framing is intact, stays
ready).

Contract: `MESSAGE_LIMIT` is the most bytes one message may take. `answered_id(line)` is
the id of the request the line answers, read from the members of its top-level object
that its kept ends show whole (the SDKs write `id` first, as Python's does, or last, as
TypeScript's does); None when neither end shows one, or when the line names a `method`
(a request or a notification, which answers nothing). `OverLimitAnswer` is what the error
that call gets carries as its data (an object no server can write, so no error a server
sends reads as one), and `read_over_limit(error)` finds it in what the call raised;
`describe_over_limit(answer)` is the failure's middle.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from agent_cli.mcp_servers.failures import innermost
from agent_cli.mcp_servers.stdout_lines import OverLimit

# The largest answer whose content can reach the model is 8 images of 5 MB encoded (40 MB
# of base64) and 1 MiB of text (README: MCP servers); 64 MiB holds that with room, while
# one message read costs a few times its size in memory (its bytes, its text, the parsed
# message), a few hundred MB at most.
MESSAGE_LIMIT = 64 * 1024 * 1024
_MAX_TRIES = 256  # cuts tried at each end: a kept end is 4 KB


@dataclass(frozen=True)
class OverLimitAnswer:
    """A server's answer of `size` bytes, dropped unread for being over `limit`."""

    size: int
    limit: int


def answered_id(line: OverLimit) -> int | str | None:
    """The id of the request `line` answers (module contract)."""
    members = {**_trailing_members(line.tail), **_leading_members(line.head)}
    ident = members.get("id")
    if "method" in members or isinstance(ident, bool) or not isinstance(ident, int | str):
        return None
    return ident


def read_over_limit(error: BaseException) -> OverLimitAnswer | None:
    """The `OverLimitAnswer` a call's `error` carries, None for any other error."""
    data = getattr(getattr(innermost(error), "error", None), "data", None)
    return data if isinstance(data, OverLimitAnswer) else None


def describe_over_limit(answer: OverLimitAnswer) -> str:
    """What a call answered by a message over the limit got, after the server's name."""
    return (
        f"{_mib(answer.size)} in one message, over agent-cli's limit of {_mib(answer.limit)} "
        "for one MCP message: the answer was dropped unread"
    )


def _mib(size: int) -> str:
    whole = size / (1024 * 1024)
    return f"{whole:g} MiB" if whole == int(whole) else f"{whole:.1f} MiB"


def _leading_members(head: bytes) -> dict[str, object]:
    """The members at the start of the object `head` begins, as far as they are whole:
    the longest cut after a top-level member that reads as an object once closed."""
    text = head.decode("utf-8", errors="replace").lstrip()
    found: dict[str, object] = {}
    if not text.startswith("{"):
        return found
    cut = text.find(",")
    for _ in range(_MAX_TRIES):
        if cut < 0:
            break
        found = _object(text[:cut] + "}") or found
        cut = text.find(",", cut + 1)
    return found


def _trailing_members(tail: bytes) -> dict[str, object]:
    """The members at the end of the object `tail` ends, as far as they are whole: the
    longest cut before a top-level member that reads as an object once opened."""
    text = tail.decode("utf-8", errors="replace").rstrip()
    found: dict[str, object] = {}
    if not text.endswith("}"):
        return found
    cut = text.rfind(",")
    for _ in range(_MAX_TRIES):
        if cut < 0:
            break
        found = _object("{" + text[cut + 1 :]) or found
        cut = text.rfind(",", 0, cut)
    return found


def _object(text: str) -> dict[str, object] | None:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
