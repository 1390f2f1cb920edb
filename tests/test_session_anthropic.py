"""The whole session on the real SDK against the strict fake Messages API on loopback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_anthropic import (
    DropConnection,
    HttpError,
    Reply,
    StreamError,
    text_block,
    tool_use_block,
)
from session_support import drain, make_session, plain, transcript_records, workspace_with

from agent_cli.events import (
    CompactionFired,
    Notice,
    StreamRestarted,
    ToolFinished,
    ToolStarted,
    Usage,
)
from agent_cli.protocol import validate_tool_protocol
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.repl.error_text import notice_text
from agent_cli.repl.stats_panel import build_stats_rows, render_stats_json

API_KEY = "sk-ant-test-FAKEKEY-0123456789"


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    return workspace_with(tmp_path, {"README.md": "# Project title\n\nBody.\n", "a.txt": "alpha\n"})


def _provider(server, sleeps: list[float] | None = None) -> AnthropicProvider:
    record = sleeps if sleeps is not None else []
    return AnthropicProvider(
        API_KEY, "claude-test", base_url=server.base_url, sleep=record.append, timeout_seconds=5
    )


def test_a_multi_step_tool_loop_sends_only_requests_the_api_accepts(server, workspace) -> None:
    server.enqueue(
        Reply(
            [text_block("Reading."), tool_use_block("toolu_1", "read_file", {"path": "README.md"})],
            "tool_use",
        ),
        Reply([tool_use_block("toolu_2", "grep", {"pattern": "alpha"})], "tool_use"),
        Reply([text_block("The title is Project title.")]),
    )
    session = make_session(workspace, _provider(server))
    events = drain(session.run_turn("what is the title?"))
    assert events[-1].outcome == "ok" and events[-1].steps == 3
    assert all(r.rejection is None for r in server.requests)
    assert len(server.accepted) == 3
    last = server.accepted[-1]
    assert last["messages"][-1]["content"][0]["tool_use_id"] == "toolu_2"
    assert "cache_control" in last["system"][-1]
    validate_tool_protocol(session.view)


def test_parallel_tool_calls_are_answered_in_one_user_message(server, workspace) -> None:
    server.enqueue(
        Reply(
            [
                tool_use_block("toolu_a", "read_file", {"path": "a.txt"}),
                tool_use_block("toolu_b", "list_dir", {"path": "."}),
            ],
            "tool_use",
        ),
        Reply([text_block("Both done.")]),
    )
    session = make_session(workspace, _provider(server))
    events = drain(session.run_turn("look"))
    assert [e.name for e in events if isinstance(e, ToolFinished)] == ["read_file", "list_dir"]
    sent = server.accepted[-1]["messages"][-1]["content"]
    assert [b["tool_use_id"] for b in sent] == ["toolu_a", "toolu_b"]
    assert all(r.rejection is None for r in server.requests)


def test_a_529_and_a_mid_stream_overload_are_retried(server, workspace) -> None:
    server.enqueue(
        HttpError(529, "overloaded_error"),
        StreamError(after_events=4),
        Reply([text_block("finally")]),
    )
    sleeps: list[float] = []
    session = make_session(workspace, _provider(server, sleeps))
    events = drain(session.run_turn("hi"))
    assert events[-1].outcome == "ok"
    assert len([e for e in events if isinstance(e, StreamRestarted)]) == 2
    assert len(sleeps) == 2
    assert session.view[-1]["content"][0]["text"] == "finally"


def test_a_dropped_connection_after_retries_leaves_the_history_unchanged(server, workspace) -> None:
    session = make_session(workspace, _provider(server))
    drain(session.run_turn("first"))
    view_before = list(session.view)
    records_before = transcript_records(session)
    server.enqueue(*[DropConnection(after_events=3) for _ in range(5)])
    events = drain(session.run_turn("second"))
    assert events[-1].outcome == "failed"
    assert plain(session.view) == plain([*view_before, {"role": "user", "content": "second"}])
    new = transcript_records(session)[len(records_before) :]
    # the user's message, and the usage of each attempt the API began (it was billed)
    attempts = len(server.requests) - 1
    assert [r["kind"] for r in new] == ["message"] + ["usage"] * attempts
    assert drain(session.run_turn("third"))[-1].outcome == "ok"
    assert all(r.rejection is None for r in server.requests)


def test_a_long_session_compacts_with_a_model_summary_and_resumes(server, workspace) -> None:
    big = "\n".join(f"row {i} " + "data " * 12 for i in range(300))
    (workspace / "big.txt").write_text(big)

    def responder(body):
        if "summary" in json.dumps(body.get("system", "")).lower() and not body.get("tools"):
            return Reply([text_block("Goal: read big.txt repeatedly. Files: big.txt.")])
        last = body["messages"][-1]["content"]
        if isinstance(last, list) and last and last[0].get("type") == "tool_result":
            return Reply([text_block("Read it.")])
        return Reply(
            [tool_use_block(f"toolu_{len(body['messages'])}", "read_file", {"path": "big.txt"})],
            "tool_use",
        )

    server.responder = responder
    session = make_session(workspace, _provider(server), soft=9_000, hard=60_000, keep_recent=2)
    fired = []
    for index in range(6):
        events = drain(session.run_turn(f"read big.txt please ({index})"))
        assert events[-1].outcome == "ok"
        fired += [e for e in events if isinstance(e, CompactionFired)]
    assert fired
    assert all(r.rejection is None for r in server.requests)
    view, session_id = list(session.view), session.session_id
    session.close()
    resumed = make_session(
        workspace, _provider(server), soft=9_000, hard=60_000, keep_recent=2, resume=session_id
    )
    assert resumed.view == view
    assert drain(resumed.run_turn("read big.txt again"))[-1].outcome == "ok"
    assert all(r.rejection is None for r in server.requests)


def test_the_api_key_is_never_written_to_disk(server, workspace, isolated_home) -> None:
    server.enqueue(HttpError(400, "invalid_request_error", f"bad key {API_KEY}"))
    session = make_session(workspace, _provider(server))
    drain(session.run_turn("hello"))
    drain(session.run_turn("hello again"))
    session.close()
    for path in Path(isolated_home).rglob("*"):
        if path.is_file():
            assert API_KEY.encode() not in path.read_bytes(), path


def test_a_paused_answer_is_sent_back_as_the_last_message_and_continued(server, workspace) -> None:
    server.enqueue(
        Reply([text_block("Working on it ")], "pause_turn"),
        Reply([text_block("and done.")]),
    )
    session = make_session(workspace, _provider(server))
    events = drain(session.run_turn("take your time"))
    assert (events[-1].outcome, events[-1].stop_reason, events[-1].steps) == ("ok", "end_turn", 2)
    assert all(r.rejection is None for r in server.requests)
    continued = server.requests[-1].body["messages"]
    assert continued[-1]["role"] == "assistant"
    assert continued[-1]["content"][0]["text"] == "Working on it"
    assert [m["role"] for m in session.view] == ["user", "assistant", "assistant"]


def test_a_new_fact_changes_only_the_newest_user_turn_not_the_cached_prefix(
    server, workspace
) -> None:
    server.enqueue(Reply([text_block("First answer.")]), Reply([text_block("Second answer.")]))
    session = make_session(workspace, _provider(server))
    drain(session.run_turn("first question"))
    session.remember("the build uses make")
    drain(session.run_turn("second question"))
    first, second = server.accepted
    assert first["system"] == second["system"]  # the fact did not touch the system prompt
    assert "the build uses make" not in json.dumps(second["system"])
    newest = second["messages"][-1]["content"]
    assert "second question" in newest[0]["text"] and "cache_control" in newest[0]
    assert "the build uses make" in newest[-1]["text"] and "cache_control" not in newest[-1]
    # the earlier turns are sent as before the fact, so the prefix the first request
    # wrote is read again
    assert second["messages"][0]["content"][0]["text"] == "first question"
    assert len(second["messages"][0]["content"]) == 1
    assert "the build uses make" not in json.dumps(list(session.view))
    messages = [r for r in transcript_records(session) if r["kind"] == "message"]
    assert "the build uses make" not in json.dumps(messages)


def test_toolbar_stats_and_context_show_one_figure_that_follows_the_durable_block(
    server, workspace
) -> None:
    """Issue 12.3: one "how full" figure, calibrated by the API's count; a new fact moves
    it at once, and looking at the facts does not move it."""
    server.enqueue(Reply([text_block("Hello there.")]))
    session = make_session(workspace, _provider(server))
    drain(session.run_turn("hi"))
    assert session.calibration is not None

    def figures() -> tuple[int, int, int]:
        return (
            session.gauge().tokens,
            session.stats().context_tokens,
            session.context_preview().request_tokens,
        )

    before = figures()
    assert len(set(before)) == 1, before
    session.remember("the build uses make")
    after_fact = session.gauge().tokens
    assert after_fact > before[0]
    session.resolve_sources()  # what /facts does
    assert figures() == (after_fact, after_fact, after_fact)


def _record_reported_usage(server) -> list[dict[str, int]]:
    """Wrap the fake's usage hook so the test sees every figure the API reported."""
    reported: list[dict[str, int]] = []
    answer = server.usage_for

    def recording(body: dict) -> dict[str, int]:
        usage = answer(body)
        reported.append(usage)
        return usage

    server.usage_for = recording
    return reported


