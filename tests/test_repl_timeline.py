"""The session's timeline: sizes per request, the thresholds, and the compactions."""

from __future__ import annotations

import io

import pytest
from repl_fakes import make_stats
from rich.console import Console

from agent_cli.events import CompactionRecord
from agent_cli.repl.timeline import (
    AXIS_WIDTH,
    BAR,
    FREED,
    HARD_LINE,
    MARK,
    SOFT_LINE,
    build_timeline,
    fold_columns,
    place_requests,
)


def _record(before: int, after: int, layers: tuple[str, ...] = ("L1",)) -> CompactionRecord:
    return CompactionRecord(
        at="2026-12-03T10:00:00+00:00", layers=layers, tokens_before=before, tokens_after=after
    )


def _render(stats, width: int = 60) -> list[str]:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(build_timeline(stats, width))
    return console.file.getvalue().splitlines()


def test_requests_and_compactions_keep_their_order():
    first, second = _record(5_000, 2_000), _record(6_000, 2_500, ("L1", "L3"))
    sizes, fired = place_requests([1_000, 3_000, first, 2_100, 2_900, second, 2_600])
    assert sizes == [1_000, 3_000, 2_100, 2_900, 2_600]
    assert fired == [(2, first), (4, second)]


def test_many_requests_share_columns_showing_their_largest():
    columns, per_column = fold_columns(list(range(100)), 40)
    assert per_column == 3 and len(columns) <= 40 and columns[0] == 2 and columns[-1] == 99


@pytest.mark.parametrize("requests", [3, 40, 500])
def test_the_timeline_fits_60_columns(requests):
    timeline = [1_000 + 10 * n for n in range(requests)]
    timeline.insert(requests // 2, _record(90_000, 41_000, ("L1", "L2", "L4", "L3")))
    lines = _render(make_stats(timeline=tuple(timeline)), 60)
    assert max(map(len, lines)) <= 60
    assert "L1+L2+L4+L3 90,000 -> 41,000 (-49,000)" in "\n".join(lines)


def test_the_chart_shows_the_soft_line_the_freed_tokens_and_a_mark_under_the_compaction():
    stats = make_stats(
        soft_threshold=4_000,
        hard_limit=5_000,
        timeline=(2_000, 3_000, _record(5_500, 2_500), 2_500, 3_500),
    )
    lines = _render(stats)
    chart = "\n".join(lines)
    assert SOFT_LINE in chart and HARD_LINE in chart  # the hard limit is within the scale
    assert FREED in chart and BAR in chart
    marks = next(line for line in lines if MARK in line and "request" not in line)
    assert marks.index(MARK) == AXIS_WIDTH + 2  # under the third request's column
    assert "request 3: L1 5,500 -> 2,500 (-3,000)" in chart


def test_a_hard_limit_far_above_the_requests_is_named_not_drawn():
    lines = _render(make_stats(soft_threshold=3_000, hard_limit=60_000, timeline=(1_000, 2_000)))
    assert "hard 60,000 (above)" in "\n".join(lines)
    assert HARD_LINE not in "\n".join(lines[1:-1])


def test_no_request_yet_says_so():
    assert "no request yet" in "\n".join(_render(make_stats(timeline=())))
