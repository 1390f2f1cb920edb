"""Tool calls whose id (or name) the API would not take back: refused before they run or
are recorded, retried once, and the session stays resumable.

The real SDK streams each hostile answer from the strict fake Messages API on loopback
(which, like the API, refuses a history holding an id outside `^[a-zA-Z0-9_-]+$`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_anthropic import Reply, text_block, tool_use_block
from session_support import drain, make_session, transcript_records, workspace_with
from test_hostile_transcripts import transcript_path

from agent_cli.events import Notice, ToolStarted
from agent_cli.protocol import (
    MAX_TOOL_USE_ID_CHARS,
    renamed_tool_use_id,
    validate_tool_protocol,
)
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.repl.error_text import notice_text

API_KEY = "sk-ant-test-TOOL-IDS"
BAD_IDS = {
    "empty": "",
    "with spaces": "toolu bad id",
    "100,000 characters": "t" * 100_000,
    "one over the bound": "t" * (MAX_TOOL_USE_ID_CHARS + 1),
    "a trailing newline": "toolu_1\n",
    "a non-ASCII letter": "toolu_\u00e9",
    "a dot and a colon": "toolu.1:2",
}


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    return workspace_with(tmp_path)


def _provider(server) -> AnthropicProvider:
    return AnthropicProvider(
        API_KEY, "claude-test", base_url=server.base_url, sleep=lambda _: None, timeout_seconds=10
    )


def touch(tool_id: str, name: str, tool: str = "write_file") -> dict:
    return tool_use_block(tool_id, tool, {"path": name, "content": "x\n"})


def recorded_tool_ids(session) -> list[str]:
    return [
        block["id"]
        for record in transcript_records(session)
        if record["kind"] == "message"
        for block in record["payload"]["message"].get("content") or []
        if isinstance(block, dict) and block.get("type") == "tool_use"
    ]


def assert_resumes_and_answers(server, workspace: Path, session_id: str) -> None:
    server.enqueue(Reply([text_block("Still here.")]))
    resumed = make_session(workspace, _provider(server), resume=session_id)
    try:
        validate_tool_protocol(resumed.view)
        assert drain(resumed.run_turn("are you there?"))[-1].outcome == "ok"
    finally:
        resumed.close()
    assert all(r.rejection is None for r in server.requests)


@pytest.mark.parametrize("bad_id", BAD_IDS.values(), ids=BAD_IDS.keys())
def test_a_call_with_a_bad_id_is_refused_unrun_and_the_retry_runs(server, workspace, bad_id):
    server.enqueue(
        Reply([text_block("Making it."), touch(bad_id, "bad.txt")], "tool_use"),
        Reply([touch("toolu_ok", "good.txt")], "tool_use"),
        Reply([text_block("Done.")]),
    )
    session = make_session(workspace, _provider(server))
    events = drain(session.run_turn("make a file"))
    session.close()
    assert events[-1].outcome == "ok"
    assert [e.tool_use_id for e in events if isinstance(e, ToolStarted)] == ["toolu_ok"]
    assert not (workspace / "bad.txt").exists() and (workspace / "good.txt").exists()
    assert [n.code for n in events if isinstance(n, Notice)] == ["bad_tool_id"]
    assert recorded_tool_ids(session) == ["toolu_ok"]
    assert all(r.rejection is None for r in server.requests)
    assert_resumes_and_answers(server, workspace, session.session_id)


def test_a_bad_id_among_good_calls_refuses_the_whole_answer(server, workspace):
    server.enqueue(
        Reply([touch("toolu_a", "a.txt"), touch("toolu b", "b.txt")], "tool_use"),
        Reply([text_block("I will not make files.")]),
    )
    session = make_session(workspace, _provider(server))
    events = drain(session.run_turn("make two files"))
    session.close()
    assert events[-1].outcome == "ok"
    assert not any(isinstance(e, ToolStarted) for e in events)
    assert not (workspace / "a.txt").exists() and not (workspace / "b.txt").exists()
    assert recorded_tool_ids(session) == []


def test_two_bad_answers_fail_the_turn_record_nothing_and_leave_it_resumable(server, workspace):
    server.enqueue(
        Reply([touch("", "one.txt")], "tool_use"),
        Reply([touch("toolu one", "two.txt")], "tool_use"),
    )
    session = make_session(workspace, _provider(server))
    records_before = len(transcript_records(session))
    events = drain(session.run_turn("make a file"))
    session.close()
    assert events[-1].outcome == "failed"
    assert not any(isinstance(e, ToolStarted) for e in events)
    assert not list(workspace.iterdir())
    notices = [n for n in events if isinstance(n, Notice)]
    assert [(n.level, n.code) for n in notices] == [
        ("warning", "bad_tool_id"),
        ("error", "bad_tool_id"),
    ]
    assert "session stays resumable" in notice_text(notices[-1])
    added = transcript_records(session)[records_before:]
    messages = [r["payload"]["message"] for r in added if r["kind"] == "message"]
    assert [m["role"] for m in messages] == ["user"]  # the user's words only
    assert {r["kind"] for r in added} == {"message", "usage"}  # both answers were paid for
    assert_resumes_and_answers(server, workspace, session.session_id)


def test_a_call_without_a_tool_name_is_refused_like_a_bad_id(server, workspace):
    server.enqueue(
        Reply([touch("toolu_1", "x.txt", tool="")], "tool_use"),
        Reply([text_block("No tools then.")]),
    )
    session = make_session(workspace, _provider(server))
    events = drain(session.run_turn("make a file"))
    session.close()
    assert events[-1].outcome == "ok"
    assert [n.code for n in events if isinstance(n, Notice)] == ["bad_tool_id"]
    assert recorded_tool_ids(session) == []
    assert_resumes_and_answers(server, workspace, session.session_id)


# --- transcripts an earlier version wrote with a bad id -------------------------------------


def record_with_old_id(server, workspace: Path, bad_id: str, *, answered: bool = True) -> str:
    """A session whose one tool call is then given `bad_id` in its transcript, as an
    earlier agent-cli (which recorded any id) would have written it. Unanswered: the
    transcript ends inside the call, as after a crash while the tool ran."""
    (workspace / "notes.txt").write_text("hello\n")
    server.enqueue(
        Reply([tool_use_block("toolu_old", "read_file", {"path": "notes.txt"})], "tool_use"),
        Reply([text_block("It says hello.")]),
    )
    session = make_session(workspace, _provider(server))
    drain(session.run_turn("read notes.txt"))
    session.close()
    path = Path(session.transcript_path)
    lines = path.read_text().splitlines(keepends=True)
    if not answered:
        use_line = next(i for i, line in enumerate(lines) if '"tool_use"' in line)
        lines = lines[: use_line + 1]
    encoded = json.dumps(bad_id)
    path.write_text("".join(line.replace('"toolu_old"', encoded) for line in lines))
    return session.session_id


@pytest.mark.parametrize(
    "bad_id", ["", "toolu bad id", "t" * 100_000], ids=["empty", "spaces", "long"]
)
def test_a_transcript_holding_a_bad_id_resumes_with_the_id_renamed(server, workspace, bad_id):
    session_id = record_with_old_id(server, workspace, bad_id)
    path = transcript_path(session_id)
    before = path.read_bytes()
    server.enqueue(Reply([text_block("Yes.")]))
    resumed = make_session(workspace, _provider(server), resume=session_id)
    try:
        assert [n.code for n in resumed.startup_notices] == ["tool_ids_renamed"]
        assert "1 tool call id" in notice_text(resumed.startup_notices[0])
        assert drain(resumed.run_turn("still there?"))[-1].outcome == "ok"
    finally:
        resumed.close()
    assert all(r.rejection is None for r in server.requests)
    sent = server.accepted[-1]["messages"]
    use = next(b for m in sent for b in m["content"] if b.get("type") == "tool_use")
    result = next(b for m in sent for b in m["content"] if b.get("type") == "tool_result")
    assert use["id"] == result["tool_use_id"] == renamed_tool_use_id(bad_id)
    assert result["content"] and "hello" in json.dumps(result["content"])  # nothing lost
    assert path.read_bytes().startswith(before)  # the recorded lines stay as they were
    assert json.dumps(bad_id) in path.read_text()
    assert_resumes_and_answers(server, workspace, session_id)  # and again, alike


def test_a_transcript_ending_inside_a_call_with_a_bad_id_resumes_twice(server, workspace):
    """The answer recorded on the first resume carries the new id; the second resume
    renames the call alike, so the two still pair."""
    session_id = record_with_old_id(server, workspace, "", answered=False)
    resumed = make_session(workspace, _provider(server), resume=session_id)
    resumed.close()
    assert [n.code for n in resumed.startup_notices] == ["tool_ids_renamed", "resumed_mid_tool"]
    assert_resumes_and_answers(server, workspace, session_id)