def test_stats_add_up_the_reported_cache_figures_and_show_the_read_share(server, workspace):
    for name in ("a.py", "b.py", "c.py"):
        (workspace / name).write_text(f"def {name[0]}():\n    return 1\n" * 40)
    reported = _record_reported_usage(server)
    session = make_session(workspace, _provider(server))
    for turn, name in enumerate(("a.py", "b.py", "c.py")):
        server.enqueue(
            Reply([tool_use_block(f"toolu_{turn}", "read_file", {"path": name})], "tool_use"),
            Reply([text_block(f"{name} defines 40 functions.")]),
        )
        assert drain(session.run_turn(f"count the functions in {name}"))[-1].outcome == "ok"
    stats = session.stats()
    total = Usage(
        input_tokens=sum(u["input_tokens"] for u in reported),
        cache_creation_input_tokens=sum(u["cache_creation_input_tokens"] for u in reported),
        cache_read_input_tokens=sum(u["cache_read_input_tokens"] for u in reported),
    )
    assert len(reported) == 6 == stats.requests
    assert (
        stats.total_usage.input_tokens,
        stats.total_usage.cache_creation_input_tokens,
        stats.total_usage.cache_read_input_tokens,
    ) == (
        total.input_tokens,
        total.cache_creation_input_tokens,
        total.cache_read_input_tokens,
    )
    # The system prompt and tools (about 1,400 tokens) are written once and read after.
    assert reported[0]["cache_read_input_tokens"] == 0
    assert all(u["cache_read_input_tokens"] > 1_024 for u in reported[1:])
    assert stats.cache_read_share == pytest.approx(
        total.cache_read_input_tokens / total.prompt_tokens
    )
    assert 0.5 < stats.cache_read_share < 1
    assert json.loads(render_stats_json(stats))["cache_read_share"] == stats.cache_read_share
    shown = dict(build_stats_rows(stats))["cache reads"]
    assert f"{100 * stats.cache_read_share:.0f}%" in str(shown)
    session.close()


