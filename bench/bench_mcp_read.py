"""Reading a stdio MCP server's stdout: one big answer, and many log lines before one.

Run with `python -m bench bench_mcp_read` (or `make bench`). Prints figures only, asserts
nothing. A small server (written to a temp folder, no SDK) answers `tools/call` of
`big` with `n` MB of text on one line, and of `logs` with `n` log lines on stdout before
its answer; each figure is the median of `REPEATS` calls, from the request to the
parsed result, through the MCP SDK's `ClientSession` over agent-cli's transport
(`mcp_servers.stdio_transport`) and, for comparison, over the SDK's own `stdio_client`
(whose reader costs time growing with the square of a line's size: it is measured up to
20 MB only, 40 MB took it 23 s).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPEATS = 3
SERVER = r"""
import json, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    req = json.loads(line)
    ident, method = req.get("id"), req.get("method")
    if ident is None:
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": ident, "result": {"protocolVersion":
              req["params"]["protocolVersion"], "capabilities": {"tools": {}},
              "serverInfo": {"name": "bench", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": [{"name": name,
              "inputSchema": {"type": "object"}} for name in ("big", "logs")]}})
    elif method == "tools/call":
        name, n = req["params"]["name"], req["params"]["arguments"]["n"]
        if name == "logs":
            sys.stdout.write("".join(f"log line {i} " + "y" * 90 + "\n" for i in range(n)))
            text = "after the logs"
        else:
            text = "x" * (n * 1024 * 1024)
        send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text",
              "text": text}]}})
    else:
        send({"jsonrpc": "2.0", "id": ident, "result": {}})
"""


def _agent_cli_transport(script: Path) -> Any:
    from agent_cli.mcp_servers.exit_probe import ExitProbe
    from agent_cli.mcp_servers.stdio_transport import open_stdio

    def on_outlived() -> None:
        """The bench's server never outlives its launcher: nothing to do."""

    return open_stdio(
        sys.executable,
        [str(script)],
        {},
        ".",
        sys.stderr,
        lambda _: None,
        on_outlived,
        ExitProbe(60.0),
    )


def _sdk_transport(script: Path) -> Any:
    from mcp.client.stdio import StdioServerParameters, stdio_client

    return stdio_client(StdioServerParameters(command=sys.executable, args=[str(script)]))


async def _median_call(transport: Any, tool: str, n: int) -> float:
    from mcp.client.session import ClientSession

    took = []
    async with transport as (reads, writes), ClientSession(reads, writes) as session:
        await session.initialize()
        for _ in range(REPEATS):
            start = time.perf_counter()
            result = await session.call_tool(tool, {"n": n})
            took.append(time.perf_counter() - start)
            assert not result.is_error
    return statistics.median(took)


def _row(
    label: str, open_transport: Callable[[Path], Any], script: Path, tool: str, n: int
) -> None:
    seconds = asyncio.run(_median_call(open_transport(script), tool, n))
    print(f"  {label:<34} {seconds:7.2f} s")


def main() -> None:
    import logging

    logging.getLogger("mcp").addHandler(logging.NullHandler())  # as the hub keeps it quiet
    logging.getLogger("mcp").propagate = False
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "server.py"
        script.write_text(SERVER, encoding="utf-8")
        print(f"one answer of n MB on one line (median of {REPEATS} calls):")
        for n in (10, 20, 40):
            _row(f"{n} MB, agent-cli's transport", _agent_cli_transport, script, "big", n)
        for n in (10, 20):
            _row(f"{n} MB, the SDK's stdio_client", _sdk_transport, script, "big", n)
        print("n log lines of 100 characters on stdout, then the answer:")
        for n in (100_000,):
            _row(f"{n:,} lines, agent-cli's transport", _agent_cli_transport, script, "logs", n)
            _row(f"{n:,} lines, the SDK's stdio_client", _sdk_transport, script, "logs", n)


if __name__ == "__main__":
    main()
