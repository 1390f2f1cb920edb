"""The `stats` panel, rendered to a fixed-width console and compared."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from repl_fakes import make_console, make_stats

from agent_cli.events import CompactionRecord, Usage
from agent_cli.repl.stats_panel import (
    build_bar,
    build_stats_panel,
    describe_calibration,
    render_stats_json,
)

GOLDEN = Path(__file__).parent / "golden" / "stats_panel.txt"
UPDATE_GOLDEN = "AGENT_CLI_UPDATE_GOLDEN"


def render(stats) -> str:
    console = make_console(width=100)
    console.print(build_stats_panel(stats))
    return console.export_text()


def line_with(text: str, label: str) -> str:
    return next(line for line in text.splitlines() if f"│ {label}  " in line)


def test_stats_panel_matches_the_golden_rendering():
    shown = render(make_stats())
    if os.environ.get(UPDATE_GOLDEN):
        GOLDEN.write_text(shown, encoding="utf-8")
    assert shown == GOLDEN.read_text(encoding="utf-8"), (
        f"the stats panel changed; if that was meant, rerun with {UPDATE_GOLDEN}=1 and review "
        "the diff of tests/golden/stats_panel.txt"
    )


def test_stats_panel_names_model_provider_and_limits():
    shown = render(make_stats())
    assert "offline-demo (offline)" in line_with(shown, "model")
    assert "context window 200,000 · soft threshold 80,000 · hard limit 120,000" in line_with(
        shown, "limits"
    )


def test_stats_panel_has_a_bar_row_for_every_token_category_and_the_total():
    shown = render(make_stats())
    for label, tokens in [
        ("system prompt", "1,200"),
        ("durable context", "300"),
        ("tool schemas", "2,500"),
        ("user text", "4,000"),
        ("assistant text", "3,000"),
        ("tool calls", "345"),
        ("tool results", "1,000"),
    ]:
        row = next(line for line in shown.splitlines() if f" {label} " in line)
        assert tokens in row and "█" in row
    assert "total           12,345" in shown


def test_stats_panel_compares_view_and_transcript_counts():
    shown = render(make_stats())
    assert "12 in view / 40 in transcript" in line_with(shown, "messages")
    assert "tool interactions 3 / 10" in line_with(shown, "messages")


def test_stats_panel_shows_usage_of_the_last_request_and_the_session():
    shown = render(make_stats())
    assert "input 900 · cache read 10,000 · cache write 1,100 · output 250" in line_with(
        shown, "last request"
    )
    assert "7 requests" in line_with(shown, "session total")


def test_stats_panel_lists_every_compaction_with_layers_and_sizes():
    shown = render(make_stats())
    assert "2026-12-02 15:00:41  L1+L2+L3: 91,204 -> 41,000 tokens" in shown
    assert "2026-12-02 15:30:00  L4: 85,000 -> 20,000 tokens (/compact)" in shown


def test_stats_panel_names_a_layer_run_twice_once():
    """The hard limit's shared re-run of L1 showed as `L1+L1` (session 30's outside tester)."""
    twice = CompactionRecord("2026-12-02T16:00:00+00:00", ("L1", "L1"), 11_198, 4_770)
    shown = render(make_stats(compactions=(twice,)))
    assert "2026-12-02 16:00:00  L1: 11,198 -> 4,770 tokens" in shown
    assert "L1+L1" not in shown


def test_stats_panel_counts_every_source_status_including_zeros():
    shown = render(make_stats())
    assert (
        "available 3 · changed 0 · missing 1 · denied 0 · corrupt 2 · unsupported 0"
        in line_with(shown, "sources")
    )


def test_stats_panel_before_any_request_says_so():
    shown = render(make_stats(calibration=None, last_usage=None, compactions=()))
    assert "none yet: the token figures are the estimator's count" in line_with(
        shown, "calibration"
    )
    assert "no request yet" in line_with(shown, "last request")
    assert "none yet" in line_with(shown, "compactions")


def test_stats_panel_shows_session_id_and_transcript_path():
    shown = render(make_stats())
    assert "20261202-150000-abcd" in line_with(shown, "session")
    assert "/state/transcripts/20261202-150000-abcd.jsonl" in line_with(shown, "transcript")


def test_stats_panel_shows_hostile_strings_inertly():
    shown = render(make_stats(estimator="[bold]x[/bold]\x1b[2J", model="m\rFAKE"))
    assert "[bold]x[/bold]" in shown and "\x1b" not in shown and "\r" not in shown


def test_stats_json_is_the_whole_stats_value_for_scripts():
    data = json.loads(render_stats_json(make_stats()))
    assert data["total_tokens"] == 12_345
    assert data["tokens_by_category"]["tool_schemas"] == 2_500
    assert data["last_usage"]["cache_read_input_tokens"] == 10_000
    assert data["compactions"][1]["forced"] is True


def test_bars_are_proportional_and_never_hide_a_non_zero_part():
    assert build_bar(50, 100, width=10) == "█████·····"
    assert build_bar(1, 1_000_000, width=10) == "█·········"
    assert build_bar(0, 100, width=4) == "····"


def test_calibration_reads_as_a_ratio():
    assert describe_calibration(1.126).startswith("API / estimate = 1.13 on the last request")


def test_an_unexpected_category_name_is_shown_literally():
    stats = make_stats(tokens_by_category={"[red]odd[/red]": 5}, total_tokens=5)
    assert "[red]odd[/red]" in render(stats)


def test_the_context_row_shows_the_toolbar_figure_and_says_where_the_others_come_from():
    shown = render(make_stats(context_tokens=13_580, calibration=1.1, provider="anthropic"))
    assert "13,580 tokens in the next request (= toolbar)" in line_with(shown, "context")
    assert re.search(r"× calibration +13,580 ", shown), shown
    assert "(API-reported)" in line_with(shown, "last request")


def test_the_offline_models_counts_are_not_called_the_apis():
    """Session 26's outside test: the offline demo's `stats` said "(API-reported)"."""
    shown = render(make_stats(provider="offline"))
    assert "(the demo's count)" in line_with(shown, "last request")
    assert "API-reported" not in shown


def render_at(width: int, **changes) -> str:
    console = make_console(width=width)
    console.print(build_stats_panel(make_stats(**changes)))
    return console.export_text()


def test_a_narrow_screen_keeps_every_number_whole_and_drops_bars_first():
    for width in (60, 48):
        shown = render_at(width)
        for number in ("1,200", "2,500", "4,000", "12,345", "13,950"):
            assert number in shown, (width, shown)
        assert "…" not in line_with(shown, "tokens"), shown
    assert "█" in render_at(60)  # shorter bars still fit at 60 columns
    assert "█" not in render_at(48)  # at 48 they go, the numbers stay


NUMBERS = ("1,200", "300", "2,500", "4,000", "3,000", "345", "1,000", "12,345", "13,950")


def token_rows(shown: str) -> list[str]:
    """The token table's rows: from the `tokens` label down to the next label."""
    lines = shown.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("│ tokens"))
    end = next(n for n, line in enumerate(lines) if line.startswith("│ instructions"))
    return lines[start:end]