def test_a_stored_error_result_without_content_is_sent_with_text_and_accepted(server, workspace):
    first = make_session(workspace, _provider(server))
    first.conversation.append({"role": "user", "content": [{"type": "text", "text": "read a.py"}]})
    first.conversation.append(
        {"role": "assistant", "content": [tool_use_block("toolu_x", "read_file", {"path": "a"})]}
    )
    first.conversation.append(
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_x", "is_error": True}],
        }
    )
    session_id = first.session_id
    first.close()
    resumed = make_session(workspace, _provider(server), resume=session_id)
    assert drain(resumed.run_turn("what went wrong?"))[-1].outcome == "ok"
    (request,) = server.requests
    assert request.rejection is None
    sent = request.body["messages"][2]["content"][0]
    assert sent["is_error"] is True and sent["content"].strip()
    resumed.close()


# --- a response that repeats a tool_use id (issue 11 item 8) -----------------------------
# It is refused before any tool runs (asked once more), so the recorded history stays one
# the API accepts (the strict fake, like the real API, rejects a repeated id) and the
# session resumable.


def touch(tool_id: str, name: str) -> dict:
    return tool_use_block(tool_id, "write_file", {"path": name, "content": "x\n"})


def resume_and_ask(server, workspace: Path, session_id: str) -> list:
    """Resume the session from disk and run one more turn on the strict fake."""
    server.enqueue(Reply([text_block("Still here.")]))
    resumed = make_session(workspace, _provider(server), resume=session_id)
    try:
        validate_tool_protocol(resumed.view)
        return drain(resumed.run_turn("are you there?"))
    finally:
        resumed.close()


