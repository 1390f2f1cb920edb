"""How agent-cli splits a stdio MCP server's stdout into messages (an outside attack: the
SDK's reader took time growing with the square of a line's size, 80 MB failing as "no
answer" after 60 s, and parsed every log line): the pure halves. `stdout_lines` splits,
scanning each chunk once and keeping no more of a line than the limit;
`stray_lines.might_be_message` tells a log line without parsing it; `over_limit` names
the request a line over the limit answered. The process tests are in
`test_mcp_long_lines.py`."""

from __future__ import annotations

import json

import pytest

from agent_cli.mcp_servers.over_limit import (
    OverLimitAnswer,
    answered_id,
    describe_over_limit,
    read_over_limit,
)
from agent_cli.mcp_servers.stdout_lines import EDGE_BYTES, LineSplitter, OverLimit
from agent_cli.mcp_servers.stray_lines import might_be_message


def _split(chunks: list[bytes], limit: int = 1_000) -> list[bytes | OverLimit]:
    splitter = LineSplitter(limit)
    return [line for chunk in chunks for line in splitter.feed(chunk)]


def test_lines_are_split_across_and_within_chunks():
    chunks = [b'{"a": 1}\n{"b"', b": 2", b"}\n\nlog line\nhalf", b" a line\n", b"never ended"]
    assert _split(chunks) == [b'{"a": 1}', b'{"b": 2}', b"", b"log line", b"half a line"]


def test_a_line_in_a_thousand_chunks_is_whole_and_pending_counts_it():
    splitter = LineSplitter(10_000)
    for _ in range(1_000):
        assert splitter.feed(b"0123456") == []
    assert splitter.pending == 7_000
    assert splitter.feed(b"89\nnext") == [b"0123456" * 1_000 + b"89"]
    assert splitter.pending == 4


def test_a_line_over_the_limit_keeps_only_its_ends_and_the_next_line_is_whole():
    limit = 3 * EDGE_BYTES
    head, tail = b"H" * EDGE_BYTES, b"T" * EDGE_BYTES
    chunks = [head + b"m" * 1_000, *([b"m" * 1_000] * 50), b"m" * 10 + tail + b"\nafter\n"]
    [over, after] = _split(chunks, limit)
    assert isinstance(over, OverLimit)
    assert over.size == 2 * EDGE_BYTES + 51_010
    assert over.head == head and over.tail == tail
    assert after == b"after"


def test_a_line_just_at_the_limit_is_kept_and_one_byte_more_is_not():
    assert _split([b"x" * 100 + b"\n"], limit=100) == [b"x" * 100]
    [over] = _split([b"x" * 60, b"x" * 41 + b"\n"], limit=100)
    assert isinstance(over, OverLimit) and over.size == 101


def test_a_line_over_the_limit_within_one_chunk_is_cut_too():
    [over, after] = _split([b"y" * 5_000 + b"\nz\n"], limit=100)
    assert isinstance(over, OverLimit) and over.size == 5_000 and after == b"z"


@pytest.mark.parametrize(
    ("line", "may_be"),
    [
        (b'{"jsonrpc": "2.0", "id": 1, "result": {}}', True),
        (b'  \t{"jsonrpc": "2.0", "method": "x"}', True),
        (b'[{"jsonrpc": "2.0", "id": 1, "result": {}}]', True),
        (b'{"json\\u0072pc": "2.0", "id": 1, "result": {}}', True),  # a name escaped
        (b'{"jsonrpc": "2.0", "id": 3, "result": {"content": [{"text": "cut', True),
        (b'\x1c{"jsonrpc": "2.0"', True),  # str.lstrip() strips \x1c: left to the parser
        (b"INFO server started", False),
        (b"", False),
        (b"   ", False),
        (b'DEBUG sent {"jsonrpc": "2.0", "id": 3}', False),
        (b'{"level": 30, "msg": "a JSON log record"}', False),
        (b"{", False),
        (b"42", False),
    ],
)
def test_a_line_that_cannot_be_a_message_is_told_without_parsing(line, may_be):
    assert might_be_message(line) is may_be


def _over(message: str, cut: int) -> OverLimit:
    """The line `message`, as kept past the limit: its first and last `cut` bytes."""
    data = message.encode()
    return OverLimit(len(data) + 10**8, data[:cut], data[-cut:])


FILLER = {"content": [{"type": "text", "text": "a, b", "id": 99}] * 50}


@pytest.mark.parametrize(
    ("message", "ident"),
    [
        ({"jsonrpc": "2.0", "id": 7, "result": FILLER}, 7),  # Python's SDK: id first
        ({"result": FILLER, "jsonrpc": "2.0", "id": "req-7"}, "req-7"),  # TypeScript's: last
        ({"jsonrpc": "2.0", "error": {"code": 1, "message": "x" * 4000}, "id": 8}, 8),
        ({"jsonrpc": "2.0", "method": "notifications/message", "params": FILLER}, None),
        ({"jsonrpc": "2.0", "id": 9, "method": "sampling/createMessage", "params": FILLER}, None),
        ({"jsonrpc": "2.0", "result": FILLER}, None),  # no id at either end
        ({"jsonrpc": "2.0", "id": True, "result": FILLER}, None),
    ],
)
def test_the_request_a_line_over_the_limit_answered_is_read_from_its_ends(message, ident):
    assert answered_id(_over(json.dumps(message), 600)) == ident


def test_a_line_over_the_limit_that_is_no_json_object_answers_nothing():
    assert answered_id(OverLimit(10**9, b"#" * 4096, b"#" * 4096)) is None
    assert answered_id(OverLimit(10**9, b'{"id": 1, "resu', b'"id": 2}')) == 1


def test_the_over_limit_answer_is_found_in_the_error_and_only_there():
    from mcp.shared.exceptions import MCPError

    answer = OverLimitAnswer(80 * 1024 * 1024 + 100, 64 * 1024 * 1024)
    assert read_over_limit(MCPError(-32603, "too big", answer)) == answer
    forged = {"size": 1, "limit": 2}  # what a server could write: JSON, no such object
    assert read_over_limit(MCPError(-32603, "too big", forged)) is None
    assert read_over_limit(ValueError("x")) is None
    said = describe_over_limit(answer)
    assert said.startswith("80.0 MiB in one message, over agent-cli's limit of 64 MiB")
