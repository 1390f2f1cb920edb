"""repl package."""
