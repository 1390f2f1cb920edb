"""A launcher that forks the MCP server it runs and exits, as daemonizing wrappers do: the
child keeps its stdin, stdout and stderr and becomes `SERVER ARGS...`.

`python forking_launcher.py WHEN SERVER [ARGS...]`: WHEN `now` makes the parent exit at
once (before the server has even started); otherwise WHEN is a file where the parent
writes its pid, and it exits when sent SIGUSR1 (a test's event, no sleep).
"""

from __future__ import annotations

import os
import signal
import sys

when, server = sys.argv[1], sys.argv[2:]
if when != "now":
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})  # held till it is waited for
pid = os.fork()
if pid == 0:
    if when != "now":
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})
    os.execv(server[0], server)
if when != "now":
    with open(when, "w", encoding="ascii") as handle:
        handle.write(str(os.getpid()))
    signal.sigwait({signal.SIGUSR1})
os._exit(0)
