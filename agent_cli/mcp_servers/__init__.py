"""MCP servers as tools: their settings, the connection hub and the tools they offer.

Nothing here imports the `mcp` SDK at import time: with no server configured, start-up
pays nothing for it (`hub` imports it in its own thread, when servers start).
"""
