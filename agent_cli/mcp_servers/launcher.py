"""Starts one MCP server in place, first writing down its process id.

Contract (argv): `PID_FILE COMMAND [ARGS...]`. Writes this process's id to `PID_FILE`,
then replaces itself with `COMMAND ARGS...` (exec: same process, same stdin and stdout,
same working folder and environment). The SDK starts it as the leader of a new session,
so that id is the server's process group, which the hub ends whole when the server stops,
children included. A command that cannot be started is reported on stderr after
`NOT_STARTED_MARK` and the launcher exits 127 (not found) or 126 (not runnable). Runs as
`python -I -S` and imports only the standard library.
"""

from __future__ import annotations

import os
import sys

NOT_STARTED_MARK = "agent-cli mcp launcher: cannot start: "


def main(argv: list[str]) -> int:
    pid_file, command, args = argv[1], argv[2], argv[3:]
    with open(pid_file, "w", encoding="ascii") as handle:
        handle.write(str(os.getpid()))
    try:
        os.execvp(command, [command, *args])
    except FileNotFoundError:
        sys.stderr.write(f"{NOT_STARTED_MARK}not found: {command}\n")
        return 127
    except OSError as error:
        sys.stderr.write(f"{NOT_STARTED_MARK}{error.strerror or type(error).__name__}: {command}\n")
        return 126
    return 0  # not reached: exec does not return


if __name__ == "__main__":
    sys.exit(main(sys.argv))
