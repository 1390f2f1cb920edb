"""How agent-cli starts: the `agent-cli` script and `python -m agent_cli` both run `run()`.

Contract: `run()` is `repl.main.main()` with Ctrl-C honoured from the first moment this
module runs. `main` turns Ctrl-C into exit code 130, but only once it runs: pressed
while its modules still load (the first tenth of a second or so), it printed a
`KeyboardInterrupt` traceback. `run` imports nothing before its `try`, so a Ctrl-C at any
point from there exits 130 quietly; only the interpreter's own start-up comes before it.
"""

INTERRUPTED_EXIT = 130  # as `repl.main.INTERRUPTED_EXIT`, which may not be loaded yet


def run() -> int:
    """Start agent-cli with the command line and return its exit code."""
    try:
        from agent_cli.repl.main import main

        return main()
    except KeyboardInterrupt:
        return INTERRUPTED_EXIT


if __name__ == "__main__":
    raise SystemExit(run())
