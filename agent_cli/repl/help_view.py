"""What `/help` shows: every command with its usage and one line of help, fitted to the
width it gets.

Contract: `build_help_view(commands, model_requests)` returns a renderable that lays the
commands out as two columns when the descriptions get at least `MIN_SUMMARY_WIDTH` cells
beside the widest usage, and otherwise one command per block: the usage on its own line
(folded when even that is too wide) and the description under it, indented
(`labelled_rows`). So `/help`
reads at 40 columns as well as at 120 (a long usage such as /sessions' once left the
descriptions three cells at 60). It only lays out what it is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.console import Group, RenderableType
from rich.text import Text

from agent_cli.repl.labelled_rows import LabelledRows
from agent_cli.repl.safe_text import clip_line

KEY_HELP = (
    "Enter sends · Alt+Enter (or Esc Enter) inserts a new line · Ctrl-C cancels a "
    "running turn or clears the line · Ctrl-D exits · start a message with // to "
    "send a line that begins with /"
)
BARE_STATS = ("stats", "the same as /stats (typed bare)")
MIN_SUMMARY_WIDTH = 30  # narrower than this, a description goes under its usage
SUMMARY_INDENT = 4


def build_help_view(
    commands: Iterable[tuple[str, str]], model_requests: Sequence[str] = ()
) -> Group:
    """`commands` is (usage, one-line help) pairs in table order; `model_requests` the
    request forms the offline demo model understands (empty for a real model)."""
    parts: list[RenderableType] = [
        LabelledRows(
            [(usage, Text(summary)) for usage, summary in [*commands, BARE_STATS]],
            min_value_width=MIN_SUMMARY_WIDTH,
            label_style="bold cyan",
            indent=SUMMARY_INDENT,
        ),
        Text(KEY_HELP, style="dim"),
    ]
    if model_requests:
        parts.append(Text("The offline demo model understands these requests:", style="bold"))
        parts.extend(Text(f"  {clip_line(form, 120)}") for form in model_requests)
        parts.append(
            Text('  joined with "and", e.g. "read README.md and tell me its first heading"')
        )
    return Group(*parts)
