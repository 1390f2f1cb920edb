"""A hand-written hostile MCP server over stdio (no SDK): legal but unusual answers and
misbehaviours the SDK's own servers would never produce, one per tool or start mode.

`python hostile_server.py MODE`, MODE one of:
- `normal`: answers the handshake and lists `TOOLS`;
- `stderr_flood`: as normal, while a thread writes to stderr without end;
- `stderr_flood_exit`: writes `FLOOD_MB` MB to stderr, then `last words` and its
  `HOSTILE_SECRET`, and exits 1 before the handshake;
- `collide`: lists the one tool `b__esc` (as server `a`, it is offered as `mcp__a__b__esc`);
- `die_after_ready`: as normal, but writes `bye` and its secret to stderr and exits 0.5 s
  after listing its tools;
- `exit_after_answer`: as normal, but answers a `tools/call` after `LOG_LINES` log
  notifications and exits 0 as soon as it has written that answer; its stdout pipe made
  as big as Linux allows (1 MiB), so the answer, behind those messages, is still in the
  pipe, unread, when it has exited;
- `fat_schema`: as normal, plus the tool `fat`, whose input schema is over 1 MB (more
  than agent-cli offers: it is left out);
- `api_refused_schemas`: as normal, plus `union` (a top-level `anyOf`, as real servers
  list for "by id or by name") and `badtype` (`"type": "notatype"` in a property), which
  the Messages API refuses;
- `string_schema`: as normal, plus `stringly`, whose input schema is `{"type": "string"}`
  (the SDK refuses the whole listing over it); `string_schema_after_ping`: the same, but
  before its listing it asks the client a `ping` of the very id the listing answers (ids
  of the two sides are apart: JSON-RPC lets them be equal);
- `deep_schema`: as normal, plus `deep`, whose input schema nests properties 100 deep (the
  listing's line is deeper than the SDK's JSON parser goes);
- `too_deep_line`: answers tools/list with a line nested 100,000 deep, past what any
  parser here reads;
- `nonfinite_schemas`: as normal, plus `huge` (`"maximum": 1e400`, valid JSON that reads
  as Infinity) and `nan` (`"default": NaN`, as Python's json.dumps writes a NaN), numbers
  strict JSON cannot carry;
- `odd_keys`: as normal, plus `search`, whose top-level property names the Messages API
  refuses (`filter[id]`, `$top`, `Account Number`, a blank one, one of `LONG_KEY`'s 70
  characters, `naïve`; beside them the safe `filter_id_`, and `$inner` nested deeper, which
  the API takes) and which answers with the arguments it got, as JSON; and `tangled`, whose
  `dependentRequired` names `$top` too.

Tools: `echo` and `esc` (text `ok`), `invalid_params` and `server_error` (a JSON-RPC error, codes
-32602 and -32000, whose message holds the secret), `big` (`n` MB of text),
`structured_only` (its data only in `structuredContent`), `bogus_image` (an `image/png`
item whose bytes are no PNG), `die` (writes why, with the secret, to stderr and exits
during the call)."""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import math
import os
import sys
import threading
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "normal"
SECRET = os.environ.get("HOSTILE_SECRET", "")
TOOLS = [
    "echo",
    "esc",
    "invalid_params",
    "server_error",
    "big",
    "structured_only",
    "bogus_image",
    "die",
]
lock = threading.Lock()
LOG_LINES = 5_000  # log notifications written before an answer (`exit_after_answer`)


BEYOND_FLOAT = "__1e400__"  # written as the bare number 1e400, which json.dumps cannot


def send(message: dict) -> None:
    with lock:
        sys.stdout.write(json.dumps(message).replace(f'"{BEYOND_FLOAT}"', "1e400") + "\n")
        sys.stdout.flush()


def result(ident: object, body: dict) -> None:
    send({"jsonrpc": "2.0", "id": ident, "result": body})


def flood() -> None:
    line = "x" * 1000 + "\n"
    while True:
        sys.stderr.write(line)


if MODE == "stderr_flood":
    threading.Thread(target=flood, daemon=True).start()
if MODE == "stderr_flood_exit":
    line = "y" * 1023 + "\n"
    for _ in range(int(os.environ.get("FLOOD_MB", "50")) * 1024):
        sys.stderr.write(line)
    sys.stderr.write(f"last words {SECRET}\n")
    sys.stderr.flush()
    sys.exit(1)


def tool_list() -> list[dict]:
    names = ["b__esc"] if MODE == "collide" else TOOLS
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    tools = [
        {"name": name, "description": f"hostile {name}", "inputSchema": schema} for name in names
    ]
    if MODE == "fat_schema":
        values = [f"value-{n:06d}-" + "x" * 20 for n in range(30_000)]
        fat = {"type": "object", "properties": {"q": {"type": "string", "enum": values}}}
        tools.append({"name": "fat", "description": "a fat schema", "inputSchema": fat})
    return tools + ODD_TOOLS.get(MODE.removesuffix("_after_ping"), [])


def nested(levels: int) -> dict:
    schema: dict = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


