"""An MCP server over streamable HTTP on loopback, for the tests: `python http_server.py
PORT_FILE` serves `/mcp` on 127.0.0.1 at a free port, written to PORT_FILE, and checks
that every request carries `Authorization: Bearer test-token`."""

from __future__ import annotations

import socket
import sys

import uvicorn
from mcp.server.mcpserver import MCPServer

server = MCPServer("web")


@server.tool(description="Echo the text back, over HTTP.")
def echo(text: str) -> str:
    return f"http echo: {text}"


def main(port_file: str) -> None:
    app = server.streamable_http_app()

    async def guarded(scope, receive, send):  # type: ignore[no-untyped-def]
        headers = dict(scope.get("headers") or [])
        if scope["type"] == "http" and headers.get(b"authorization") != b"Bearer test-token":
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b"no token"})
            return
        await app(scope, receive, send)

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    with open(port_file, "w") as handle:
        handle.write(str(sock.getsockname()[1]))
    config = uvicorn.Config(guarded, log_level="error", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main(sys.argv[1])