def test_two_blocks_with_one_id_are_refused_then_the_retry_runs(server, workspace) -> None:
    server.enqueue(
        Reply([touch("toolu_same", "one.txt"), touch("toolu_same", "two.txt")], "tool_use"),
        Reply([touch("toolu_ok", "three.txt")], "tool_use"),
        Reply([text_block("Done.")]),
    )
    session = make_session(workspace, _provider(server))
    events = drain(session.run_turn("make files"))
    session.close()
    assert events[-1].outcome == "ok"
    assert [e.tool_use_id for e in events if isinstance(e, ToolStarted)] == ["toolu_ok"]
    assert not (workspace / "one.txt").exists() and not (workspace / "two.txt").exists()
    assert (workspace / "three.txt").exists()
    assert [n.code for n in events if isinstance(n, Notice)] == ["duplicate_tool_id"]
    assert all(r.rejection is None for r in server.requests)
    after = resume_and_ask(server, workspace, session.session_id)
    assert after[-1].outcome == "ok"
    assert all(r.rejection is None for r in server.requests)


def test_an_id_from_an_earlier_turn_twice_fails_the_turn_and_runs_nothing(
    server, workspace
) -> None:
    server.enqueue(
        Reply([touch("toolu_1", "first.txt")], "tool_use"),
        Reply([text_block("Made it.")]),
        Reply([touch("toolu_1", "again.txt")], "tool_use"),
        Reply([touch("toolu_1", "again.txt")], "tool_use"),
    )
    session = make_session(workspace, _provider(server))
    assert drain(session.run_turn("make a file"))[-1].outcome == "ok"
    events = drain(session.run_turn("make another"))
    session.close()
    assert events[-1].outcome == "failed"
    assert not any(isinstance(e, ToolStarted) for e in events)
    assert not (workspace / "again.txt").exists()
    notices = [n for n in events if isinstance(n, Notice)]
    assert [n.code for n in notices] == ["duplicate_tool_id", "duplicate_tool_id"]
    assert "session stays resumable" in notice_text(notices[-1])
    after = resume_and_ask(server, workspace, session.session_id)
    assert after[-1].outcome == "ok"
    assert all(r.rejection is None for r in server.requests)


def test_a_resumed_session_keeps_its_calibration_and_shows_the_same_context_figure(
    server, workspace
) -> None:
    answer = server.usage_for

    def inflated(body: dict) -> dict[str, int]:  # an API that counts 1.7x our estimate
        usage = dict(answer(body))
        usage["input_tokens"] = int(usage["input_tokens"] * 1.7)
        return usage

    server.usage_for = inflated
    server.enqueue(Reply([text_block("Hello there.")]))
    session = make_session(workspace, _provider(server))
    drain(session.run_turn("hi"))
    calibration, session_id = session.calibration, session.session_id
    assert calibration is not None and calibration != 1.0
    before = (session.gauge().tokens, session.stats().context_tokens)
    session.close()

    resumed = make_session(workspace, _provider(server), resume=session_id)
    try:
        assert resumed.calibration == calibration
        assert (resumed.gauge().tokens, resumed.stats().context_tokens) == before
    finally:
        resumed.close()
