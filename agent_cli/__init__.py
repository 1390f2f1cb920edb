"""agent-cli: a terminal agent for long sessions, built around lossless context compaction."""

__version__ = "0.1.0"
