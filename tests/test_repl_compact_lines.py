"""The `[compact]` log: every layer's line, the total, blocked and skipped lines."""

from __future__ import annotations

import io

import pytest
from repl_fakes import make_console
from rich.console import Console

from agent_cli.events import (
    AssistantText,
    CompactionFired,
    CompactionSkipped,
    LayerLine,
    RequestBlocked,
    StreamRestarted,
)
from agent_cli.repl.compact_lines import (
    describe_layer_span,
    format_blocked,
    format_compaction,
    format_layer_line,
    format_retry,
    format_skipped,
    format_total_line,
)
from agent_cli.repl.render import EventRenderer

L1 = LayerLine("L1", 91_204, 78_530, results_truncated=3)
L2 = LayerLine("L2", 78_530, 70_000, interactions_removed=2)
L3 = LayerLine("L3", 70_000, 52_000, messages_removed=8, interactions_removed=3)
L4 = LayerLine("L4", 52_000, 41_000, messages_removed=20)


def test_layer_one_line_says_how_many_results_were_cut():
    assert format_layer_line(L1) == (
        "[compact] L1 truncate tool results: 91,204 -> 78,530 tokens (-12,674; 3 results cut)"
    )


def test_a_step_that_grew_the_view_shows_a_plus_not_a_double_minus():
    grown = LayerLine("L4", 2_424, 2_437, messages_removed=2)
    assert format_layer_line(grown) == (
        "[compact] L4 summarize: 2,424 -> 2,437 tokens (+13; summarized 2 messages)"
    )
    event = CompactionFired((grown,), 2_424, 2_437, 3_000, 60_000, forced=True)
    assert "2,424 -> 2,437 tokens (+13) in 1 layer" in format_total_line(event)


def test_l1_run_once_more_at_the_hard_limit_is_worded_as_that_and_counted_once():
    """Session 30's outside tester (`--soft-threshold 3000 --hard-limit 5000`, six 700-line
    outputs): the shared re-run read as a second `truncate tool results`, and the total
    said `in 2 layers` for one layer run twice."""
    shared = LayerLine("L1", 6_285, 4_770, results_truncated=6)
    first = LayerLine("L1", 11_198, 6_285, results_truncated=6)
    event = CompactionFired((first, shared), 11_198, 4_770, 3_000, 5_000)
    assert format_compaction(event) == [
        "[compact] L1 truncate tool results: 11,198 -> 6,285 tokens (-4,913; 6 results cut)",
        "[compact] L1 once more, tool results sharing the room left: 6,285 -> 4,770 tokens "
        "(-1,515; 6 results cut)",
        "[compact] total: 11,198 -> 4,770 tokens (-6,428) in 1 layer",
    ]


def test_every_layer_run_again_at_the_hard_limit_says_so_and_counts_once():
    step = LayerLine("L3", 9_000, 6_000, messages_removed=4)
    shared = LayerLine("L1", 6_000, 4_900, results_truncated=2)
    event = CompactionFired((L1, L2, L3, shared, step, shared), 91_204, 4_900, 3_000, 5_000)
    lines = format_compaction(event)
    assert [line.split(":")[0] for line in lines] == [
        "[compact] L1 truncate tool results",
        "[compact] L2 drop repeated file reads",
        "[compact] L3 prune old messages",
        "[compact] L1 once more, tool results sharing the room left",
        "[compact] L3 once more, keeping only the step the model is in",
        "[compact] L1 once more, tool results sharing the room left",
        "[compact] total",
    ]
    assert lines[-1].endswith("in 3 layers")
    assert describe_layer_span(("L1", "L2", "L3", "L1", "L3")) == "L1-L3"


def test_layer_two_line_counts_repeated_reads_dropped():
    assert format_layer_line(L2) == (
        "[compact] L2 drop repeated file reads: 78,530 -> 70,000 tokens (-8,530; "
        "2 repeated reads dropped)"
    )


def test_layer_three_line_counts_messages_and_interactions_pruned():
    assert format_layer_line(L3) == (
        "[compact] L3 prune old messages: 70,000 -> 52,000 tokens (-18,000; "
        "8 messages, 3 interactions pruned)"
    )


def test_layer_four_line_counts_messages_summarized():
    assert format_layer_line(L4) == (
        "[compact] L4 summarize: 52,000 -> 41,000 tokens (-11,000; summarized 20 messages)"
    )


def test_a_count_of_one_is_singular():
    one = LayerLine("L1", 10, 5, results_truncated=1)
    assert format_layer_line(one).endswith("(-5; 1 result cut)")


def test_total_line_sums_up_the_layers_that_fired():
    event = CompactionFired((L1, L2, L3), 91_204, 41_000, 80_000, 120_000)
    assert format_total_line(event) == (
        "[compact] total: 91,204 -> 41,000 tokens (-50,204) in 3 layers"
    )