def test_at_forty_columns_each_label_stands_over_its_value_and_no_figure_is_cut():
    """Found by an outside attack: at 40 columns the token figures read `5…`, `1…`."""
    for width in (40, 34):
        shown = render_at(width, calibration=1.1)
        rows = token_rows(shown)
        assert "…" not in "".join(rows), shown
        for number in NUMBERS:
            assert any(re.search(rf"(?<![\d,]){number}(?![\d,])", row) for row in rows), shown
        assert "│ tokens " in rows[0] and "system prompt" in rows[1], shown  # stacked
        assert "│ model " in shown and "│   offline-demo (offline)" in shown, shown


def test_a_transcript_path_longer_than_its_row_is_folded_whole_not_cut():
    """An outside tester could not copy the path from `stats` at 60 columns: it read
    `/tmp/…/transcripts/20261206-06…`."""
    path = "/tmp/c21-work/a-long-home-folder/transcripts/20261206-064427-8b7905.jsonl"
    for width in (60, 40):
        shown = render_at(width, transcript_path=path)
        lines = shown.splitlines()
        start = next(n for n, line in enumerate(lines) if "/tmp/c21-work" in line)
        pieces = [line.strip("│ ").removeprefix("transcript").strip() for line in lines[start:]]
        joined = "".join(pieces)
        assert path in joined, shown
        assert "…" not in joined[: joined.index(path) + len(path)], shown


def test_on_a_very_narrow_screen_the_category_names_wrap_and_the_figures_stay_whole():
    shown = render_at(28, calibration=1.1)
    rows = token_rows(shown)
    assert "…" not in "".join(rows), shown
    for number in NUMBERS:
        assert any(re.search(rf"(?<![\d,]){number}(?![\d,])", row) for row in rows), shown


def test_a_screen_where_the_token_table_fits_beside_the_labels_keeps_them_side_by_side():
    for width in (48, 60, 100):
        shown = render_at(width)
        assert re.search(r"│ tokens +system prompt", shown), (width, shown)


def test_stats_show_the_sessions_cache_read_share_of_all_input():
    usage = Usage(input_tokens=100, cache_creation_input_tokens=100, cache_read_input_tokens=300)
    stats = make_stats(total_usage=usage)
    assert stats.cache_read_share == 0.6
    assert "60% of the session's input tokens came from the prompt cache" in line_with(
        render(stats), "cache reads"
    )
    assert json.loads(render_stats_json(stats))["cache_read_share"] == 0.6


def test_the_cache_read_share_before_any_request_says_so():
    stats = make_stats(total_usage=Usage(), last_usage=None, requests=0)
    assert stats.cache_read_share is None
    assert "no request yet" in line_with(render(stats), "cache reads")


LABELS = ("user text", "tool results", "compaction summary", "compaction digest")


def test_what_compaction_wrote_has_rows_of_its_own_after_the_tool_results():
    categories = {"user_text": 50, "tool_results": 30, "compaction_summary": 94}
    categories["compaction_digest"] = 608
    shown = render(make_stats(tokens_by_category=categories, total_tokens=782))
    rows = [line for line in shown.splitlines() if "█" in line]
    labels = [next(label for label in LABELS if f" {label} " in row) for row in rows]
    assert labels == ["user text", "tool results", "compaction summary", "compaction digest"]
    assert "608" in rows[-1] and "compaction_digest" not in shown
