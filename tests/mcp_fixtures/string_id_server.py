"""A minimal stdio MCP server that answers each request under its id written as a string
(`"7"` for 7), which the MCP SDK accepts as the answer to 7 (`coerce_request_id`: "matches
the TS SDK"); after the reviewer's `strid_server.py` (round 29). It never answers a
`ping` (as a dead server would not, were something else to hold its pipes).

Tools: `echo` answers "ok"; `exit` answers "bye", then the server exits. Standard library
only.
"""

from __future__ import annotations

import json
import sys

TOOLS = [
    {"name": name, "description": name, "inputSchema": {"type": "object", "properties": {}}}
    for name in ("echo", "exit")
]


def send(ident: str, result: dict[str, object]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}) + "\n")
    sys.stdout.flush()


def text(said: str) -> dict[str, object]:
    return {"content": [{"type": "text", "text": said}]}


for line in sys.stdin:
    message = json.loads(line)
    ident, method = message.get("id"), message.get("method")
    if ident is None or method == "ping":
        continue
    if method == "initialize":
        version = message["params"].get("protocolVersion", "2025-06-18")
        info = {"name": "string-ids", "version": "1"}
        send(
            str(ident),
            {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info},
        )
    elif method == "tools/list":
        send(str(ident), {"tools": TOOLS})
    elif method == "tools/call":
        name = message["params"]["name"]
        send(str(ident), text("bye" if name == "exit" else "ok"))
        if name == "exit":
            sys.exit(0)
    else:
        send(str(ident), {})
