"""`python -m agent_cli` starts the REPL, exactly as the `agent-cli` script does."""

from agent_cli.repl.main import main

raise SystemExit(main())
