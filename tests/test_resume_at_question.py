"""A session that ends at the permission question resumes saying the call never ran.

It used to resume "the session had stopped while a tool ran" and tell the model the
unapproved command "may have run", since nothing recorded the question. The real session,
toolbox and transcript; the process dying is a `SystemExit` raised where it would die
(at the question, or once the tool has started), which nothing in a turn catches, so the
transcript is left as a killed process leaves it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from faults_support import FillableDisk
from session_support import ScriptedProvider, drain, make_session, tool_use

from agent_cli.protocol import validate_tool_protocol
from agent_cli.provider.offline import OfflineProvider
from agent_cli.session.question_marks import (
    AFTER_QUESTION_TEXT,
    ALLOWED,
    ASKED,
    AT_QUESTION_TEXT,
    DENIED,
    DENIED_TEXT,
    RESUMED_TOOL_TEXT,
    UNRECORDED_TEXT,
    read_question,
    resumed_texts,
)
from agent_cli.tools import PermissionDecision, PermissionRequest

ALLOW = PermissionDecision.ALLOW_ONCE
DENY = PermissionDecision.DENY


class ProcessDied(SystemExit):
    """Where the process would have been killed."""


class Asker:
    """Gives `answers` in order; at the call numbered `die_at` (1-based) the process dies."""

    def __init__(self, *answers: PermissionDecision, die_at: int | None = None) -> None:
        self.answers, self.die_at, self.asked = list(answers), die_at, 0

    def __call__(self, request: PermissionRequest) -> PermissionDecision:
        self.asked += 1
        if self.asked == self.die_at:
            raise ProcessDied("killed at the permission question")
        return self.answers.pop(0)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "build").mkdir()
    return root


def run_until_killed(
    workspace: Path, calls: list[dict[str, Any]], asker: Asker, on_start: Callable | None = None
) -> str:
    """One turn whose answer makes `calls`, ended by `ProcessDied`; the session's id."""
    provider = ScriptedProvider([calls])
    session = make_session(workspace, provider, auto_approve=False, ask_permission=asker)
    if on_start is not None:
        session.watch_tool_output(on_start)
    with pytest.raises(ProcessDied):
        drain(session.run_turn("clean up"))
    session.close()
    return session.session_id


def resume(workspace: Path, session_id: str) -> Any:
    resumed = make_session(workspace, OfflineProvider(), resume=session_id)
    validate_tool_protocol(resumed.view)
    return resumed


def results_of(resumed: Any) -> list[str]:
    return [block["content"] for block in resumed.view[-1]["content"]]


def notice_codes(resumed: Any) -> list[str]:
    return [notice.code for notice in resumed.startup_notices]


def test_killed_at_the_question_resumes_as_not_run(workspace: Path):
    calls = [tool_use("t1", "bash", command="rm -rf build")]
    session_id = run_until_killed(workspace, calls, Asker(die_at=1))
    resumed = resume(workspace, session_id)
    assert results_of(resumed) == [AT_QUESTION_TEXT]
    assert "may have run" not in json.dumps(resumed.view)
    assert notice_codes(resumed) == ["resumed_at_question"]
    assert resumed.startup_notices[0].fields == {"tool": "bash"}
    assert (workspace / "build").is_dir()


def test_the_calls_before_may_have_run_and_the_ones_after_never_started(workspace: Path):
    calls = [
        tool_use("t1", "write_file", path="notes.txt", content="x\n"),
        tool_use("t2", "bash", command="rm -rf build"),
        tool_use("t3", "bash", command="touch later"),
    ]
    session_id = run_until_killed(workspace, calls, Asker(ALLOW, die_at=2))
    resumed = resume(workspace, session_id)
    assert results_of(resumed) == [RESUMED_TOOL_TEXT, AT_QUESTION_TEXT, AFTER_QUESTION_TEXT]
    assert notice_codes(resumed) == ["resumed_mid_tool", "resumed_at_question"]
    assert (workspace / "notes.txt").exists() and not (workspace / "later").exists()


