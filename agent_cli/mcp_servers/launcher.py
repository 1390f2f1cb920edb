"""Starts one MCP server under the command supervisor that bash commands run under, so
that the server and its children die with agent-cli, even when agent-cli is SIGKILLed.

Contract (argv): `PID_FILE LIFELINE AGENT_PID HAD_LC_CTYPE COMMAND [ARGS...]`.
- The SDK starts this process as the leader of a new session and process group. It
  opens `LIFELINE` (a FIFO whose only write end agent-cli holds) for reading, writes its
  process group to `PID_FILE` (the hub ends that group whole when the server stops), and
  becomes `tools.command_supervisor` in place: that runs `COMMAND ARGS...` in the same
  group (through `/bin/sh -c 'exec ...'`, with this process's stdin, stdout, stderr,
  working folder and environment), exits as the server does, and SIGKILLs the group as
  soon as the lifeline reaches end of file, that is when agent-cli is gone.
- If agent-cli (`AGENT_PID`, this process's parent) is already gone once the lifeline is
  open, nothing is started (a FIFO opened without a writer would never report its end).
- A command that cannot be found or run is reported on stderr after `NOT_STARTED_MARK`;
  the launcher exits 127 (not found) or 126 (not runnable). `HAD_LC_CTYPE` is passed on
  to the supervisor ("1": LC_CTYPE was in the environment the server was given).
Runs as `python -I -S` and imports only the standard library.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import sys
from types import ModuleType

NOT_STARTED_MARK = "agent-cli mcp launcher: cannot start: "
SUPERVISOR = os.path.join(
    os.path.dirname(os.path.dirname(__file__)), "tools", "command_supervisor.py"
)
_ORPHANED_EXIT = 1


def main(argv: list[str]) -> int:
    pid_file, lifeline_path, agent_pid, had_lc_ctype = argv[1:5]
    command, args = argv[5], argv[6:]
    lifeline = os.open(lifeline_path, os.O_RDONLY | os.O_NONBLOCK)
    if os.getppid() != int(agent_pid):  # agent-cli died before the lifeline was open
        return _ORPHANED_EXIT
    with open(pid_file, "w", encoding="ascii") as handle:
        handle.write(str(os.getpgrp()))
    problem = _start_problem(command)
    if problem is not None:
        code, why = problem
        sys.stderr.write(f"{NOT_STARTED_MARK}{why}: {command}\n")
        return code
    script = "exec " + shlex.join([command, *args])
    supervisor = _load_supervisor()
    return int(supervisor.main(["", str(lifeline), "/bin/sh", script, had_lc_ctype]))


def _start_problem(command: str) -> tuple[int, str] | None:
    """(exit code, reason) when `command` cannot be started; None when it can."""
    if shutil.which(command) is not None:
        return None
    if os.sep in command and os.path.exists(command):
        return 126, "not executable"
    return 127, "not found"


def _load_supervisor() -> ModuleType:
    """`tools.command_supervisor`, loaded from its file (this runs without agent_cli on
    the path)."""
    spec = importlib.util.spec_from_file_location("command_supervisor", SUPERVISOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    sys.exit(main(sys.argv))
