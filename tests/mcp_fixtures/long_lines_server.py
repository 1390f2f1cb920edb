"""A hand-written MCP server over stdio (no SDK) whose stdout holds long lines and many
lines: it answers the handshake and lists its tools, then, for `tools/call` of
- `ok`: the text `ok`;
- `huge` (`mb`): `mb` MiB of text on one line;
- `over_limit` (`mb`, `id_last`): an answer of `mb` MiB, written in 1 MiB pieces (never
  held whole), its `id` first as Python's SDK writes it, or last (`id_last`) as
  TypeScript's does;
- `junk_then_answer` (`mb`): `mb` MiB of `#` with no line feed, one, then the answer;
- `logs` (`n`): `n` log lines and JSON log records on stdout, then the answer;
- `half_then_more` (`mb`): the first half of an answer of `mb` MiB (then it creates the
  file `LONG_HALF_MARK` names, if set), then, once the client cancels that call
  (`notifications/cancelled`), the rest of it.
"""

from __future__ import annotations

import json
import os
import sys

MIB = 1024 * 1024
TOOLS = ["ok", "huge", "over_limit", "junk_then_answer", "logs", "half_then_more"]


def write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def send(message: dict) -> None:
    write(json.dumps(message) + "\n")


def text_answer(ident: object, text: str) -> None:
    send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": text}]}})


def over_limit(ident: object, mb: int, id_last: bool) -> None:
    envelope = f'"jsonrpc": "2.0", "id": {json.dumps(ident)}'
    write("{" + ("" if id_last else envelope + ", ") + '"result": {"content": [')
    write('{"type": "text", "text": "')
    for _ in range(mb):
        write("z" * MIB)
    write('"}]}' + (", " + envelope if id_last else "") + "}\n")


def half_then_more(ident: object, mb: int) -> None:
    write('{"jsonrpc": "2.0", "id": ' + json.dumps(ident) + ', "result": {"content": [')
    write('{"type": "text", "text": "' + "h" * (mb * MIB // 2))
    if os.environ.get("LONG_HALF_MARK"):
        with open(os.environ["LONG_HALF_MARK"], "w", encoding="utf-8"):
            pass
    for line in sys.stdin:  # until the client gives the call up
        if json.loads(line).get("method") == "notifications/cancelled":
            break
    write("h" * (mb * MIB // 2) + '"}]}}\n')


def call(ident: object, name: str, arguments: dict) -> None:
    mb = int(arguments.get("mb", 1))
    if name == "huge":
        text_answer(ident, "x" * (mb * MIB))
    elif name == "over_limit":
        over_limit(ident, mb, bool(arguments.get("id_last")))
    elif name == "junk_then_answer":
        for _ in range(mb):
            write("#" * MIB)
        write("\n")
        text_answer(ident, "after the junk")
    elif name == "logs":
        lines = (
            f"INFO {i} " + "y" * 90 + "\n" + json.dumps({"level": 30, "msg": f"record {i}"}) + "\n"
            for i in range(int(arguments.get("n", 1)) // 2)
        )
        write("".join(lines))
        text_answer(ident, "after the logs")
    elif name == "half_then_more":
        half_then_more(ident, mb)
    else:
        text_answer(ident, "ok")


for line in sys.stdin:
    request = json.loads(line)
    method, ident = request.get("method"), request.get("id")
    if ident is None:
        continue  # a notification
    if method == "initialize":
        version = request["params"].get("protocolVersion", "2025-06-18")
        info = {"name": "long", "version": "1"}
        capabilities = {"tools": {}}
        result = {"protocolVersion": version, "capabilities": capabilities, "serverInfo": info}
        send({"jsonrpc": "2.0", "id": ident, "result": result})
    elif method == "tools/list":
        tools = [{"name": name, "inputSchema": {"type": "object"}} for name in TOOLS]
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": tools}})
    elif method == "tools/call":
        call(ident, request["params"]["name"], request["params"].get("arguments") or {})
    else:
        send({"jsonrpc": "2.0", "id": ident, "result": {}})