def test_a_forced_compaction_says_it_was_requested():
    event = CompactionFired((L4,), 52_000, 41_000, 80_000, 120_000, forced=True)
    assert format_total_line(event) == (
        "[compact] total: 52,000 -> 41,000 tokens (-11,000) in 1 layer (requested with /compact)"
    )


def test_compaction_lines_come_in_layer_order_then_the_total():
    event = CompactionFired((L1, L2), 91_204, 70_000, 80_000, 120_000)
    lines = format_compaction(event)
    assert [line.split()[1] for line in lines] == ["L1", "L2", "total:"]


def test_a_focus_no_summary_used_is_said_and_one_a_summary_used_is_named():
    """Thirteenth attack: `/compact the docs` where L4 found nothing new ran L3 alone and
    said nothing of the focus."""
    pruned = format_compaction(
        CompactionFired((L3,), 70_000, 52_000, 80_000, 120_000, forced=True, focus="the docs")
    )
    assert pruned[1] == "[compact] no summary was made, so the focus went unused: the docs"
    summarized = format_compaction(
        CompactionFired((L4,), 52_000, 41_000, 80_000, 120_000, forced=True, focus="the docs")
    )
    assert summarized[1] == "[compact] summary focus: the docs"


def test_blocked_line_names_the_sizes_and_says_nothing_was_sent():
    event = RequestBlocked(200_000, 130_000, 120_000, ("L1", "L2", "L3", "L4"))
    first, advice = format_blocked(event)
    assert first == (
        "[compact] blocked: view is 130,000 tokens after L1-L4, hard limit 120,000; "
        "nothing was sent"
    )
    assert "/compact" in advice and "--hard-limit" in advice and "/new" in advice


def test_blocked_by_what_the_request_carries_besides_the_view_says_compacting_cannot_help():
    event = RequestBlocked(253_753, 253_753, 60_000, ("L1",), 500, reserved_tokens=251_430)
    _, advice = format_blocked(event)
    assert "251,430 tokens alone" in advice and "MCP servers" in advice
    assert "/context" in advice and "--hard-limit (now 60,000)" in advice
    assert "/compact <focus>" not in advice


def test_layer_spans_read_as_ranges_only_when_consecutive():
    assert describe_layer_span(("L1", "L2", "L3")) == "L1-L3"
    assert describe_layer_span(("L1", "L3")) == "L1+L3"
    assert describe_layer_span(("L4",)) == "L4"
    assert describe_layer_span(()) == "no layer"


def _held(why: str, tokens: int = 95_000, freed: int = 0) -> CompactionSkipped:
    return CompactionSkipped(
        "loop_guard",
        tokens,
        held=why,
        freed=freed,
        retry_at=99_000,
        soft_threshold=80_000,
        hard_limit=120_000,
    )


@pytest.mark.parametrize(
    ("why", "says"),
    [
        ("over_soft", "still over the soft threshold after compacting (95,000 of 80,000 tokens)"),
        ("freed_little", "that compaction freed only 300 tokens"),
        ("short_of_aim", "that compaction left 95,000 tokens, close to the soft threshold"),
        ("nothing_freed", "nothing could be compacted"),
        ("summary_not_worth_it", "a summary would replace under a quarter of the room"),
    ],
)
def test_a_paused_compaction_says_why_what_it_waits_for_and_what_to_do(why, says):
    """Plain words, true for the case: no "loop guard", no "freed too little" after a
    compaction that freed thousands but stayed over the threshold."""
    line = format_skipped(_held(why, freed=300))
    assert line.startswith("[compact] ") and says in line
    assert "waits until the context passes 99,000 tokens" in line
    assert "hard limit, 120,000" in line and "/compact" in line and "/new" in line
    assert "loop guard" not in line and "skipped" not in line
    if why in ("over_soft", "short_of_aim"):
        assert "freed" not in line


def test_a_pause_already_explained_is_one_short_line_with_its_figures():
    """On a small soft threshold the guard can pause after nearly every turn: the
    paragraph once per reason, then the figures and what it waits for."""
    console = make_console(width=300)
    renderer = EventRenderer(console, live=False)
    for held in ("short_of_aim", "short_of_aim", "over_soft", "short_of_aim", "over_soft"):
        renderer.render(_held(held))
    lines = [line for line in console.export_text().splitlines() if line.startswith("[compact]")]
    assert len(lines) == 5
    assert "close to the soft threshold" in lines[0] and "/compact" in lines[0]
    assert lines[1] == (
        "[compact] that compaction left 95,000 tokens; as before, compaction waits until "
        "the context passes 99,000 tokens"
    )
    assert "still over the soft threshold after compacting" in lines[2] and "/new" in lines[2]
    assert lines[4] == (
        "[compact] still over the soft threshold (95,000 of 80,000 tokens); as before, "
        "compaction waits until the context passes 99,000 tokens"
    )
    assert "freed only 300 tokens; as before" in format_skipped(
        _held("freed_little", freed=300), explained=True
    )


