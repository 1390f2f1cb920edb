"""Tool calls as a compact two-line panel: what runs, then how it went.

Contract: `build_tool_started_line` draws the top of the panel when a tool starts (so a
long command is visible while it runs) and `build_tool_finished_line` closes it with the
outcome summary, the size and the artifact pointer. Only the arguments that say what
the call does are shown (path, pattern, command, ...), flattened and clipped; every
value passes through `clip_line`, so tool input cannot draw on the screen.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from agent_cli.events import ToolFinished, ToolStarted
from agent_cli.repl.safe_text import clip_line
from agent_cli.tools.output import format_size

# Arguments that tell what a call does, in the order they are shown.
TELLING_ARGUMENTS = (
    "path",
    "file_path",
    "pattern",
    "glob",
    "command",
    "query",
    "pointer",
    "directory",
    "offset",
    "limit",
)
MAX_SHOWN_ARGUMENTS = 3
ARGUMENT_WIDTH = 80
TOP, BOTTOM = "╭─ ", "╰─ "


def select_telling_arguments(arguments: dict[str, Any]) -> list[tuple[str, str]]:
    """(name, clipped value) of the arguments worth showing; the first few if none tell."""
    names = [name for name in TELLING_ARGUMENTS if name in arguments]
    if not names:
        names = [name for name in arguments if not isinstance(arguments[name], dict | list)]
    return [
        (clip_line(name, 24), clip_line(_as_text(arguments[name]), ARGUMENT_WIDTH))
        for name in names[:MAX_SHOWN_ARGUMENTS]
    ]


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)


def build_tool_started_line(event: ToolStarted) -> Text:
    text = Text(TOP, style="dim")
    text.append(clip_line(event.name, 40), style="bold magenta")
    for name, value in select_telling_arguments(event.arguments):
        text.append(f"  {name}: ", style="dim")
        text.append(value)
    return text


def build_tool_finished_line(event: ToolFinished) -> Text:
    outcome_style = "red" if event.is_error else "green"
    text = Text(BOTTOM, style="dim")
    text.append("✗ " if event.is_error else "✓ ", style=outcome_style)
    text.append(
        clip_line(event.summary, 160) or ("failed" if event.is_error else "done"),
        style="red" if event.is_error else "",
    )
    text.append(f" · {format_size(event.size_bytes)}", style="dim")
    if event.artifact_pointer:
        text.append(" · full output: ", style="dim")
        text.append(clip_line(event.artifact_pointer, 200), style="cyan")
    return text


def build_tool_unfinished_line() -> Text:
    """Closes the panel of a tool whose turn ended before it reported (e.g. Ctrl-C)."""
    text = Text(BOTTOM, style="dim")
    text.append("✗ interrupted: no result was shown", style="red")
    return text
