"""A hand-written MCP server over stdio (no SDK) whose tools change while it runs. It
declares `tools.listChanged` and sends `notifications/tools/list_changed` before the
answer of the call that changes them (as a server does that adds tools on demand):
`grow` adds the tool `fresh` and removes `gone`; `same` sends the notification with
nothing changed; `fresh` and `gone` answer with their names. `tools/list` is answered in
pages of two (the listing at start and each one after a change are paged alike).

Its first argument, when given, is a mode: `hang` answers the listing at start and no
`tools/list` after it; `nonfinite`: the tool `grow` adds has `"maximum": Infinity` in its
schema (as Python's json.dumps writes an infinite float); `flood` says its tools changed right after every listing's last
page, for ever (a server in a loop). Each listing (its first page) is logged to the file
`$LISTING_LOG` (when set), one line each: "list", or "hung" for one left unanswered (so
a test knows that listing is under way)."""

from __future__ import annotations

import json
import math
import os
import sys

SCHEMA = {"type": "object", "properties": {}}
tools = ["gone", "grow", "same"]
MODE = sys.argv[1] if len(sys.argv) > 1 else "change"
LOG = os.environ.get("LISTING_LOG")
listings = 0


def log(line: str) -> None:
    if LOG:
        with open(LOG, "a", encoding="utf-8") as file:
            file.write(line + "\n")


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def listing(cursor: object) -> dict:
    start = int(cursor) if isinstance(cursor, str) and cursor.isdigit() else 0
    page = [
        {"name": name, "description": f"The {name} tool.", "inputSchema": schema_of(name)}
        for name in tools[start : start + 2]
    ]
    more = {"nextCursor": str(start + 2)} if start + 2 < len(tools) else {}
    return {"tools": page, **more}


def schema_of(name: str) -> dict:
    if MODE == "nonfinite" and name == "fresh":
        return {"type": "object", "properties": {"n": {"type": "number", "maximum": math.inf}}}
    return SCHEMA


def call(name: str) -> str:
    if name == "grow":
        tools.remove("gone")
        tools.append("fresh")
    if name in ("grow", "same"):
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    return f"{name} ran"


for line in sys.stdin:
    request = json.loads(line)
    method, ident = request.get("method"), request.get("id")
    if ident is None:
        continue
    params = request.get("params") or {}
    if method == "initialize":
        result: dict = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": "changing", "version": "1"},
        }
    elif method == "tools/list":
        first_page = not params.get("cursor")
        if first_page:
            listings += 1
        if MODE == "hang" and listings > 1:
            log("hung")
            continue  # never answered
        if first_page:
            log("list")
        result = listing(params.get("cursor"))
        if MODE == "flood" and "nextCursor" not in result:
            send({"jsonrpc": "2.0", "id": ident, "result": result})
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            continue
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": call(params["name"])}]}
    else:
        result = {}
    send({"jsonrpc": "2.0", "id": ident, "result": result})
