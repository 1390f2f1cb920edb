"""A summary request that reuses the cached prefix carries the tools, so the model may
answer it with a tool call. Such a reply (or one cut short, or without substance) is no
summary: the bounded request without tools is sent instead, and if that fails too the
view, and the summary already in it, stay as they were.

A real session on the real SDK against the strict fake Messages API on loopback; the
fake answers the two kinds of summary request as each test scripts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from session_support import drain, make_session, workspace_with

from agent_cli.events import Notice
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.provider.summary_reuse import INSTRUCTIONS_HEADER

API_KEY = "sk-ant-test-SUMMARY-REPLIES"
CALLS_A_TOOL = Reply(
    [text_block("Using read_file."), tool_use_block("toolu_s1", "read_file", {"path": "a.txt"})],
    "tool_use",
)


# the answers make up most of the view, so a summary of it frees room even with the
# digest keeping the user's own requests (a summary that frees nothing is not adopted)
LONG_ANSWER = "Noted. " + "remark " * 300


def is_reusing(body: dict) -> bool:
    last = body["messages"][-1]["content"]
    return INSTRUCTIONS_HEADER in json.dumps(last)


def is_bounded(body: dict) -> bool:
    return not body.get("tools") and "Transcript" in json.dumps(body["messages"])


class SummaryScript:
    """Answers reusing and bounded summary requests from two queues, anything else with
    a short reply; keeps which kind came in which order."""

    def __init__(self) -> None:
        self.reusing: list[Reply] = []
        self.bounded: list[Reply] = []
        self.asked: list[str] = []

    def __call__(self, body: dict) -> Reply:
        if is_reusing(body):
            self.asked.append("reusing")
            return self.reusing.pop(0)
        if is_bounded(body):
            self.asked.append("bounded")
            return self.bounded.pop(0)
        return Reply([text_block(LONG_ANSWER)])


@pytest.fixture()
def script():
    return SummaryScript()


@pytest.fixture()
def server(script):
    with start_fake_server(api_key=API_KEY, responder=script) as fake:
        yield fake


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    return workspace_with(tmp_path)


def talk(session, turns: int, start: int = 0) -> None:
    for index in range(start, start + turns):
        assert drain(session.run_turn(f"point {index}: " + "detail " * 300))[-1].outcome == "ok"


def open_talking_session(server, workspace: Path):
    provider = AnthropicProvider(
        API_KEY, "claude-sonnet-5-5", base_url=server.base_url, sleep=lambda _: None
    )
    session = make_session(workspace, provider, keep_recent=4)
    talk(session, 8)
    return session


def test_a_reply_calling_a_tool_is_no_summary_and_the_bounded_request_writes_it(
    server, workspace, script
):
    script.reusing.append(CALLS_A_TOOL)
    script.bounded.append(Reply([text_block("Goal: collect the eight points; all noted.")]))
    session = open_talking_session(server, workspace)
    drain(session.compact_now())
    assert script.asked == ["reusing", "bounded"]
    assert session.last_summary() == "Goal: collect the eight points; all noted."
    assert "Using read_file." not in json.dumps(session.view)
    assert all(r.rejection is None for r in server.requests)
    session.close()


@pytest.mark.parametrize(
    "bounded_reply",
    [
        Reply([text_block("Goal: collect the points, and then")], "max_tokens"),
        Reply([text_block("OK.")]),
        CALLS_A_TOOL,
    ],
    ids=["cut at max_tokens", "no substance", "a tool call"],
)
def test_when_both_replies_are_no_summary_the_previous_summary_stays(
    server, workspace, script, bounded_reply
):
    script.reusing.append(Reply([text_block("Goal: collect the points; first four noted.")]))
    session = open_talking_session(server, workspace)
    drain(session.compact_now())
    assert session.last_summary() == "Goal: collect the points; first four noted."
    talk(session, 8, start=8)
    script.reusing.append(CALLS_A_TOOL)
    script.bounded.append(bounded_reply)
    events = drain(session.compact_now())
    assert script.asked == ["reusing", "reusing", "bounded"]
    assert session.last_summary() == "Goal: collect the points; first four noted."
    sent_back = json.dumps(session.view)
    assert all(b["text"] not in sent_back for b in bounded_reply.blocks if b["type"] == "text")
    assert "Using read_file." not in sent_back
    assert "summary_failed" in [e.code for e in events if isinstance(e, Notice)]
    assert drain(session.run_turn("still there?"))[-1].outcome == "ok"
    assert all(r.rejection is None for r in server.requests)
    session.close()
