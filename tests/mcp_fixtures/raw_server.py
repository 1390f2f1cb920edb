"""A hand-written MCP server over stdio (no SDK), for answers the SDK would never send:
it answers the handshake and the tool list properly, then answers every tools/call with
`python raw_server.py MODE`: `no_content` (a result without content), `bad_item` (a text
item without text), `not_json` (a line that is not JSON), `split_answer` (its answer cut
in two by a raw line feed in its text, which holds `RAW_SECRET` and an escape),
`logs_then_answer` (log lines on stdout, a blank one, a JSON log record, then the
answer), `logs_only` (a log line and no answer), `broken_after` (the answer, then a
broken message), `depth` (a proper answer saying how deep the call's arguments are
nested: Python's json reads deeper than the SDK's parser). `broken_handshake` answers
the handshake with a broken message."""

from __future__ import annotations

import json
import os
import sys

MODE = sys.argv[1]
SECRET = os.environ.get("RAW_SECRET", "none")
TOOL = {"name": "odd", "description": "Answers oddly.", "inputSchema": {"type": "object"}}


def send(message: dict) -> None:
    write(json.dumps(message) + "\n")


def write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def nesting(value: object) -> int:
    """How many arrays and objects deep `value` is (a string or a number: 0)."""
    depth = 0
    while isinstance(value, list | dict) and value:
        value = value[0] if isinstance(value, list) else next(iter(value.values()))
        depth += 1
    return depth


def answer_call(ident: object, arguments: object) -> None:
    head = '{"jsonrpc": "2.0", "id": ' + json.dumps(ident) + ', "result": '
    if MODE == "not_json":
        write("{this is not json\n")
    elif MODE == "split_answer":
        text = f"token={SECRET} \x1b]0;TITLE\x07 first line"
        write(head + '{"content": [{"type": "text", "text": "' + text + "\n")
        write('second line"}]}}\n')
    elif MODE == "logs_then_answer":
        write("INFO handling a call of odd\n\n" + json.dumps({"level": 30, "msg": "odd"}) + "\n")
        send(
            {"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": "ok"}]}}
        )
    elif MODE == "logs_only":
        write(f"Error: the backend refused token {SECRET}\n")
    elif MODE == "broken_after":
        send(
            {"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": "ok"}]}}
        )
        write('{"jsonrpc": "2.0", "method": "notifications/progress", "params": \n')
    elif MODE == "depth":
        text = f"the arguments are nested {nesting(arguments)} deep"
        send(
            {"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": text}]}}
        )
    elif MODE == "no_content":
        send({"jsonrpc": "2.0", "id": ident, "result": {"isError": False}})
    else:
        send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text"}]}})


for line in sys.stdin:
    request = json.loads(line)
    method, ident = request.get("method"), request.get("id")
    if ident is None:
        continue  # a notification
    if method == "initialize" and MODE == "broken_handshake":
        write('{"jsonrpc": "2.0", "id": ' + json.dumps(ident) + ', "result": {"protocolVers\n')
    elif method == "initialize":
        version = request["params"].get("protocolVersion", "2025-06-18")
        send(
            {
                "jsonrpc": "2.0",
                "id": ident,
                "result": {
                    "protocolVersion": version,
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "raw", "version": "1"},
                },
            }
        )
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": [TOOL]}})
    elif method == "tools/call":
        answer_call(ident, request["params"].get("arguments"))
    else:
        send({"jsonrpc": "2.0", "id": ident, "result": {}})
