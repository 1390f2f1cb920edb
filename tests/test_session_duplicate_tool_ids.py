"""A response that repeats a tool_use id is refused before any tool runs (asked once
more), so the recorded history stays one the API accepts and the session resumable.

The real SDK streams from the strict fake Messages API on loopback (which, like the real
API, rejects a history with a repeated tool_use id); the transcript is real on disk.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from session_support import drain, make_session

from agent_cli.events import Notice, ToolStarted
from agent_cli.protocol import validate_tool_protocol
from agent_cli.provider.anthropic_provider import AnthropicProvider

API_KEY = "sk-ant-test-FAKEKEY-0123456789"


@pytest.fixture()
def server():
    with start_fake_server(api_key=API_KEY) as fake:
        yield fake


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n")
    return root


def provider(server) -> AnthropicProvider:
    return AnthropicProvider(API_KEY, "claude-test", base_url=server.base_url, timeout_seconds=5)


def touch(tool_id: str, name: str) -> dict:
    return tool_use_block(tool_id, "write_file", {"path": name, "content": "x\n"})


def resume_and_ask(server, workspace: Path, session_id: str) -> list:
    """Resume the session from disk and run one more turn on the strict fake."""
    server.enqueue(Reply([text_block("Still here.")]))
    resumed = make_session(workspace, provider(server), resume=session_id)
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
    session = make_session(workspace, provider(server))
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
    session = make_session(workspace, provider(server))
    assert drain(session.run_turn("make a file"))[-1].outcome == "ok"
    events = drain(session.run_turn("make another"))
    session.close()
    assert events[-1].outcome == "failed"
    assert not any(isinstance(e, ToolStarted) for e in events)
    assert not (workspace / "again.txt").exists()
    notices = [n for n in events if isinstance(n, Notice)]
    assert [n.code for n in notices] == ["duplicate_tool_id", "duplicate_tool_id"]
    assert "session stays resumable" in notices[-1].text
    after = resume_and_ask(server, workspace, session.session_id)
    assert after[-1].outcome == "ok"
    assert all(r.rejection is None for r in server.requests)
