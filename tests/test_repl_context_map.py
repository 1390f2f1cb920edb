"""The context map: the window as cells by kind of content, fitting 60 columns."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from repl_fakes import make_stats
from rich.console import Console

from agent_cli.repl.context_map import (
    FREE_CELL,
    HARD_CELL,
    MAP_CELLS,
    SOFT_CELL,
    USED_CELL,
    allot_cells,
    build_context_map,
    map_figures,
)


def _render(stats, width: int) -> list[str]:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(build_context_map(stats, width))
    return console.file.getvalue().splitlines()


def _cells(lines: list[str]) -> str:
    return "".join(
        line for line in lines if line and set(line) <= {USED_CELL, FREE_CELL, SOFT_CELL, HARD_CELL}
    )


@pytest.mark.parametrize("width", [60, 80, 120, 45])
def test_the_map_and_its_legend_fit_the_width_and_draw_every_cell(width):
    lines = _render(make_stats(), width)
    assert max(map(len, lines)) <= width
    cells = _cells(lines)
    assert len(cells) == MAP_CELLS


def test_every_part_the_request_carries_has_a_cell_and_the_legend_adds_up():
    stats = make_stats(
        tokens_by_category={
            "system_prompt": 1_200,
            "project_instructions": 12,  # far under one cell: still drawn
            "tool_schemas": 2_500,
            "durable_context": 300,
            "compaction_digest": 400,
            "compaction_summary": 900,
            "user_text": 4_000,
            "tool_results": 1_000,
        },
        total_tokens=10_312,
        context_tokens=10_312,
    )
    figures = map_figures(stats)
    assert all(tokens > 0 for _, tokens in figures)
    cells = allot_cells([tokens for _, tokens in figures], stats.context_window)
    assert all(count >= 1 for count in cells)
    text = "\n".join(_render(stats, 60))
    for name in ("system prompt", "project instructions", "tool schemas", "durable block"):
        assert name in text
    assert "compaction digest" in text and "compaction summary" in text and "messages" in text
    assert "10,312 of 200,000 tokens" in text
    free_line = next(line for line in text.splitlines() if line.startswith(f"{FREE_CELL} free"))
    assert free_line.split()[2] == "189,688"  # the window less what is used


def test_figures_are_in_the_toolbars_units():
    """The estimate times the calibration: the map adds up to the gauge's figure."""
    stats = make_stats()  # total 12,345 estimated, 13,950 in the toolbar's units
    assert sum(tokens for _, tokens in map_figures(stats)) == 13_950


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(st.integers(0, 50_000), min_size=1, max_size=8),
    servers=st.lists(st.integers(0, 3_000), max_size=3),
    ratio=st.floats(0.3, 3.0),
)
def test_the_parts_add_up_to_the_toolbars_figure_to_the_token(parts, servers, ratio):
    """Rounded each on its own, parts drifted a token or more from `stats` (2,034 mapped
    against 2,035 shown, with three parts at a ratio of 1.0x): they are scaled together."""
    keys = [
        "system_prompt",
        "project_instructions",
        "tool_schemas",
        "durable_context",
        "compaction_digest",
        "compaction_summary",
        "user_text",
        "tool_results",
    ]
    by_category = dict(zip(keys, parts, strict=False))
    by_category["tool_schemas"] = by_category.get("tool_schemas", 0) + sum(servers)
    total = sum(by_category.values())
    context = round(total * ratio)
    stats = make_stats(
        tokens_by_category=by_category,
        total_tokens=total,
        context_tokens=context,
        tool_schemas_by_source={f"srv{i}": n for i, n in enumerate(servers)},
    )
    figures = map_figures(stats)
    assert sum(tokens for _, tokens in figures) == (context if context else total)
    assert all(tokens >= 0 for _, tokens in figures)


def test_cells_are_in_proportion_and_a_full_window_fills_the_map():
    assert allot_cells([50_000, 50_000], 200_000) == [50, 50]
    assert allot_cells([1, 199_999], 200_000) == [1, 199]
    assert sum(allot_cells([300_000, 10], 200_000)) == MAP_CELLS  # over the window
    assert allot_cells([0, 1_000], 200_000) == [0, 1]


def test_the_thresholds_are_marked_where_they_fall():
    stats = make_stats(soft_threshold=80_000, hard_limit=120_000)
    cells = _cells(_render(stats, 60))
    assert cells.index(SOFT_CELL) == 80_000 // 1_000 - 1
    assert cells.index(HARD_CELL) == 120_000 // 1_000 - 1


def test_tool_schemas_are_split_by_mcp_server_in_the_same_total():
    stats = make_stats(tool_schemas_by_source={"built-in": 1_900, "MCP github": 600})
    figures = {part.name: tokens for part, tokens in map_figures(stats)}
    plain = {part.name: tokens for part, tokens in map_figures(make_stats())}
    assert figures["schemas: MCP github"] > 0
    assert figures["schemas: built-in"] + figures["schemas: MCP github"] == plain["tool schemas"]
    assert "tool schemas" not in figures  # no part named as if it were all of them
    shown = "\n".join(_render(stats, 60))
    assert "schemas: MCP github" in shown and "schemas: built-in" in shown


def test_small_parts_take_their_cell_from_the_largest_so_content_stays_under_the_soft_mark():
    """On a small window each cell is a few dozen tokens: seven parts each given at least
    one cell used to push the drawn content past the soft mark of a view under it."""
    stats = make_stats(
        context_window=4_800,
        soft_threshold=3_200,
        hard_limit=4_000,
        tokens_by_category={
            "system_prompt": 5,
            "project_instructions": 3,
            "tool_schemas": 7,
            "durable_context": 4,
            "compaction_digest": 6,
            "compaction_summary": 9,
            "user_text": 3_025,
        },
        total_tokens=3_059,
        context_tokens=3_059,
    )
    cells = _cells(_render(stats, 60))
    assert cells.rindex(USED_CELL) < cells.index(SOFT_CELL)
    allotted = allot_cells([tokens for _, tokens in map_figures(stats)], 4_800)
    assert all(count >= 1 for count in allotted)
    assert sum(allotted) == round(3_059 * MAP_CELLS / 4_800)
