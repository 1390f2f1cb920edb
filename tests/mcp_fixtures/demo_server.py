"""An MCP server for the tests, written with the official SDK, run over stdio.

`python demo_server.py [mode]`: `normal` offers `echo`, `add`, `big` (5 MB of text),
`picture` (a PNG), `fail` (an error result), `crash` (the process exits mid-call) and
`hang` (never answers; it writes the file `DEMO_HANG_STARTED_FILE` names first, when
set); it also lists a tool named `../../x` and one with a 100 KB
description, which agent-cli must skip or trim. `noinit` never answers the handshake;
`garbage` writes garbage to stdout first; `exit` writes to stderr and exits at once;
`child` starts a child process that should die with the server.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "normal"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

if MODE == "exit":
    print("demo server: cannot open its database /nonexistent.db", file=sys.stderr)
    sys.exit(3)
if MODE == "noinit":
    time.sleep(3_600)
if MODE == "garbage":
    print("this is not JSON-RPC at all", flush=True)
if MODE == "child":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    with open(os.environ["DEMO_CHILD_PID_FILE"], "w") as handle:
        handle.write(str(child.pid))

from mcp.server.mcpserver import MCPServer  # noqa: E402
from mcp.types import ImageContent  # noqa: E402

server = MCPServer("demo")


@server.tool(description="Echo the text back.")
def echo(text: str) -> str:
    return f"echo: {text}"


@server.tool(description="Add two integers.")
def add(a: int, b: int) -> str:
    return str(a + b)


@server.tool(description="Five megabytes of numbered lines.")
def big() -> str:
    return "".join(f"line {n:07d} of a very large result\n" for n in range(150_000))


@server.tool(description="A one-pixel PNG.")
def picture() -> ImageContent:
    return ImageContent(type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png")


@server.tool(description="Always fails.")
def fail() -> str:
    raise ValueError("the demo tool failed on purpose")


@server.tool(description="The server process dies during this call.")
def crash() -> str:
    os._exit(7)


@server.tool(description="Never answers.")
def hang() -> str:
    started = os.environ.get("DEMO_HANG_STARTED_FILE")
    if started:  # a test waits for it to know the call is running
        with open(started, "w") as handle:
            handle.write("running")
    time.sleep(3_600)
    return "late"


@server.tool(name="../../x", description="A name the Messages API refuses.")
def bad_name() -> str:
    return "never offered"


@server.tool(description="x" * 100_000)
def wordy() -> str:
    return "a tool with a long description"


if __name__ == "__main__":
    server.run()
