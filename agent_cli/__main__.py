"""How agent-cli starts: the `agent-cli` script and `python -m agent_cli` both run `run()`.

Contract: `run()` is `repl.main.main()` with Ctrl-C honoured from the first moment this
module runs. `main` turns Ctrl-C into exit code 130, but only once it runs: pressed
while its modules still load (the first tenth of a second or so), it printed a
`KeyboardInterrupt` traceback. `run` imports nothing before its `try`, so a Ctrl-C at any
point from there exits 130 quietly; only the interpreter's own start-up comes before it.

It also raises Python's recursion limit to `RECURSION_LIMIT`: a session walks a tool
call's input by recursion (recording, previewing, counting, redacting, sending it back),
two or three frames a level, and an answer's tool input may be nested up to
`stream_assembly.MAX_TOOL_INPUT_DEPTH` levels (deeper ones are refused in words).
"""

import sys

INTERRUPTED_EXIT = 130  # as `repl.main.INTERRUPTED_EXIT`, which may not be loaded yet
# Room for every walker over a tool input of the deepest accepted nesting (600 levels);
# Python calls use no C stack since 3.11, so this costs nothing until it is used.
RECURSION_LIMIT = 4_000


def run() -> int:
    """Start agent-cli with the command line and return its exit code."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    try:
        from agent_cli.repl.main import main

        return main()
    except KeyboardInterrupt:
        return INTERRUPTED_EXIT


if __name__ == "__main__":
    raise SystemExit(run())
