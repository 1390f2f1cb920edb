"""The context map: the model's window drawn as cells, one colour per kind of content.

Contract: `build_context_map(stats, width)` draws `MAP_CELLS` cells, each one slice of the
model's context window (`SessionStats.context_window / MAP_CELLS` tokens), filled in the
order a request carries its parts: system prompt, project instructions, tool schemas,
durable block, compaction digest, compaction summary, messages; the rest is free. A part
gets cells in proportion to its tokens (largest remainders), at least one when it has any
tokens, so nothing the request carries is invisible; the used cells are as many as the
total is due, so the map never shows more used than there is. The soft threshold and the hard
limit are marked on the cell where they fall. Figures are what the next request would
carry in the toolbar's units (the estimate times the calibration), so the legend adds up
to the gauge. Rows are 50, 40 or 20 cells, whichever fits `width` (60 columns hold the
map and its legend).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.text import Text

from agent_cli.events import SessionStats

MAP_CELLS = 200
ROW_CHOICES = (50, 40, 20)
USED_CELL, FREE_CELL, SOFT_CELL, HARD_CELL = "█", "·", "s", "H"
FREE = "free"


@dataclass(frozen=True)
class MapPart:
    """One kind of content on the map: its legend name, colour and the stats keys it sums."""

    name: str
    style: str
    keys: tuple[str, ...]


PARTS = (
    MapPart("system prompt", "bright_black", ("system_prompt",)),
    MapPart("project instructions", "magenta", ("project_instructions",)),
    MapPart("tool schemas", "blue", ("tool_schemas",)),
    MapPart("durable block", "green", ("durable_context",)),
    MapPart("compaction digest", "yellow", ("compaction_digest",)),
    MapPart("compaction summary", "bright_yellow", ("compaction_summary",)),
    MapPart("messages", "cyan", ("user_text", "assistant_text", "tool_calls", "tool_results")),
)


def map_figures(stats: SessionStats) -> list[tuple[MapPart, int]]:
    """Each part's tokens in the toolbar's units (module doc); keys no part names (a new
    category) count as messages, so the parts add up to everything the request carries.
    The parts are scaled together (largest remainders), so they add up to the toolbar's
    figure as it is rounded, never a token off it."""
    scale = stats.context_tokens / stats.total_tokens if stats.context_tokens else 1.0
    named = {key for part in PARTS for key in part.keys}
    raw: list[tuple[MapPart, int]] = []
    for part in PARTS:
        tokens = sum(stats.tokens_by_category.get(key, 0) for key in part.keys)
        if part.name == "messages":
            tokens += sum(v for k, v in stats.tokens_by_category.items() if k not in named)
        if part.name == "tool schemas" and stats.tool_schemas_by_source:
            raw += _schema_parts(stats.tool_schemas_by_source, tokens)
            continue
        raw.append((part, tokens))
    scaled = _scale_together([tokens for _, tokens in raw], scale)
    return [(part, tokens) for (part, _), tokens in zip(raw, scaled, strict=True)]


def _scale_together(amounts: list[int], scale: float) -> list[int]:
    """`amounts` times `scale`, rounded so that they add up to their sum times `scale`
    rounded: each rounded down, the rest given to the largest remainders."""
    exact = [amount * scale for amount in amounts]
    scaled = [math.floor(value) for value in exact]
    short = round(sum(exact)) - sum(scaled)
    by_remainder = sorted(range(len(exact)), key=lambda i: scaled[i] - exact[i])
    for index in by_remainder[: max(short, 0)]:
        scaled[index] += 1
    return scaled


def _schema_parts(by_source: dict[str, int], tokens: int) -> list[tuple[MapPart, int]]:
    """The tool schemas split by where the tools come from (built-in, each MCP server),
    in the same total, each part named for its source (a built-in part named "tool
    schemas" read as the whole, beside `stats`' larger total): what is not attributed
    stays with the built-in tools."""
    servers = [(source, count) for source, count in by_source.items() if source != "built-in"]
    built_in = tokens - sum(count for _, count in servers)
    parts = [(MapPart("schemas: built-in", "blue", ("tool_schemas",)), built_in)]
    for source, count in servers:
        parts.append((MapPart(f"schemas: {source}"[:21], "bright_blue", ()), count))
    return parts


def allot_cells(tokens: list[int], window: int, cells: int = MAP_CELLS) -> list[int]:
    """Cells for each amount of `tokens` out of a `window` drawn as `cells` cells: in
    proportion, largest remainders first, at least one for any amount above zero (paid
    by the largest amounts), in all the cells their sum is due and never more than `cells`
    (the used part of an over-full window fills the map), so content never reaches past
    the cell where its total ends."""
    if window <= 0:
        return [0] * len(tokens)
    exact = [amount * cells / window for amount in tokens]
    given = [
        max(1, math.floor(share)) if amount > 0 else 0
        for amount, share in zip(tokens, exact, strict=True)
    ]
    total = min(cells, max(round(sum(exact)), sum(1 for amount in tokens if amount > 0)))
    room = total - sum(given)
    by_remainder = sorted(
        range(len(tokens)), key=lambda i: exact[i] - math.floor(exact[i]), reverse=True
    )
    for index in by_remainder:
        if room <= 0:
            break
        if tokens[index] > 0 and exact[index] > given[index]:
            given[index] += 1
            room -= 1
    while sum(given) > total:  # the minimums are paid by the largest parts
        given[given.index(max(given))] -= 1
    return given


def build_context_map(stats: SessionStats, width: int = 80) -> RenderableType:
    """The map, a line with the thresholds, and the legend (module doc)."""
    figures = map_figures(stats)
    window = stats.context_window
    cells = allot_cells([tokens for _, tokens in figures], window)
    row = next((n for n in ROW_CHOICES if n + 2 <= width), ROW_CHOICES[-1])
    drawn = _draw_cells(figures, cells, stats, row)
    used = sum(tokens for _, tokens in figures)
    title = Text.assemble(
        ("context map ", "bold"), f"{used:,} of {window:,} tokens ({_share(used, window)})"
    )
    marks = Text(
        f"one cell ≈ {window // MAP_CELLS:,} tokens · {SOFT_CELL} soft "
        f"{stats.soft_threshold:,} · {HARD_CELL} hard {stats.hard_limit:,}",
        style="dim",
    )
    return Group(title, *drawn, marks, *_legend(figures, window, used))


def _draw_cells(
    figures: list[tuple[MapPart, int]], cells: list[int], stats: SessionStats, row: int
) -> list[Text]:
    """The cells in rows of `row`, each part in its colour, then the free ones; the soft
    and hard marks replace the cell they fall on."""
    styled: list[tuple[str, str]] = []
    for (part, _), count in zip(figures, cells, strict=True):
        styled += [(USED_CELL, part.style)] * count
    styled += [(FREE_CELL, "dim")] * (MAP_CELLS - len(styled))
    per_cell = max(stats.context_window, 1) / MAP_CELLS
    for limit, mark in ((stats.soft_threshold, SOFT_CELL), (stats.hard_limit, HARD_CELL)):
        at = math.ceil(limit / per_cell) - 1
        if 0 <= at < MAP_CELLS:
            styled[at] = (mark, "bold red" if mark == HARD_CELL else "bold")
    return [Text.assemble(*styled[start : start + row]) for start in range(0, MAP_CELLS, row)]


def _legend(figures: list[tuple[MapPart, int]], window: int, used: int) -> list[Text]:
    rows = [(USED_CELL, part.style, part.name, tokens) for part, tokens in figures if tokens]
    rows.append((FREE_CELL, "dim", FREE, max(window - used, 0)))
    return [
        Text.assemble(
            (cell, style), f" {name:<21}{tokens:>10,} ", (f"{_share(tokens, window):>6}", "dim")
        )
        for cell, style, name, tokens in rows
    ]


def _share(tokens: int, window: int) -> str:
    if window <= 0:
        return "-"
    share = 100 * tokens / window
    return f"{share:.1f}%" if share < 10 else f"{share:.0f}%"
