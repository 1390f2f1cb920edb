"""Compaction inside the session: fires before requests, is recorded, survives resume."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from session_support import ScriptedProvider, drain, make_session, tool_use, transcript_records

from agent_cli.compaction.markers import is_digest_message, is_summary_message
from agent_cli.events import (
    CompactionFired,
    CompactionSkipped,
    Notice,
    RequestBlocked,
    TurnEnded,
)
from agent_cli.protocol import validate_tool_protocol
from agent_cli.provider.offline import OfflineProvider
from agent_cli.repl.compact_lines import format_skipped
from agent_cli.repl.error_text import notice_text
from agent_cli.sources import SourceResolutionStatus


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "big.txt").write_text("".join(f"line {i} of a long file\n" for i in range(400)))
    (root / "notes.md").write_text("# Notes\n\nshort\n")
    return root


def _fired(events: list) -> list[CompactionFired]:
    return [e for e in events if isinstance(e, CompactionFired)]


def test_a_long_offline_session_compacts_before_requests_and_stays_valid(workspace: Path) -> None:
    session = make_session(workspace, OfflineProvider(), soft=6_000, hard=40_000, keep_recent=4)
    fired: list[CompactionFired] = []
    for _ in range(8):
        events = drain(session.run_turn("read big.txt"))
        assert events[-1].outcome == "ok"
        fired += _fired(events)
        validate_tool_protocol(session.view)
    assert fired, "compaction never fired"
    layers = {line.layer for event in fired for line in event.layers}
    assert "L2" in layers  # the same file read again and again
    for event in fired:
        assert event.tokens_after < event.tokens_before
    records = [r for r in transcript_records(session) if r["kind"] == "compaction"]
    assert len(records) == len(fired)
    assert records[-1]["payload"]["view"] == session.view[: len(records[-1]["payload"]["view"])]


def test_resume_continues_from_the_last_compacted_view(workspace: Path) -> None:
    session = make_session(workspace, OfflineProvider(), soft=6_000, hard=40_000, keep_recent=4)
    for _ in range(6):
        drain(session.run_turn("read big.txt"))
    view, session_id = list(session.view), session.session_id
    session.close()
    resumed = make_session(
        workspace, OfflineProvider(), soft=6_000, hard=40_000, keep_recent=4, resume=session_id
    )
    assert resumed.view == view
    assert len(resumed.stats().compactions) >= 1


def test_a_view_that_cannot_fit_is_blocked_and_nothing_is_sent(workspace: Path) -> None:
    provider = ScriptedProvider()
    session = make_session(workspace, provider, soft=300, hard=400)
    events = drain(session.run_turn("x " * 3_000))
    assert any(isinstance(e, RequestBlocked) for e in events)
    assert events[-1] == TurnEnded("blocked", stop_reason=None, steps=1)
    assert provider.requests == []


def test_a_frame_over_the_hard_limit_is_blocked_with_advice_that_can_help(
    workspace: Path,
) -> None:
    """Found by an outside attack: MCP tool schemas alone over the hard limit blocked every
    turn with "/compact ... or /new", neither of which can help."""
    from agent_cli.repl.compact_lines import format_blocked

    provider = ScriptedProvider()
    session = make_session(workspace, provider, soft=300, hard=400)
    events = drain(session.run_turn("hi"))
    [blocked] = [e for e in events if isinstance(e, RequestBlocked)]
    assert blocked.reserved_tokens >= blocked.hard_limit and provider.requests == []
    _, advice = format_blocked(blocked)
    assert "tool schemas" in advice and "neither compacting nor /new can help" in advice
    assert "/compact <focus>" not in advice


@pytest.mark.parametrize("name", ["AGENTS.md", "CLAUDE.md"])
def test_project_instructions_over_the_hard_limit_are_named_with_what_to_do(
    workspace: Path, name: str
) -> None:
    """Session 26's outside test: a 41 KB AGENTS.md alone over the hard limit blocked every
    turn with advice about MCP servers and facts the user did not have."""
    from agent_cli.repl.compact_lines import format_blocked

    (workspace / name).write_text("Use tabs, never spaces, in every file here.\n" * 900)
    provider = ScriptedProvider()
    session = make_session(workspace, provider, soft=3_000, hard=5_000)
    events = drain(session.run_turn("hi"))
    [blocked] = [e for e in events if isinstance(e, RequestBlocked)]
    assert provider.requests == [] and blocked.instructions_source == name
    assert blocked.instructions_tokens * 2 >= blocked.reserved_tokens >= blocked.hard_limit
    _, advice = format_blocked(blocked)
    assert f"the project instructions ({name}) are {blocked.instructions_tokens:,} of" in advice
    assert f"shorten {name} and run /reload" in advice and "MCP" not in advice


def test_a_failing_summary_leaves_the_view_and_says_so(workspace: Path) -> None:
    def broken(messages):
        raise RuntimeError("summarizer down")

    provider = ScriptedProvider(summarizer=broken)
    session = make_session(workspace, provider, soft=2_000, hard=60_000, keep_recent=2)
    events = drain(session.run_turn("first " * 1_800))  # message 0 alone nearly fills it
    for index in range(4):
        events += drain(session.run_turn(f"message {index} " + "words " * 200))
    codes = [getattr(e, "code", None) for e in events]
    assert "summary_failed" in codes
    assert all(e.outcome == "ok" for e in events if isinstance(e, TurnEnded))
    assert not any(
        m["content"].startswith("[Conversation summary")
        for m in session.view
        if isinstance(m["content"], str)
    )
    assert session.view[0]["content"].startswith("first")  # L3 keeps the first message
    validate_tool_protocol(session.view)


def test_forced_compaction_uses_the_focus_and_summarizes(workspace: Path) -> None:
    seen: list[int] = []

    def summarize(messages):
        seen.append(len(messages))
        return "The user is exploring files."

    answers = [[{"type": "text", "text": f"answer {n} " + "talk " * 100}] for n in range(10)]
    provider = ScriptedProvider(answers, summarizer=summarize)
    session = make_session(workspace, provider, keep_recent=2)
    for index in range(10):
        drain(session.run_turn(f"turn {index}"))  # the answers fill the view
    events = drain(session.compact_now("keep file names"))
    fired = _fired(events)
    assert fired and fired[0].forced
    assert "keep file names" in provider.summary_focus
    assert seen, "the summarizer was not called"
    assert session.view[1]["content"].startswith("[Conversation summary")  # after the digest


@pytest.mark.parametrize("summary_words", [400, 5_000])
def test_compact_never_adopts_a_summary_that_is_not_smaller_and_says_so(
    workspace: Path, summary_words: int
) -> None:
    provider = ScriptedProvider(summarizer=lambda messages: "word " * summary_words)
    session = make_session(workspace, provider, keep_recent=20)  # L3 keeps every message
    for index in range(5):
        drain(session.run_turn(f"turn {index} " + "talk " * 40))
    view, records = list(session.view), len(transcript_records(session))
    events = drain(session.compact_now("keep file names"))
    assert [type(e) for e in events] == [CompactionSkipped]
    (skipped,) = events
    assert skipped.reason == "summary_not_smaller"
    assert skipped.tokens == session.gauge().tokens  # the figure the toolbar shows
    assert session.view == view
    assert not any(is_summary_message(m) or is_digest_message(m) for m in session.view)
    assert not [r for r in transcript_records(session)[records:] if r["kind"] == "compaction"]


def test_forced_compaction_of_a_tiny_view_says_there_is_nothing_to_do(workspace: Path) -> None:
    session = make_session(workspace, ScriptedProvider(summarizer=lambda m: "summary"))
    events = drain(session.compact_now())
    assert [type(e) for e in events] == [CompactionSkipped]


def test_remembered_facts_point_at_a_verifiable_transcript_record(workspace: Path) -> None:
    session = make_session(workspace, OfflineProvider())
    fact = session.remember("The build uses make")
    item = session.add_pending("Write the docs")
    done = session.mark_done(item.item_id)
    assert done.status.value == "done"
    resolutions = session.resolve_sources()
    assert {r.pointer for r in resolutions} >= {fact.source_pointer}
    assert all(r.status == SourceResolutionStatus.AVAILABLE for r in resolutions)
    request_text = session.context_preview().durable_context
    assert "The build uses make" in request_text
    session.close()
    again = make_session(workspace, OfflineProvider())
    assert [f.content for f in again.durable_state.facts] == ["The build uses make"]


def test_a_blocked_request_is_told_in_layer_codes_and_in_calibrated_tokens(
    workspace: Path,
) -> None:
    from agent_cli.events import ModelResponse, Usage

    def api_counts_far_more(request):
        answer = {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}
        yield ModelResponse(answer, "end_turn", Usage(input_tokens=1_000_000))

    provider = ScriptedProvider([api_counts_far_more])
    session = make_session(workspace, provider, soft=5_000, hard=6_000)
    assert drain(session.run_turn("hello"))[-1].outcome == "ok"
    assert session.calibration == 3.0  # clamped
    events = drain(session.run_turn("x " * 3_000))
    [blocked] = [e for e in events if isinstance(e, RequestBlocked)]
    assert blocked.hard_limit == 6_000  # as the user set it, not 6_000 / 3
    assert blocked.tokens_after >= blocked.hard_limit
    assert blocked.applied_layers and set(blocked.applied_layers) <= {"L1", "L2", "L3", "L4"}
    assert len(provider.requests) == 1


def test_a_summary_that_frees_nothing_is_not_asked_again_before_the_view_grows(
    workspace: Path,
) -> None:
    calls: list[int] = []

    def longer_than_the_original(messages):
        calls.append(len(messages))
        return "word " * 5_000

    provider = ScriptedProvider(summarizer=longer_than_the_original)
    session = make_session(workspace, provider, soft=2_000, hard=60_000, keep_recent=2)
    events = drain(session.run_turn("first " * 1_800))  # over soft, and nothing to cut
    for index in range(4):
        events += drain(session.run_turn(f"short {index}"))
    assert all(e.outcome == "ok" for e in events if isinstance(e, TurnEnded))
    assert len(calls) <= 1, "the same futile summary was asked for again and again"
    guards = [e for e in events if isinstance(e, CompactionSkipped) and e.reason == "loop_guard"]
    assert len(guards) == 1  # said once
    assert len(provider.requests) == 5


def test_summary_requests_count_in_the_session_usage_totals(workspace: Path) -> None:
    from agent_cli.events import ModelResponse, Usage
    from agent_cli.provider.summarizers import build_model_summarizer

    def summary_answer(request):
        answer = {"role": "assistant", "content": [{"type": "text", "text": "Goal: talk."}]}
        yield ModelResponse(answer, "end_turn", Usage(input_tokens=700, output_tokens=30))

    summary_side = ScriptedProvider([summary_answer] * 5)
    provider = ScriptedProvider(provider_summarizer=build_model_summarizer(summary_side))
    session = make_session(workspace, provider, keep_recent=2)
    for index in range(10):
        drain(session.run_turn(f"turn {index} " + "talk " * 100))
    assert _fired(drain(session.compact_now()))
    asked = len(summary_side.requests)
    assert asked >= 1
    stats = session.stats()
    assert stats.requests == len(provider.requests) + asked
    assert stats.summary_requests == asked  # what `/timeline` says it does not draw
    assert (stats.total_usage.input_tokens, stats.total_usage.output_tokens) == (
        700 * asked,
        30 * asked,
    )
    assert stats.calibration is None  # a summary request never calibrates the estimate
    session_id = session.session_id
    session.close()
    resumed = make_session(workspace, ScriptedProvider(), keep_recent=2, resume=session_id)
    assert resumed.stats().total_usage == stats.total_usage


class PrefixRecorder:
    """A summarizer that keeps the cached prefix the session offers it."""

    reported_usage = ()  # it sends no request

    def __init__(self) -> None:
        self.offered: list[Any] = []

    def use_cached_prefix(self, prefix: Any) -> None:
        self.offered.append(prefix)

    def __call__(self, old_messages: list[dict[str, Any]]) -> str:
        return "Goal: tidy up."


def test_a_summarizer_is_offered_the_prefix_the_last_request_left_in_the_cache(
    workspace: Path,
) -> None:
    recorder = PrefixRecorder()
    session = make_session(workspace, ScriptedProvider(provider_summarizer=recorder))
    drain(session.run_turn("first"))
    sent = session.sent_view
    assert sent == tuple(session.view[:1])  # the request carried the first message
    drain(session.compact_now())
    prefix = recorder.offered[-1]
    assert prefix.system == session.system_prompt
    assert prefix.tools == tuple(session.toolbox.schemas())
    assert prefix.messages[: len(sent)] == sent and prefix.cached_messages == len(sent)
    session.conversation.restore(
        [{"role": "user", "content": "a different start"}, *session.view[1:]]
    )
    frame = session.request_frame(session.render_durable())
    session.compactor.offer_cached_prefix(recorder, frame)
    assert recorder.offered[-1].cached_messages == 0  # the cache no longer holds its start


def test_a_low_water_mark_under_the_reserved_tokens_is_said_once_and_replaced(
    workspace: Path,
) -> None:
    session = make_session(workspace, OfflineProvider(), soft=3_000, hard=40_000, keep_recent=4)
    reserved = session.reserved_tokens(session.render_durable())
    assert 1_000 < reserved < 3_000  # system prompt and tool schemas
    session.compactor.use_policy(dataclasses.replace(session.policy, low_water=1_000))
    events: list = []
    for _ in range(3):
        events += drain(session.run_turn("read big.txt"))
    said = [e for e in events if isinstance(e, Notice) and e.code == "low_water_under_reserve"]
    assert len(said) == 1, said
    aim = reserved + (3_000 - reserved) // 2
    assert f"({1_000:,} tokens)" in notice_text(
        said[0]
    ) and f"({reserved:,} tokens:" in notice_text(said[0])
    assert f"down to {aim:,} instead" in notice_text(said[0])
    assert _fired(events), "compaction never fired"


def test_a_reachable_low_water_mark_is_not_remarked_on(workspace: Path) -> None:
    session = make_session(workspace, OfflineProvider(), soft=3_000, hard=40_000, keep_recent=4)
    reserved = session.reserved_tokens(session.render_durable())
    session.compactor.use_policy(dataclasses.replace(session.policy, low_water=reserved + 1))
    events = drain(session.run_turn("read big.txt")) + drain(session.run_turn("read notes.md"))
    assert _fired(events)
    assert not [e for e in events if isinstance(e, Notice) and e.code.startswith("low_water")]


def test_stats_categories_add_up_to_the_context_figure_with_the_digest_and_summary_apart(
    workspace: Path,
) -> None:
    session = make_session(workspace, OfflineProvider(), soft=3_000, hard=40_000, keep_recent=4)
    for number in range(3):
        (workspace / f"part{number}.txt").write_text(f"part {number} line\n" * 300)
    for name in ("big.txt", "part0.txt", "part1.txt", "part2.txt", "notes.md"):
        drain(session.run_turn(f"read {name}"))
    digest = [m for m in session.view if is_digest_message(m)]
    summary = [m for m in session.view if is_summary_message(m)]
    assert len(digest) == 1 and len(summary) == 1, "the demo should hold both by now"
    stats = session.stats()
    by_category = stats.tokens_by_category
    assert sum(by_category.values()) == stats.total_tokens == stats.context_tokens  # offline
    assert stats.context_tokens == session.gauge().tokens
    counter = session.counter
    assert by_category["compaction_digest"] == counter.count_message(digest[0])
    assert by_category["compaction_summary"] == counter.count_message(summary[0])
    typed = [m for m in session.view if isinstance(m["content"], str) and m not in digest + summary]
    assert by_category["user_text"] < by_category["compaction_digest"]  # not the user's words
    assert by_category["user_text"] >= sum(
        counter.count_message(m) for m in typed if m["role"] == "user"
    )


TYPED_HEADER_WORDS = "Keep every tab in the Makefile; never reformat it."


def test_a_user_who_types_the_summary_header_is_still_the_user_and_keeps_their_words(
    workspace: Path,
) -> None:
    """Only L4's own message is a summary (by its private key): a request that starts with
    the summary header is the user's request, listed in the digest when it leaves, never
    merged as an earlier summary or replaced; the same after resume."""
    from agent_cli.compaction.markers import SUMMARY_HEADER

    session = make_session(workspace, OfflineProvider(), soft=3_000, hard=40_000, keep_recent=4)
    drain(session.run_turn(f"{SUMMARY_HEADER}\n{TYPED_HEADER_WORDS}"))
    assert session.last_summary() is None
    assert session.stats().tokens_by_category.get("compaction_summary", 0) == 0
    for number in range(3):
        (workspace / f"part{number}.txt").write_text(f"part {number} line\n" * 300)
    for name in ("big.txt", "part0.txt", "part1.txt", "part2.txt", "notes.md"):
        assert drain(session.run_turn(f"read {name}"))[-1].outcome == "ok"
    [summary] = [m for m in session.view if is_summary_message(m)]
    first_request = next(line for line in summary["content"].splitlines() if "First" in line)
    assert TYPED_HEADER_WORDS in first_request  # summarized as a request, not as a summary
    [digest] = [m for m in session.view if is_digest_message(m)]
    requests = digest["content"].split("User requests:", 1)[1].split("Interactions:", 1)[0]
    assert TYPED_HEADER_WORDS in requests
    kept_summary = session.last_summary()
    session.close()
    resumed = make_session(
        workspace, OfflineProvider(), soft=3_000, hard=40_000, resume=session.session_id
    )
    try:
        assert resumed.last_summary() == kept_summary
        assert [m for m in resumed.view if is_summary_message(m)] == [summary]
    finally:
        resumed.close()


def test_a_compaction_that_frees_much_but_stays_over_the_threshold_says_so_once(
    workspace: Path,
) -> None:
    """The first request is kept whole and the newest messages are kept: a compaction
    frees the middle but the view stays over the soft threshold. The notice says that
    (not "freed too little"), with the size it waits for, and is not repeated while the
    context has not grown."""
    provider = ScriptedProvider(summarizer=lambda old: "short summary of the middle turns")
    session = make_session(workspace, provider, soft=2_000, hard=60_000, keep_recent=2)
    events = drain(session.run_turn("first " * 1_900))
    for index in range(4):
        events += drain(session.run_turn(f"middle {index} " + "word " * 150))
    held = [e for e in events if isinstance(e, CompactionSkipped) and e.reason == "loop_guard"]
    fired = _fired(events)
    assert fired and held, events
    assert held[0].held == "over_soft" and held[0].freed > 100
    assert held[0].tokens >= held[0].soft_threshold == 2_000
    assert held[0].tokens < held[0].retry_at <= held[0].hard_limit
    assert "still over the soft threshold" in format_skipped(held[0])
    more = drain(session.run_turn("short"))
    assert not [e for e in more if isinstance(e, CompactionSkipped)]


def test_the_timeline_holds_each_request_and_each_compaction_in_order_and_resumes(
    workspace: Path,
) -> None:
    """`stats().timeline`: each main request's prompt tokens and each compaction where it
    fired; the transcript rebuilds the same timeline (summary requests are not on it)."""
    from agent_cli.events import CompactionRecord
    from agent_cli.session.log import rebuild_from_records

    session = make_session(workspace, OfflineProvider(), soft=6_000, hard=40_000, keep_recent=4)
    for _ in range(4):
        drain(session.run_turn("read big.txt"))
    timeline = session.stats().timeline
    kinds = ["compaction" if isinstance(e, CompactionRecord) else "request" for e in timeline]
    assert kinds.count("request") == session.stats().requests
    assert "compaction" in kinds and kinds[0] == "request"
    after = kinds.index("compaction")
    assert kinds[after + 1] == "request"  # a compaction comes before the request it made room for
    assert all(e > 0 for e in timeline if isinstance(e, int))
    rebuilt = rebuild_from_records(transcript_records(session)).totals.timeline

    def figures(entries: Any) -> list[Any]:  # the record's time is the record's own
        return [
            e if isinstance(e, int) else (e.layers, e.tokens_before, e.tokens_after)
            for e in entries
        ]

    assert figures(rebuilt) == figures(timeline)


def test_a_summary_watcher_is_told_just_before_each_summary_is_asked_for(
    workspace: Path,
) -> None:
    """The REPL's summarizing spinner starts from this call (issue 23, L4 and `/compact`)."""
    told: list[str] = []
    provider = ScriptedProvider(summarizer=lambda messages: told.append("summary") or "Goal.")
    session = make_session(workspace, provider, keep_recent=2)
    session.watch_summary_requests(lambda: told.append("watcher"))
    for index in range(10):
        drain(session.run_turn(f"turn {index} " + "talk " * 40))
    assert told == []  # no compaction, no summary: nobody is told
    drain(session.compact_now("keep file names"))
    assert told == ["watcher", "summary"]
    session.watch_summary_requests(None)
    drain(session.run_turn("one more turn " + "talk " * 40))  # something new to summarize
    drain(session.compact_now())
    assert told[2:] == ["summary"]  # nobody watches any more