def killed_when_a_tool_starts(chunk: bytes) -> None:
    if chunk == b"":  # the toolbox's "it runs now"
        raise ProcessDied("killed while the tool ran")


def test_killed_after_the_user_allowed_it_still_may_have_run(workspace: Path):
    calls = [tool_use("t1", "bash", command="touch ran")]
    session_id = run_until_killed(workspace, calls, Asker(ALLOW), killed_when_a_tool_starts)
    resumed = resume(workspace, session_id)
    assert results_of(resumed) == [RESUMED_TOOL_TEXT]
    assert notice_codes(resumed) == ["resumed_mid_tool"]


def test_a_denied_call_left_unanswered_resumes_as_denied(workspace: Path):
    calls = [tool_use("t1", "bash", command="rm -rf build"), tool_use("t2", "list_dir", path=".")]
    session_id = run_until_killed(workspace, calls, Asker(DENY), killed_when_a_tool_starts)
    resumed = resume(workspace, session_id)
    assert results_of(resumed) == [DENIED_TEXT, RESUMED_TOOL_TEXT]


def test_a_call_that_asks_nothing_may_have_run_as_before(workspace: Path):
    calls = [tool_use("t1", "list_dir", path=".")]
    session_id = run_until_killed(workspace, calls, Asker(), killed_when_a_tool_starts)
    assert results_of(resume(workspace, session_id)) == [RESUMED_TOOL_TEXT]


def test_an_allowed_call_whose_answer_cannot_be_recorded_does_not_run(workspace: Path):
    """Otherwise its `permission_asked` record alone would resume it as never run."""
    disk = FillableDisk()

    def fill_then_allow(request: PermissionRequest) -> PermissionDecision:
        disk.fill(when=b'"permission_answered"')
        return ALLOW

    provider = ScriptedProvider([[tool_use("t1", "bash", command="touch ran")]])
    session = make_session(
        workspace, provider, auto_approve=False, ask_permission=fill_then_allow, transcript_fs=disk
    )
    drain(session.run_turn("go"))
    disk.free()
    assert not (workspace / "ran").exists()
    [result] = [
        block
        for message in session.view
        if message["role"] == "user" and isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert result["content"] == UNRECORDED_TEXT and result["is_error"] is True


@pytest.mark.parametrize(
    ("states", "texts"),
    [
        ({}, {}),
        ({"a": ALLOWED, "b": ALLOWED}, {}),
        ({"a": ASKED}, {"a": AT_QUESTION_TEXT, "b": AFTER_QUESTION_TEXT, "c": AFTER_QUESTION_TEXT}),
        ({"a": ALLOWED, "b": ASKED}, {"b": AT_QUESTION_TEXT, "c": AFTER_QUESTION_TEXT}),
        ({"a": DENIED}, {"a": DENIED_TEXT}),
        ({"a": DENIED, "c": ASKED}, {"a": DENIED_TEXT, "c": AT_QUESTION_TEXT}),
    ],
)
def test_resumed_texts_follow_the_order_calls_run_in(states, texts):
    uses = [{"type": "tool_use", "id": name, "name": "bash"} for name in ("a", "b", "c")]
    assert resumed_texts(uses, states) == texts


@pytest.mark.parametrize(
    ("kind", "payload", "read"),
    [
        ("permission_asked", {"tool_use_id": "t1"}, ("t1", ASKED)),
        ("permission_answered", {"tool_use_id": "t1", "allowed": True}, ("t1", ALLOWED)),
        ("permission_answered", {"tool_use_id": "t1", "allowed": False}, ("t1", DENIED)),
        ("permission_answered", {"tool_use_id": "t1", "allowed": "yes"}, None),
        ("permission_answered", {"tool_use_id": "t1"}, None),
        ("permission_asked", {"tool_use_id": 7}, None),
        ("permission_asked", ["t1"], None),
        ("message", {"tool_use_id": "t1"}, None),
    ],
)
def test_question_records_are_read_back_strictly(kind, payload, read):
    assert read_question(kind, payload) == read
