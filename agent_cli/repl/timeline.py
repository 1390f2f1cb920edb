"""The session's timeline: the context size at each request, the soft and hard lines, and
where each compaction fired.

Contract: `build_timeline(stats, width)` draws one column per request (the prompt tokens
the API reported for it; several requests share a column, showing their largest, when
there are more requests than columns), `CHART_ROWS` rows high, scaled to the largest
request or the soft threshold, whichever is higher; the soft threshold is a line across
the chart, and the hard limit too when it is within the scale (else a note says it is
above). A request that a compaction preceded also shows, in `░`, the size the context
had before it (what the compaction freed). Under the chart, `▲` marks those columns, and
a list says for each which layers fired and what they freed (the newest `MAX_LISTED`).
Requests are numbered as the session made them: when `stats` hands on only the newest
entries (`SessionStats.timeline_requests_before` older requests left out), the header says
it shows the last N of all of them. Everything fits `width` (60 columns or more).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.text import Text

from agent_cli.events import CompactionRecord, SessionStats
from agent_cli.repl.compact_lines import describe_layers_run

CHART_ROWS = 8
MAX_LISTED = 8
BAR, FREED, SOFT_LINE, HARD_LINE, MARK = "█", "░", "─", "═", "▲"
AXIS_WIDTH = 9  # "  60,000 " and the like


def place_requests(
    timeline: Sequence[int | CompactionRecord],
) -> tuple[list[int], list[tuple[int, CompactionRecord]]]:
    """The requests' sizes in order, and each compaction with the index of the request it
    came before (the number of requests so far)."""
    sizes: list[int] = []
    fired: list[tuple[int, CompactionRecord]] = []
    for entry in timeline:
        if isinstance(entry, CompactionRecord):
            fired.append((len(sizes), entry))
        else:
            sizes.append(entry)
    return sizes, fired


def fold_columns(sizes: list[int], columns: int) -> tuple[list[int], int]:
    """`sizes` in at most `columns` columns (the largest of each group) and how many
    requests each column holds."""
    per_column = max(1, math.ceil(len(sizes) / max(columns, 1)))
    return [max(sizes[i : i + per_column]) for i in range(0, len(sizes), per_column)], per_column


def build_timeline(stats: SessionStats, width: int = 80) -> RenderableType:
    """The chart, the compaction marks and their list (module doc)."""
    sizes, fired = place_requests(stats.timeline)
    if not sizes:
        return Text("timeline: no request yet", style="dim")
    columns, per_column = fold_columns(sizes, max(width - AXIS_WIDTH - 1, 10))
    before = _sizes_before(fired, per_column, len(columns))
    top = max(max(columns), max(before), stats.soft_threshold)
    scale = top / CHART_ROWS
    hard_row = _row_of(stats.hard_limit, scale) if stats.hard_limit <= top else None
    soft_row = _row_of(stats.soft_threshold, scale)
    first = stats.timeline_requests_before
    lines = [
        Text.assemble(
            ("timeline ", "bold"),
            describe_request_span(first, len(sizes), stats.summary_requests)
            + (f" ({per_column} a column)" if per_column > 1 else ""),
        )
    ]
    for row in range(CHART_ROWS, 0, -1):
        label = _axis_label(row, scale, soft_row, hard_row, stats)
        line = Text(f"{label:>{AXIS_WIDTH - 1}} ", style="dim")
        for value, freed_from in zip(columns, before, strict=True):
            line.append(*_cell(value, freed_from, row, scale, (soft_row, hard_row)))
        lines.append(line)
    marks = _marks(fired, per_column, len(columns))
    lines.append(Text(" " * AXIS_WIDTH + marks, style="bold yellow"))
    lines.append(_lines_note(stats, hard_row))
    lines.extend(_fired_list(fired, first))
    return Group(*lines)


def describe_request_span(before: int, shown: int, summaries: int = 0) -> str:
    """The header's words: every request, or the last `shown` of all the session made
    when the `before` older ones are left out of the chart; and how many summary
    requests (`summaries`, counted by `stats` beside them) the chart does not draw."""
    if before <= 0:
        span = f"context size at each of {shown:,} requests"
    else:
        span = f"context size at each of the last {shown:,} of {before + shown:,} requests"
    if summaries > 0:
        noun = "request" if summaries == 1 else "requests"
        span += f" (not drawn: {summaries:,} summary {noun})"
    return span


def _row_of(tokens: int, scale: float) -> int:
    return max(1, min(CHART_ROWS, round(tokens / scale)))


def _axis_label(
    row: int, scale: float, soft_row: int, hard_row: int | None, stats: SessionStats
) -> str:
    if row == hard_row:
        return f"{stats.hard_limit:,}"
    if row == soft_row:
        return f"{stats.soft_threshold:,}"
    if row == CHART_ROWS:
        return f"{round(row * scale):,}"
    return ""


def _sizes_before(
    fired: list[tuple[int, CompactionRecord]], per_column: int, columns: int
) -> list[int]:
    """For each column, the largest size a compaction started from before one of its
    requests (0: none)."""
    before = [0] * columns
    for request, entry in fired:
        column = min(request // per_column, columns - 1)
        before[column] = max(before[column], entry.tokens_before)
    return before


def _cell(
    value: int, freed_from: int, row: int, scale: float, lines: tuple[int, int | None]
) -> tuple[str, str]:
    soft_row, hard_row = lines
    if value >= (row - 0.5) * scale:
        return BAR, "red" if hard_row is not None and row >= hard_row else "cyan"
    if freed_from >= (row - 0.5) * scale:
        return FREED, "yellow"
    if row == hard_row:
        return HARD_LINE, "red"
    if row == soft_row:
        return SOFT_LINE, "yellow"
    return " ", ""


def _marks(fired: list[tuple[int, CompactionRecord]], per_column: int, columns: int) -> str:
    """`▲` under the column of the first request after each compaction."""
    cells = [" "] * columns
    for before, _ in fired:
        column = min(before // per_column, columns - 1)
        cells[column] = MARK
    return "".join(cells)


def _lines_note(stats: SessionStats, hard_row: int | None) -> Text:
    hard = (
        f"{HARD_LINE} hard {stats.hard_limit:,}"
        if hard_row is not None
        else f"hard {stats.hard_limit:,} (above)"
    )
    return Text(
        f"{SOFT_LINE} soft {stats.soft_threshold:,} · {hard} · {FREED} freed · {MARK} compacted",
        style="dim",
    )


def _fired_list(fired: list[tuple[int, CompactionRecord]], first: int) -> list[Text]:
    """The newest compactions, each named by the number of the request it came before
    (`first` requests precede the chart's first)."""
    shown = fired[-MAX_LISTED:]
    lines = [
        Text(
            f"  {MARK} request {first + before + 1:,}: {describe_layers_run(entry.layers)} "
            f"{entry.tokens_before:,} -> {entry.tokens_after:,} "
            f"(-{entry.tokens_before - entry.tokens_after:,})"
            + (" /compact" if entry.forced else "")
        )
        for before, entry in shown
    ]
    if len(fired) > len(shown):
        lines.insert(0, Text(f"  ({len(fired) - len(shown):,} earlier compactions)", style="dim"))
    return lines
