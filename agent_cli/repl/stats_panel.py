"""The `stats` panel: where every token of the prompt view goes, at a glance.

Contract: `build_stats_panel(stats)` turns a `SessionStats` into a rich `Panel` and
`render_stats_json(stats)` into JSON for scripts (`/stats --json`). Every figure comes
from the session; this module only lays them out (bars are shares of the total).
Outside strings (paths, ids, estimator names) are shown as sanitized `Text`.

Fitted to the width it gets, numbers are never cut: each label sits beside its value
while the token table (label, number, share) fits beside the labels; on a narrower
screen (about 40 columns) each label has a line of its own with its value below it,
indented, so the value gets nearly the whole width. The token table's bars shrink, then
go; as a last resort its category names wrap, never its numbers.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from agent_cli.events import CompactionRecord, SessionStats, Usage
from agent_cli.repl.compact_lines import describe_layers_run
from agent_cli.repl.labelled_rows import LabelledRows
from agent_cli.repl.safe_text import clip_line, sanitize_text
from agent_cli.tools.output import count_noun
from agent_cli.usage_cost import format_usd

CATEGORY_LABELS = {
    "system_prompt": "system prompt",
    "project_instructions": "project instructions",
    "durable_context": "durable context",
    "tool_schemas": "tool schemas",
    "user_text": "user text",
    "assistant_text": "assistant text",
    "tool_calls": "tool calls",
    "tool_results": "tool results",
    "compaction_summary": "compaction summary",
    "compaction_digest": "compaction digest",
}
SOURCE_STATUSES = ("available", "changed", "missing", "denied", "corrupt", "unsupported")
BAR_WIDTH = 24
MIN_BAR_WIDTH = 6
STACKED_INDENT = 2  # a value's indent below its label, stacked


def render_stats_json(stats: SessionStats) -> str:
    """The whole `SessionStats` as JSON (field names as in `agent_cli.events`)."""
    return json.dumps(dataclasses.asdict(stats), indent=2, sort_keys=True, default=str)


def build_bar(part: int, whole: int, width: int = BAR_WIDTH) -> str:
    """A bar of `width` cells, filled in proportion to part/whole (at least one if part>0)."""
    if whole <= 0 or part <= 0:
        return "·" * width
    filled = min(width, max(1, round(width * part / whole)))
    return "█" * filled + "·" * (width - filled)


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole > 0 else "-"


def build_stats_panel(stats: SessionStats) -> Panel:
    rows = LabelledRows(
        build_stats_rows(stats),
        min_value_width=category_table_min_width(stats),
        label_style="bold",
        indent=STACKED_INDENT,
    )
    return Panel(rows, title="stats", title_align="left", border_style="cyan")


def build_stats_rows(stats: SessionStats) -> list[tuple[str, RenderableType]]:
    """(label, value) for each line of the panel, in the order shown.

    Values are `Text` or renderables, never plain strings: a table would read a string
    as rich markup.
    """
    rows: list[tuple[str, RenderableType]] = [
        ("model", _safe(describe_model_line(stats))),
        ("limits", Text(describe_limits(stats))),
        ("context", Text(describe_view_size(stats))),
        ("free", Text(describe_free_space(stats))),
        ("cost", Text(describe_cost(stats))),
        ("messages", Text(describe_message_counts(stats))),
        ("tokens", CategoryTable(stats)),
        *_schema_sources_row(stats),
        ("instructions", _safe(stats.project_instructions or "none")),
        ("estimator", _safe(stats.estimator)),
        ("calibration", Text(describe_calibration(stats.calibration))),
        ("last request", Text(describe_usage(stats.last_usage, source=usage_source(stats)))),
        (
            "session total",
            Text(f"{describe_usage(stats.total_usage)} · {count_noun(stats.requests, 'request')}"),
        ),
        ("cache reads", Text(describe_cache_read_share(stats.cache_read_share))),
        ("compactions", build_compaction_list(stats.compactions)),
        ("sources", Text(describe_source_statuses(stats.source_statuses))),
        ("session", _safe(stats.session_id)),
        ("transcript", _safe(stats.transcript_path)),
    ]
    rows += [
        (clip_line(str(key), 30), _safe(str(value))) for key, value in sorted(stats.extra.items())
    ]
    return rows


def describe_limits(stats: SessionStats) -> str:
    lowered = ""
    if stats.thresholds_as_set is not None:
        soft, hard = stats.thresholds_as_set
        lowered = f" (lowered to fit the window; set: {soft:,} / {hard:,})"
    return (
        f"context window {stats.context_window:,} · soft threshold {stats.soft_threshold:,} · "
        f"hard limit {stats.hard_limit:,}{lowered}"
    )


def context_figure(stats: SessionStats) -> int:
    """The one "how full" figure (the toolbar's); the estimate's total if none was set."""
    return stats.context_tokens or stats.total_tokens


def describe_free_space(stats: SessionStats) -> str:
    """How much of the model's context window the next request leaves free."""
    share = percent(stats.context_free, stats.context_window)
    return f"{stats.context_free:,} of the {stats.context_window:,}-token window ({share})"


def describe_model_line(stats: SessionStats) -> str:
    """The model and provider; for a model the table does not know, what that means."""
    line = f"{stats.model} ({stats.provider})"
    if not stats.model_in_table and stats.provider != "offline":
        line += (
            " · not in agent-cli's model table: context window assumed "
            f"{stats.context_window:,}, cost shown in tokens only"
        )
    return line


COST_LABELS = {
    "input": "input",
    "output": "output",
    "cache_write": "cache write",
    "cache_read": "cache read",
}


def describe_cost(stats: SessionStats) -> str:
    """Dollars per category, as aider shows them, and what could not be priced."""
    if stats.provider == "offline":
        return "none: the offline demo model runs locally"
    parts = []
    if stats.cost_by_category:
        total = sum(stats.cost_by_category.values())
        parts.append(format_usd(total))
        parts += [
            f"{label} {format_usd(stats.cost_by_category.get(key, 0.0))}"
            for key, label in COST_LABELS.items()
        ]
    if stats.unpriced_requests:
        models = ", ".join(clip_line(m, 60) for m in stats.unpriced_models) or "unknown"
        parts.append(
            f"{count_noun(stats.unpriced_requests, 'request')} not priced ({models}: not in "
            "the model "
            "table; their tokens are in the session total)"
        )
    return " · ".join(parts) or "$0 (no request yet)"


def describe_view_size(stats: SessionStats) -> str:
    tokens = context_figure(stats)
    return (
        f"{tokens:,} tokens in the next request (= toolbar) · "
        f"{percent(tokens, stats.soft_threshold)} of soft · "
        f"{percent(tokens, stats.hard_limit)} of hard"
    )


def describe_message_counts(stats: SessionStats) -> str:
    return (
        f"{stats.messages_in_view:,} in view / {stats.messages_in_transcript:,} in transcript · "
        f"tool interactions {stats.interactions_in_view:,} / {stats.interactions_in_transcript:,}"
    )


class CategoryTable:
    """The token categories, fitted to the width they get: numbers always whole; the
    bars shrink on a narrow screen and go first when even a short bar does not fit."""

    def __init__(self, stats: SessionStats) -> None:
        self.stats = stats

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield build_category_table(
            self.stats, bar_width=fit_bar_width(self.stats, options.max_width)
        )


def category_rows(stats: SessionStats) -> list[tuple[str, int]]:
    known = [key for key in CATEGORY_LABELS if key in stats.tokens_by_category]
    others = sorted(key for key in stats.tokens_by_category if key not in CATEGORY_LABELS)
    return [
        (CATEGORY_LABELS.get(key) or clip_line(key, 30), stats.tokens_by_category[key])
        for key in known + others
    ]


def fit_bar_width(stats: SessionStats, width: int) -> int:
    """The widest bar (at most `BAR_WIDTH`) that leaves every number whole; 0: no bars."""
    room = width - category_table_min_width(stats) - 1  # the bar's own one-cell gap
    return min(BAR_WIDTH, room) if room >= MIN_BAR_WIDTH else 0


def category_table_min_width(stats: SessionStats) -> int:
    """The cells the token table needs without bars: its longest name, its longest
    number and a share, with a one-cell gap between each."""
    rows = category_rows(stats)
    label = max([cell_len(name) for name, _ in rows] + [len("× calibration")])
    number = max([len(f"{tokens:,}") for _, tokens in rows] + [len(f"{stats.total_tokens:,}")])
    return label + number + len("100%") + 2


def build_category_table(stats: SessionStats, bar_width: int = BAR_WIDTH) -> Table:
    """One row per token category: name, tokens, a bar (unless `bar_width` is 0) and the
    share of the total."""
    table = Table.grid(padding=(0, 1))
    table.add_column(overflow="fold")  # the names give way first, the numbers never
    table.add_column(justify="right", no_wrap=True)
    if bar_width:
        table.add_column(style="cyan", no_wrap=True)
    table.add_column(justify="right", no_wrap=True)
    for label, tokens in category_rows(stats):
        bar = [Text(build_bar(tokens, stats.total_tokens, bar_width))] if bar_width else []
        table.add_row(
            Text(label), Text(f"{tokens:,}"), *bar, Text(percent(tokens, stats.total_tokens))
        )
    blank = [""] if bar_width else []
    table.add_row(
        Text("total", style="bold"), Text(f"{stats.total_tokens:,}", style="bold"), *blank, ""
    )
    if stats.calibration is not None:
        table.add_row(
            Text("× calibration", style="dim"),
            Text(f"{context_figure(stats):,}", style="dim"),
            *blank,
            "",
        )
    return table


def describe_calibration(calibration: float | None) -> str:
    if calibration is None:
        return "none yet: the token figures are the estimator's count"
    return f"API / estimate = {calibration:.2f} on the last request (context = total × this)"


def usage_source(stats: SessionStats) -> str:
    """Who counted a request's usage: the API, or the offline demo model itself."""
    return "the demo's count" if stats.provider == "offline" else "API-reported"


def describe_usage(usage: Usage | None, *, source: str | None = None) -> str:
    """A request's (or the session's) usage; `source`: who counted it, said after it."""
    if usage is None:
        return "no request yet"
    text = (
        f"input {usage.input_tokens:,} · cache read {usage.cache_read_input_tokens:,} · "
        f"cache write {usage.cache_creation_input_tokens:,} · output "
        f"{usage.output_tokens:,}"
    )
    return f"{text} ({source})" if source else text


def describe_cache_read_share(share: float | None) -> str:
    """The session's cache reads as a share of all its input tokens."""
    if share is None:
        return "no request yet"
    return f"{100 * share:.0f}% of the session's input tokens came from the prompt cache"


def build_compaction_list(compactions: tuple[CompactionRecord, ...]) -> Group | Text:
    if not compactions:
        return Text("none yet")
    return Group(*(Text(describe_compaction(record)) for record in compactions))


def describe_compaction(record: CompactionRecord) -> str:
    layers = describe_layers_run(record.layers)
    forced = " (/compact)" if record.forced else ""
    return (
        f"{_format_time(record.at)}  {layers}: {record.tokens_before:,} -> "
        f"{record.tokens_after:,} tokens{forced}"
    )


def describe_source_statuses(counts: dict[str, int]) -> str:
    names = list(SOURCE_STATUSES) + sorted(k for k in counts if k not in SOURCE_STATUSES)
    return " · ".join(f"{clip_line(name, 20)} {counts.get(name, 0):,}" for name in names)


def _format_time(at: str) -> str:
    """`2026-12-02 15:00:41` in the zone it was recorded in; unparsable text as is."""
    try:
        return datetime.fromisoformat(at).strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return clip_line(at, 40)


def _safe(text: str) -> Text:
    return Text(sanitize_text(text).replace("\n", " "))


def _schema_sources_row(stats: SessionStats) -> list[tuple[str, RenderableType]]:
    """Where the tool schemas' tokens come from, when MCP servers add some."""
    if not stats.tool_schemas_by_source:
        return []
    parts = [f"{source} {tokens:,}" for source, tokens in stats.tool_schemas_by_source.items()]
    return [("tool schemas", _safe(" · ".join(parts)))]