LONG_KEY = "k" * 70
ODD_KEYS = {
    "type": "object",
    "properties": {
        "filter[id]": {"type": "string"},
        "filter_id_": {"type": "string"},
        "$top": {"type": "integer"},
        "Account Number": {"type": "string"},
        "": {"type": "string"},
        LONG_KEY: {"type": "string"},
        "naïve": {"type": "boolean"},
        "nested": {"type": "object", "properties": {"$inner": {"type": "string"}}},
    },
    "required": ["filter[id]", "$top"],
}
TANGLED = {
    "type": "object",
    "properties": {"$top": {"type": "integer"}, "$skip": {"type": "integer"}},
    "dependentRequired": {"$skip": ["$top"]},
}
BY_ID_OR_NAME = {
    "type": "object",
    "properties": {"id": {"type": "string"}, "name": {"type": "string"}},
    "anyOf": [{"required": ["id"]}, {"required": ["name"]}],
}
ODD_TOOLS = {
    "api_refused_schemas": [
        {"name": "union", "description": "by id or by name", "inputSchema": BY_ID_OR_NAME},
        {
            "name": "badtype",
            "description": "a type no draft knows",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "notatype"}}},
        },
    ],
    "string_schema": [
        {"name": "stringly", "description": "a string schema", "inputSchema": {"type": "string"}}
    ],
    "odd_keys": [
        {"name": "search", "description": "odd keys", "inputSchema": ODD_KEYS},
        {"name": "tangled", "description": "odd keys named twice", "inputSchema": TANGLED},
    ],
    "deep_schema": [{"name": "deep", "description": "100 deep", "inputSchema": nested(100)}],
    "nonfinite_schemas": [
        {
            "name": name,
            "description": f"a schema holding {key} {value}",
            "inputSchema": {"type": "object", "properties": {"n": {"type": "number", key: value}}},
        }
        for name, key, value in (("huge", "maximum", BEYOND_FLOAT), ("nan", "default", math.nan))
    ],
}


def call(ident: object, name: str, arguments: dict) -> None:
    if name == "invalid_params":
        error = {"code": -32602, "message": f"invalid params: n is missing {SECRET}"}
        send({"jsonrpc": "2.0", "id": ident, "error": error})
    elif name == "server_error":
        error = {"code": -32000, "message": f"boom \x1b[2J {SECRET}"}
        send({"jsonrpc": "2.0", "id": ident, "error": error})
    elif name == "big":
        size = int(arguments.get("n", 1)) * 1024 * 1024
        result(ident, {"content": [{"type": "text", "text": "A" * size}]})
    elif name == "structured_only":
        result(ident, {"content": [], "structuredContent": {"temperature": 22.5, "city": "Paris"}})
    elif name == "die":
        sys.stderr.write(f"dying mid call: the backend refused {SECRET}\n")
        sys.stderr.flush()
        os._exit(3)
    elif name == "search":
        got = json.dumps(arguments, sort_keys=True, ensure_ascii=False)
        result(ident, {"content": [{"type": "text", "text": f"got {got}"}]})
    elif name == "bogus_image":
        data = base64.b64encode(b"not a png at all").decode()
        result(ident, {"content": [{"type": "image", "mimeType": "image/png", "data": data}]})
    else:
        result(ident, {"content": [{"type": "text", "text": "ok"}]})


def die() -> None:
    time.sleep(0.5)
    sys.stderr.write(f"bye {SECRET}\n")
    sys.stderr.flush()
    os._exit(0)


if MODE == "exit_after_answer":
    with contextlib.suppress(OSError, AttributeError):
        fcntl.fcntl(sys.stdout.fileno(), fcntl.F_SETPIPE_SZ, 1024 * 1024)

for raw_line in sys.stdin:
    request = json.loads(raw_line)
    method, ident = request.get("method"), request.get("id")
    if ident is None or method is None:
        continue  # a notification, or the client's answer to our ping
    if method == "initialize":
        version = request["params"].get("protocolVersion", "2025-06-18")
        info = {"name": "hostile", "version": "1"}
        result(
            ident, {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
        )
    elif method == "tools/list" and MODE == "too_deep_line":
        depth = 100_000
        sys.stdout.write('{"jsonrpc": "2.0", "id": ' + json.dumps(ident) + ', "result": ')
        sys.stdout.write('{"tools": ' + "[" * depth + "]" * depth + "}}\n")
        sys.stdout.flush()
    elif method == "tools/list":
        if MODE.endswith("_after_ping"):
            send({"jsonrpc": "2.0", "id": ident, "method": "ping"})
        result(ident, {"tools": tool_list()})
        if MODE == "die_after_ready":
            threading.Thread(target=die, daemon=True).start()
    elif method == "tools/call":
        params = request.get("params", {})
        if MODE == "exit_after_answer":
            for count in range(LOG_LINES):
                log = {"level": "debug", "data": f"working, step {count}"}
                send({"jsonrpc": "2.0", "method": "notifications/message", "params": log})
        call(ident, params.get("name"), params.get("arguments") or {})
        if MODE == "exit_after_answer":
            os._exit(0)
    else:
        result(ident, {})
