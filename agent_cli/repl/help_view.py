"""What `/help` shows: every command with its usage and one line of help, fitted to the
width it gets.

Contract: `build_help_view(commands, model_requests)` returns a renderable that lays the
commands out as two columns when the descriptions get at least `MIN_SUMMARY_WIDTH` cells
beside the widest usage, and otherwise one command per block: the usage on its own line
(folded when even that is too wide) and the description under it, indented. So `/help`
reads at 40 columns as well as at 120 (a long usage such as /sessions' once left the
descriptions three cells at 60). It only lays out what it is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from agent_cli.repl.safe_text import clip_line

KEY_HELP = (
    "Enter sends · Alt+Enter (or Esc Enter) inserts a new line · Ctrl-C cancels a "
    "running turn or clears the line · Ctrl-D exits · start a message with // to "
    "send a line that begins with /"
)
BARE_STATS = ("stats", "the same as /stats (typed bare)")
COLUMN_GAP = 2
MIN_SUMMARY_WIDTH = 30  # narrower than this, a description goes under its usage
SUMMARY_INDENT = 4


class CommandList:
    """The (usage, help) pairs, as columns or stacked, whichever fits the width."""

    def __init__(self, commands: Sequence[tuple[str, str]]) -> None:
        self.commands = commands

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        widest = max((cell_len(usage) for usage, _ in self.commands), default=0)
        if options.max_width - widest - COLUMN_GAP >= MIN_SUMMARY_WIDTH:
            yield build_columns(self.commands)
        else:
            yield build_stacked(self.commands)


def build_columns(commands: Sequence[tuple[str, str]]) -> Table:
    """Usage left (never wrapped), description right."""
    table = Table.grid(padding=(0, COLUMN_GAP))
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    for usage, summary in commands:
        table.add_row(Text(usage), Text(summary))
    return table


def build_stacked(commands: Sequence[tuple[str, str]]) -> Group:
    """Each usage on its own line, its description indented under it."""
    parts: list[RenderableType] = []
    for usage, summary in commands:
        parts.append(Text(usage, style="bold cyan", overflow="fold"))
        parts.append(Padding(Text(summary), (0, 0, 0, SUMMARY_INDENT)))
    return Group(*parts)


def build_help_view(
    commands: Iterable[tuple[str, str]], model_requests: Sequence[str] = ()
) -> Group:
    """`commands` is (usage, one-line help) pairs in table order; `model_requests` the
    request forms the offline demo model understands (empty for a real model)."""
    parts: list[RenderableType] = [
        CommandList([*commands, BARE_STATS]),
        Text(KEY_HELP, style="dim"),
    ]
    if model_requests:
        parts.append(Text("The offline demo model understands these requests:", style="bold"))
        parts.extend(Text(f"  {clip_line(form, 120)}") for form in model_requests)
        parts.append(
            Text('  joined with "and", e.g. "read README.md and tell me its first heading"')
        )
    return Group(*parts)
