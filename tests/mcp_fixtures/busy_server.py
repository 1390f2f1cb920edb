"""A minimal single-threaded stdio MCP server, as many hand-written ones are: it handles
one message at a time, so a `ping` waits behind a call it is busy with (after the outside
tester's `slow_server.py`, round 29).

`python busy_server.py HOLD`, run through `forking_launcher.py` with a pid file (its parent
is that launcher, waiting for SIGUSR1). Tools: `slow` sends its parent SIGUSR1 (the
launcher exits in the middle of the call: agent-cli then pings the server), waits until
the ping has reached its stdin, then HOLD seconds more (the call outlasting the ping's
answer time) before it answers; `quick` answers at once. Standard library only.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time

HOLD = float(sys.argv[1])
pending = b""


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def next_line() -> bytes | None:
    """The next line of stdin, read by hand (no buffer hides what is still in the pipe)."""
    global pending
    while b"\n" not in pending:
        chunk = os.read(0, 65_536)
        if not chunk:
            return None
        pending += chunk
    line, pending = pending.split(b"\n", 1)
    return line


def slow() -> None:
    os.kill(os.getppid(), signal.SIGUSR1)  # the launcher exits now
    if not pending:
        select.select([0], [], [])  # agent-cli's ping has arrived, unread
    time.sleep(HOLD)


TOOLS = [
    {"name": name, "description": name, "inputSchema": {"type": "object", "properties": {}}}
    for name in ("slow", "quick")
]

while (line := next_line()) is not None:
    message = json.loads(line)
    ident, method = message.get("id"), message.get("method")
    if ident is None:
        continue
    if method == "initialize":
        version = message["params"].get("protocolVersion", "2025-06-18")
        info = {"name": "busy", "version": "1"}
        result = {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
        send({"jsonrpc": "2.0", "id": ident, "result": result})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        name = message["params"]["name"]
        if name == "slow":
            slow()
        text = {"type": "text", "text": f"{name} finished"}
        send({"jsonrpc": "2.0", "id": ident, "result": {"content": [text]}})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": ident, "result": {}})
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no method"}})
