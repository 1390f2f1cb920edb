"""The greeting: which model answers, where the session lives, and how to get help.

Contract: `build_banner(session, offline_fallback=..., resumed=...)` returns the lines
shown when a session opens. On the offline model it says plainly that this is the
offline demo model and how to switch to Claude.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text

from agent_cli import __version__
from agent_cli.repl.safe_text import clip_line

CLAUDE_HOW_TO = (
    "To use Claude: set ANTHROPIC_API_KEY (optionally ANTHROPIC_BASE_URL, and "
    "--model to pick a model) and start agent-cli again."
)


def describe_offline(offline_fallback: bool) -> str:
    if offline_fallback:
        return (
            "This is the offline demo model (no API key found): local, deterministic, "
            "made to show tools and compaction at work."
        )
    return "This is the offline demo model (chosen with --provider or the config file)."


def build_banner(session: Any, *, offline_fallback: bool, resumed: bool) -> Group:
    provider = session.provider
    lines = [
        Text.assemble(
            (f"agent-cli {__version__}", "bold"),
            " · provider ",
            (clip_line(str(provider.name), 40), "bold cyan"),
            " · model ",
            (clip_line(str(provider.model), 80), "bold cyan"),
        )
    ]
    if provider.name == "offline":
        lines.append(Text(describe_offline(offline_fallback), style="yellow"))
        lines.append(Text(CLAUDE_HOW_TO, style="yellow"))
    lines.append(Text(f"workspace {clip_line(str(session.workspace), 300)}"))
    found = getattr(session, "project_instructions", None)
    if found is not None and found.text:
        lines.append(Text(f"project instructions from {clip_line(str(found.source), 40)}"))
    lines.append(
        Text(
            f"session {clip_line(str(session.session_id), 80)} ({'resumed' if resumed else 'new'})"
            f" · transcript {clip_line(str(session.transcript_path), 300)}",
            style="dim",
        )
    )
    lines.append(Text("/help for commands · stats for token usage · Ctrl-D to exit", style="dim"))
    return Group(*lines)


def build_goodbye(session: Any) -> Group:
    """Where the transcript is and how to come back to it."""
    session_id = clip_line(str(session.session_id), 80)
    return Group(
        Text(f"transcript: {clip_line(str(session.transcript_path), 300)}"),
        Text(f"resume with: agent-cli --resume {session_id}", style="dim"),
    )