def _schema(name: str, words: int) -> dict[str, Any]:
    return {"name": name, "description": "word " * words, "input_schema": {"type": "object"}}


def test_thresholds_measured_above_mcp_schemas_rise_by_what_the_schemas_add(
    workspace: Path,
) -> None:
    """The offline demo's rule (issue 23): built-in schemas count against the thresholds
    as always; what MCP servers' schemas add lifts soft, hard and the [compact] figures."""
    from session_support import FakeToolbox

    from agent_cli.session.request_context import count_offered_schema_tokens

    built_in = [_schema("read_file", 20)]
    offered = [*built_in, _schema("mcp__demo__echo", 200), _schema("mcp__demo__add", 100)]
    toolbox = FakeToolbox(offered)
    session = make_session(
        workspace, ScriptedProvider(), soft=3_000, hard=9_000, toolbox_factory=lambda *_: toolbox
    )
    counter = session.counter
    lift = count_offered_schema_tokens(counter, offered)
    assert lift == counter.count_json(offered) - counter.count_json(built_in) > 300
    assert count_offered_schema_tokens(counter, built_in) == 0
    assert session.policy.soft_threshold == 3_000  # only when asked for
    session.measure_thresholds_above_added_context()
    assert (session.policy.soft_threshold, session.policy.hard_limit) == (
        3_000 + lift,
        9_000 + lift,
    )
    assert session.gauge().soft_threshold == 3_000 + lift


