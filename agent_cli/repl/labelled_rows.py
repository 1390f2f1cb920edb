"""Labelled rows fitted to the width they get: labels beside their values, or above them.

Contract: `LabelledRows(rows, min_value_width=, label_style=, indent=)` renders each
(label, value) pair with the labels in a column of their own (never wrapped) and each
value beside its label while the values get at least `min_value_width` cells beside the
widest label; on a narrower screen each label has a line of its own (folded when even
that is too wide) and its value below it, indented by `indent`. A word of a value wider
than its room (a path, a pointer) is folded onto the next row, never cut. `/help` and `stats` lay
out their rows with it, so both read at 40 columns as at 120.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

LABEL_GAP = 2  # cells between a label and its value, side by side


class LabelledRows:
    """(label, value) rows, side by side or stacked, chosen at each render (module doc)."""

    def __init__(
        self,
        rows: Sequence[tuple[str, RenderableType]],
        *,
        min_value_width: int,
        label_style: str,
        indent: int,
    ) -> None:
        self.rows = rows
        self.min_value_width = min_value_width
        self.label_style = label_style
        self.indent = indent

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        widest = max((cell_len(label) for label, _ in self.rows), default=0)
        if options.max_width - widest - LABEL_GAP >= self.min_value_width:
            yield self.side_by_side()
        else:
            yield self.stacked()

    def side_by_side(self) -> Table:
        """Labels in a column of their own, each value beside its label."""
        table = Table.grid(padding=(0, LABEL_GAP))
        table.add_column(style=self.label_style, no_wrap=True)
        table.add_column(overflow="fold")  # a path or pointer longer than a row stays whole
        for label, value in self.rows:
            table.add_row(Text(label), value)
        return table

    def stacked(self) -> Group:
        """Each label on a line of its own, its value below it, indented."""
        parts: list[RenderableType] = []
        for label, value in self.rows:
            parts.append(Text(label, style=self.label_style, overflow="fold"))
            parts.append(Padding(value, (0, 0, 0, self.indent)))
        return Group(*parts)
