"""When a stdio MCP server's own process exits, whether or not its pipes end with it.

Why: the end of a server's stdout was the only sign that it exited, and a process it left
running (`bash -c "sleep 300 & exec server"`, as wrapper scripts do) holds that pipe open:
a call in flight then waited for its whole `timeout`, and a server that exited once ready
stayed "ready", its tools offered. `process.wait()` is no help where it waits for the
pipes too, as asyncio's does (before gh-119710) and anyio's did before it worked around
that: which anyio is installed is the `mcp` SDK's choice, not agent-cli's.

Contract: `await wait_exited(process)` returns once `process` (an anyio `Process` this
loop started) has exited, a zombie not yet reaped included; it never returns while the
process runs, and returns at once for one already gone. Where the OS has pidfds (Linux
5.3 and later) it waits on one, without waking; elsewhere it polls the return code the
loop's child watcher sets, every `POLL_SECONDS`. Cancelling it leaves nothing open.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from agent_cli.tools.command_supervisor import open_pidfd

if TYPE_CHECKING:
    from anyio.abc import Process

POLL_SECONDS = 0.1  # without pidfds: how often the exit is looked for


async def wait_exited(process: Process) -> None:
    """Return once `process` has exited (module contract)."""
    import anyio

    pidfd = open_pidfd(process.pid)
    if pidfd is None:
        while process.returncode is None:
            await anyio.sleep(POLL_SECONDS)
        return
    try:
        await anyio.wait_readable(pidfd)  # a pidfd turns readable when its process exits
    finally:
        os.close(pidfd)