def test_a_long_summary_does_not_make_every_turn_pay_for_another(workspace: Path) -> None:
    """Seventh outside attack, C7-6: a summary of about 1,900 tokens under a soft
    threshold of 8,000 leaves each run above its low-water mark, so the next turn's file
    read (about 1,500 tokens) crossed the threshold again and every turn paid for a
    summary. A deep run short of its aim now waits for the growth a run reaching it
    allows: about every other turn, as with a short summary, and the notice says why."""
    long_summary = "Summary of the work so far. " + " ".join(
        f"Step {k}: the user read a file and counted its lines." for k in range(135)
    )
    for index in range(20):
        lines = (f"file {index} line {j}: alpha beta gamma delta {j * index}\n" for j in range(150))
        (workspace / f"f{index:02d}.txt").write_text("".join(lines))
    steps: list = []
    for turn in range(40):
        read = tool_use(f"toolu_{turn}", "read_file", path=f"f{turn % 20:02d}.txt")
        steps += [[read], [{"type": "text", "text": "It has 150 lines."}]]
    provider = ScriptedProvider(steps, summarizer=lambda old: long_summary)
    session = make_session(workspace, provider, soft=8_000, hard=16_000)
    late = []
    for turn in range(40):
        events = drain(session.run_turn(f"Turn {turn}: read f{turn % 20:02d}.txt, count lines"))
        if turn >= 20:
            late.append(events)
    session.close()
    fired = sum(1 for events in late if _fired(events))
    assert 6 <= fired <= 13, fired  # before: 20 of 20 turns
    held = [e for events in late for e in events if isinstance(e, CompactionSkipped)]
    assert held and all(e.held == "short_of_aim" for e in held), held
    assert all(e.tokens < e.soft_threshold < e.retry_at <= e.hard_limit for e in held)


