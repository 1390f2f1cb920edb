"""The session's timeline: sizes per request, the thresholds, and the compactions."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from repl_fakes import make_stats
from rich.console import Console
from session_support import drain, make_session

from agent_cli.events import CompactionRecord, Usage
from agent_cli.provider.offline import OfflineProvider
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
from agent_cli.session.stats import MAX_TIMELINE


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


def test_a_layer_run_twice_is_listed_once():
    timeline = (1_000, _record(11_198, 4_770, ("L1", "L1")), 2_000)
    listed = "\n".join(_render(make_stats(timeline=timeline)))
    assert "L1 11,198 -> 4,770 (-6,428)" in listed and "L1+L1" not in listed


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


def test_a_windowed_timeline_numbers_requests_as_the_session_did_and_says_how_many():
    """`stats` hands on only the newest entries: the header says the chart shows the last
    of all the requests, and a compaction is named by the request's true number."""
    stats = make_stats(
        timeline=(2_000, _record(5_500, 2_500), 2_500, 3_500),
        timeline_requests_before=2_297,
    )
    chart = "\n".join(_render(stats, 100))
    assert "context size at each of the last 3 of 2,300 requests" in chart
    assert "request 2,299: L1 5,500 -> 2,500 (-3,000)" in chart


def test_the_header_says_how_many_summary_requests_it_does_not_draw():
    """`stats` counts every request, summaries too; the chart draws the main ones only, and
    says so where the two counts differ (145 drawn beside 180 counted read as a contradiction)."""
    drawn = make_stats(timeline=(2_000, 2_500, 3_500), requests=5, summary_requests=2)
    assert "each of 3 requests (not drawn: 2 summary requests)" in "\n".join(_render(drawn, 120))
    alone = make_stats(timeline=(2_000, 2_500), requests=2)
    assert "not drawn" not in "\n".join(_render(alone))


def test_the_timeline_of_a_session_past_the_window_counts_every_request(workspace: Path) -> None:
    """A real session with more requests than the window `stats` hands on: the chart's
    count and its last compaction's request number agree with the session's."""
    session = make_session(workspace, OfflineProvider(), soft=6_000, hard=40_000)
    drain(session.run_turn("hello"))
    totals = session.log.totals
    for _ in range(MAX_TIMELINE + 300):  # the usage a long session's requests reported
        totals.note_usage(Usage(input_tokens=1_000))
    totals.note_compaction(_record(5_500, 2_500))
    totals.note_usage(Usage(input_tokens=2_000))
    stats = session.stats()
    made = sum(1 for entry in totals.timeline if isinstance(entry, int))
    chart = "\n".join(_render(stats, 100))
    assert f"of {made:,} requests" in chart
    assert f"request {made:,}: L1 5,500 -> 2,500" in chart
    session.close()
