"""A raw JSON-RPC MCP server over stdio whose `tools/list` pages the tests choose.

`python paging_server.py many N`: one page of N tools `t0`..`t<N-1>`; `loop`: every page
holds no tools and points on to the cursor "same"; `repeat`: each page holds one new tool
and points on to the cursor "same"; `endless`: each page holds one new tool and a new
cursor. Each `tools/list` is counted in the file named by PAGING_COUNT_FILE.
"""

from __future__ import annotations

import json
import os
import sys

MODE, COUNT = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0
asked = 0


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def tool(name: str) -> dict:
    return {"name": name, "description": "d", "inputSchema": {"type": "object"}}


def page() -> dict:
    if MODE == "many":
        return {"tools": [tool(f"t{n}") for n in range(COUNT)]}
    if MODE == "loop":
        return {"tools": [], "nextCursor": "same"}
    if MODE == "repeat":
        return {"tools": [tool(f"t{asked}")], "nextCursor": "same"}
    return {"tools": [tool(f"t{asked}")], "nextCursor": f"c{asked}"}


for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    method, ident = message.get("method"), message.get("id")
    if method == "initialize":
        version = message["params"]["protocolVersion"]
        info = {"name": "paging", "version": "1"}
        result = {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
        send({"jsonrpc": "2.0", "id": ident, "result": result})
    elif method == "tools/list":
        asked += 1
        with open(os.environ["PAGING_COUNT_FILE"], "w") as counted:
            counted.write(str(asked))
        send({"jsonrpc": "2.0", "id": ident, "result": page()})
    elif method == "tools/call":
        text = "called " + message["params"]["name"]
        send(
            {"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": text}]}}
        )
    elif ident is not None:
        send({"jsonrpc": "2.0", "id": ident, "result": {}})