def test_a_resumed_session_holds_compaction_where_it_held(workspace: Path) -> None:
    """Seventh outside attack, C7-11: the loop guard lived only in memory, so after a
    resume the held compaction ran again at once (a paid summary, a cache rewrite) and the
    next request differed from the one the session would have sent. The hold is recorded
    (`loop_guard`) and a resume holds where the session held."""
    summaries: list[int] = []

    def summarize(old: list) -> str:
        summaries.append(len(old))
        return "short summary of the middle turns"

    session = make_session(
        workspace, ScriptedProvider(summarizer=summarize), soft=2_000, hard=60_000, keep_recent=2
    )
    events = drain(session.run_turn("first " * 1_900))
    for index in range(4):
        events += drain(session.run_turn(f"middle {index} " + "word " * 150))
    held = [e for e in events if isinstance(e, CompactionSkipped) and e.reason == "loop_guard"]
    assert held, events
    session.close()
    asked = len(summaries)
    kinds = [record["kind"] for record in transcript_records(session)]
    assert "loop_guard" in kinds

    resumed = make_session(
        workspace,
        ScriptedProvider(summarizer=summarize),
        soft=2_000,
        hard=60_000,
        keep_recent=2,
        resume=session.session_id,
    )
    try:
        more = drain(resumed.run_turn("short"))
    finally:
        resumed.close()
    assert not _fired(more) and len(summaries) == asked, more


def test_a_compact_command_ends_the_hold_as_its_record_does_on_resume(workspace: Path) -> None:
    """Eighth outside attack: `/compact` left the loop guard holding in the running
    session while its compaction record ended the hold for a resume, so the two sent
    different requests. A forced compaction that fires ends the hold."""
    provider = ScriptedProvider(summarizer=lambda old: "short summary of the middle turns")
    session = make_session(workspace, provider, soft=2_000, hard=60_000, keep_recent=2)
    drain(session.run_turn("first " * 1_900))
    for index in range(4):
        drain(session.run_turn(f"middle {index} " + "word " * 150))
    assert session.compactor.guard_hold is not None
    drain(session.run_turn("more " + "word " * 30))  # something new for /compact to take
    assert session.compactor.guard_hold is not None
    compacted = drain(session.compact_now(None))
    session.close()
    assert _fired(compacted), compacted
    assert session.compactor.guard_hold is None
