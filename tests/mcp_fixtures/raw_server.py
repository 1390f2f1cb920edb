"""A hand-written MCP server over stdio (no SDK), for answers the SDK would never send:
it answers the handshake and the tool list properly, then answers every tools/call with
`python raw_server.py MODE`: `no_content` (a result without content), `bad_item` (a text
item without text), `not_json` (a line that is not JSON)."""

from __future__ import annotations

import json
import sys

MODE = sys.argv[1]
TOOL = {"name": "odd", "description": "Answers oddly.", "inputSchema": {"type": "object"}}


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    request = json.loads(line)
    method, ident = request.get("method"), request.get("id")
    if ident is None:
        continue  # a notification
    if method == "initialize":
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
        if MODE == "not_json":
            sys.stdout.write("{this is not json\n")
            sys.stdout.flush()
        elif MODE == "no_content":
            send({"jsonrpc": "2.0", "id": ident, "result": {"isError": False}})
        else:
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text"}]}})
    else:
        send({"jsonrpc": "2.0", "id": ident, "result": {}})