def test_loop_guard_and_nothing_to_compact_each_get_one_line():
    assert "\n" not in format_skipped(_held("over_soft"))
    assert format_skipped(CompactionSkipped("nothing_to_compact", 12_000)) == (
        "[compact] nothing to compact: view is 12,000 tokens"
    )
    nothing_new = CompactionSkipped("nothing_to_compact", 12_000, "nothing_new_to_summarize")
    assert format_skipped(nothing_new).startswith(
        "[compact] nothing new to compact since the last compaction: view is 12,000 tokens"
    )


def test_a_refused_summary_says_it_was_not_used_and_the_size_that_stays():
    line = format_skipped(CompactionSkipped("summary_not_smaller", 2_254))
    assert line.startswith("[compact] not compacted: the summary was not smaller")
    assert "not used" in line and line.endswith("view stays 2,254 tokens")


def test_retry_line_names_the_kind_and_the_delay():
    assert format_retry(StreamRestarted(2, 2.0, "overloaded")) == "retrying (overloaded) in 2.0 s…"


def test_a_retry_after_part_of_an_answer_was_printed_says_that_part_is_void():
    # printed as plain text it cannot be taken back (a live view clears it instead)
    console = make_console()
    renderer = EventRenderer(console, live=False)
    renderer.render(AssistantText("The failing test is test_lo"))
    renderer.render(StreamRestarted(1, 2.0, "overloaded"))
    renderer.render(StreamRestarted(2, 4.0, "overloaded"))  # nothing streamed before this one
    lines = console.export_text().splitlines()
    assert lines[-2:] == [
        "the answer above broke off and is void; retrying (overloaded) in 2.0 s…",
        "retrying (overloaded) in 4.0 s…",
    ]


def test_renderer_prints_each_layer_then_the_total_on_its_own_line():
    console = make_console()
    EventRenderer(console, live=False).render(
        CompactionFired((L1, L2, L3), 91_204, 41_000, 80_000, 120_000)
    )
    lines = console.export_text().splitlines()
    assert lines == [
        format_layer_line(L1),
        format_layer_line(L2),
        format_layer_line(L3),
        "[compact] total: 91,204 -> 41,000 tokens (-50,204) in 3 layers",
    ]


def test_renderer_styles_its_own_compact_tag_apart_from_the_numbers():
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="standard", width=200)
    EventRenderer(console, live=False).render(
        CompactionFired((L1,), 91_204, 78_530, 80_000, 120_000)
    )
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert all(line.startswith("\x1b[1;36m[compact]\x1b[0m") for line in lines)


def test_renderer_shows_blocked_with_what_to_do():
    console = make_console()
    EventRenderer(console, live=False).render(RequestBlocked(200_000, 130_000, 120_000, ("L1",)))
    shown = console.export_text()
    assert "[compact] blocked: view is 130,000 tokens after L1, hard limit 120,000" in shown
    assert "to go on:" in shown


def test_l3_without_whole_interactions_does_not_count_zero_of_them():
    line = LayerLine("L3", 3_016, 2_985, messages_removed=2)
    assert format_layer_line(line).endswith("(-31; 2 messages pruned)")


def test_a_reserve_filled_by_the_durable_block_names_it_and_forget():
    """When forgetting facts would make room (the rest of the reserve fits), the blocked
    line says the durable block is the cause and how to shrink it."""
    event = RequestBlocked(9_500, 9_500, 9_000, (), reserved_tokens=9_500, durable_tokens=7_000)
    _, advice = format_blocked(event)
    assert "the durable block (your /remember facts and /todo items) is 7,000 of the 9,500" in (
        advice
    )
    assert "/forget" in advice and "/compact" not in advice


def test_a_reserve_full_without_the_durable_block_names_its_share_and_every_way_out():
    event = RequestBlocked(9_500, 9_500, 9_000, (), reserved_tokens=9_500, durable_tokens=200)
    _, advice = format_blocked(event)
    assert "tool schemas" in advice and "the durable block 200 of them" in advice
    assert "/mcp" in advice and "/forget" in advice and "--hard-limit (now 9,000)" in advice


def test_the_error_text_of_a_reserve_filled_by_the_durable_block_names_it():
    from agent_cli.errors import MessageViewLimitExceeded
    from agent_cli.repl.error_text import describe_error

    error = MessageViewLimitExceeded(
        tokens_before=9_500,
        tokens_after=9_500,
        hard_limit=9_000,
        applied_layers=(),
        reserved_tokens=9_500,
        durable_tokens=7_000,
    )
    text = describe_error(error)
    assert "durable block" in text and "/forget" in text
