"""The turn loop: tools, recording, failures and Ctrl-C leave a valid, complete history."""

from __future__ import annotations

from pathlib import Path

import pytest
from session_support import (
    FakeToolbox,
    ScriptedProvider,
    drain,
    make_session,
    plain,
    tool_use,
    transcript_records,
    workspace_with,
)

from agent_cli.compaction import CompactionPolicy
from agent_cli.errors import ProviderRequestFailed
from agent_cli.events import (
    AssistantDone,
    AssistantText,
    Notice,
    TextDelta,
    ToolFinished,
    ToolStarted,
    TurnEnded,
)
from agent_cli.protocol import validate_tool_protocol
from agent_cli.provider.offline import OfflineProvider
from agent_cli.repl.error_text import notice_text
from agent_cli.session import open_session


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    return workspace_with(tmp_path, {"README.md": "# Hello agent\n\nSome text.\n"})


def test_offline_turn_reads_a_file_and_answers_from_it(workspace: Path) -> None:
    session = make_session(workspace, OfflineProvider())
    events = drain(session.run_turn("read README.md and tell me its first heading"))
    started = [e for e in events if isinstance(e, ToolStarted)]
    assert [e.name for e in started] == ["read_file"]
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert finished and not finished[0].is_error
    answer = [e for e in events if isinstance(e, AssistantDone)][-1].text
    assert "Hello agent" in answer
    assert events[-1] == TurnEnded("ok", stop_reason="end_turn", steps=2)
    validate_tool_protocol(session.view)
    assert len(session.view) == 4  # user, tool call, tool result, answer


def test_every_view_message_is_in_the_transcript_in_order(workspace: Path) -> None:
    session = make_session(workspace, OfflineProvider())
    drain(session.run_turn("read README.md"))
    drain(session.run_turn("list ."))
    recorded = [
        r["payload"]["message"] for r in transcript_records(session) if r["kind"] == "message"
    ]
    assert recorded == plain(session.view)
    message_ids = [r["event_id"] for r in transcript_records(session) if r["kind"] == "message"]
    assert [m["_source"] for m in session.view] == message_ids  # each points at its record
    sequences = [r["sequence"] for r in transcript_records(session)]
    assert sequences == list(range(1, len(sequences) + 1))


def test_parallel_tool_calls_get_one_result_each_in_one_message(workspace: Path) -> None:
    provider = ScriptedProvider(
        [
            [tool_use("t1", "read_file", path="README.md"), tool_use("t2", "list_dir", path=".")],
            [{"type": "text", "text": "done"}],
        ]
    )
    session = make_session(workspace, provider)
    drain(session.run_turn("look around"))
    results = session.view[2]["content"]
    assert [b["tool_use_id"] for b in results] == ["t1", "t2"]
    assert len(provider.requests) == 2
    assert provider.requests[1].messages[-1] == session.view[2]


def test_a_failed_request_leaves_view_and_transcript_as_before(workspace: Path) -> None:
    def fail(request):
        yield TextDelta("half an ans")
        raise ProviderRequestFailed("overloaded", status=529, attempts=5)

    session = make_session(workspace, ScriptedProvider([fail, [{"type": "text", "text": "hi"}]]))
    before_records = len(transcript_records(session))
    events = drain(session.run_turn("hello"))
    assert events[-1].outcome == "failed"
    assert any(isinstance(e, Notice) and e.code == "provider_failed" for e in events)
    assert plain(session.view) == plain([{"role": "user", "content": "hello"}])
    assert len(transcript_records(session)) == before_records + 1  # only the user message
    events = drain(session.run_turn("hello again"))
    assert events[-1].outcome == "ok"
    assert session.view[-1]["content"][0]["text"] == "hi"


def test_ctrl_c_while_a_tool_runs_records_error_results_for_every_call(workspace: Path) -> None:
    provider = ScriptedProvider(
        [
            [tool_use("t1", "bash", command="sleep 1"), tool_use("t2", "bash", command="echo")],
        ]
    )

    class InterruptingToolbox(FakeToolbox):
        def run(self, name, tool_input):
            raise KeyboardInterrupt

    toolbox = InterruptingToolbox()
    session = make_session(workspace, provider, toolbox_factory=lambda *parts: toolbox)
    events = drain(session.run_turn("run things"))
    assert events[-1].outcome == "cancelled"
    results = session.view[-1]["content"]
    assert [b["tool_use_id"] for b in results] == ["t1", "t2"]
    assert all(b["is_error"] for b in results)
    assert "Interrupted" in results[0]["content"] and "Not run" in results[1]["content"]
    validate_tool_protocol(session.view)


def test_ctrl_c_while_streaming_keeps_the_half_answer_marked(workspace: Path) -> None:
    def interrupted(request):
        yield TextDelta("The answer beg")
        raise KeyboardInterrupt

    session = make_session(workspace, ScriptedProvider([interrupted]))
    events = drain(session.run_turn("explain"))
    assert [e.text for e in events if isinstance(e, AssistantText)] == ["The answer beg"]
    assert events[-1].outcome == "cancelled"
    kept = session.view[-1]
    assert kept["role"] == "assistant"
    assert kept["content"][0]["text"].startswith("The answer beg")
    assert "interrupted" in kept["content"][0]["text"]


def test_tool_calls_cut_at_max_tokens_are_answered_not_run(workspace: Path) -> None:
    def cut(request):
        from agent_cli.events import ModelResponse, Usage

        message = {"role": "assistant", "content": [tool_use("t9", "bash", command="rm -rf x")]}
        yield ModelResponse(message, "max_tokens", Usage(10, 10))

    session = make_session(workspace, ScriptedProvider([cut]))
    (workspace / "x").mkdir()
    events = drain(session.run_turn("go"))
    assert any(isinstance(e, Notice) and e.code == "max_tokens" for e in events)
    assert (workspace / "x").exists()
    assert session.view[-1]["content"][0]["is_error"] is True
    validate_tool_protocol(session.view)


@pytest.mark.parametrize("reason", ["end_turn", "refusal", "stop_sequence"])
def test_tool_calls_in_an_answer_that_stopped_for_another_reason_say_that_reason(
    workspace: Path, reason: str
) -> None:
    def stopped(request):
        from agent_cli.events import ModelResponse, Usage

        message = {"role": "assistant", "content": [tool_use("t9", "bash", command="rm -rf x")]}
        yield ModelResponse(message, reason, Usage(10, 10))

    session = make_session(workspace, ScriptedProvider([stopped]))
    (workspace / "x").mkdir()
    events = drain(session.run_turn("go"))
    assert (workspace / "x").exists()
    answered = session.view[-1]["content"][0]
    assert answered["is_error"] is True
    assert f"stop reason {reason}" in answered["content"]
    assert "max_tokens" not in answered["content"]
    said = [notice_text(e) for e in events if isinstance(e, Notice) and e.code == "calls_at_stop"]
    assert said == [
        f"The answer asked for 1 tool call but ended with stop reason {reason}, not tool_use: "
        "not run, and the model is told so."
    ]
    validate_tool_protocol(session.view)


def test_resume_rebuilds_the_view_and_answers_a_dangling_tool_call(workspace: Path) -> None:
    provider = ScriptedProvider([[tool_use("t1", "read_file", path="README.md")]])

    class CrashingToolbox(FakeToolbox):
        def run(self, name, tool_input):
            raise SystemExit("process died mid-tool")

    toolbox = CrashingToolbox()
    session = make_session(workspace, provider, toolbox_factory=lambda *parts: toolbox)
    with pytest.raises(SystemExit):
        drain(session.run_turn("read it"))
    session_id = session.session_id
    session.close()
    resumed = make_session(workspace, OfflineProvider(), resume=session_id)
    assert plain([resumed.view[0]]) == [{"role": "user", "content": "read it"}]
    assert resumed.view[-1]["content"][0]["tool_use_id"] == "t1"
    assert resumed.view[-1]["content"][0]["is_error"] is True
    assert any(n.code == "resumed_mid_tool" for n in resumed.startup_notices)
    validate_tool_protocol(resumed.view)
    assert drain(resumed.run_turn("list ."))[-1].outcome == "ok"


def test_open_session_refuses_an_unknown_session_id(workspace: Path) -> None:
    from agent_cli.errors import SessionNotFound
    from agent_cli.store.paths import resolve_state_paths

    with pytest.raises(SessionNotFound):
        open_session(
            paths=resolve_state_paths(),
            provider=OfflineProvider(),
            workspace=workspace,
            policy=CompactionPolicy(),
            resume="20990101-000000-abcdef",
        )


def test_a_failed_request_says_the_message_is_kept_rather_than_asking_to_send_it_again(
    workspace: Path,
) -> None:
    def fail(request):
        raise ProviderRequestFailed("overloaded", status=529, attempts=5)
        yield  # a generator, like a real stream

    session = make_session(workspace, ScriptedProvider([fail]))
    events = drain(session.run_turn("hello"))
    [notice] = [e for e in events if isinstance(e, Notice) and e.code == "provider_failed"]
    assert plain(session.view) == plain(
        [{"role": "user", "content": "hello"}]
    )  # kept, so not to be resent
    assert "kept" in notice_text(notice) and "again to retry" not in notice_text(notice)


def test_the_request_watcher_hears_of_each_request_just_before_it_is_sent(
    workspace: Path,
) -> None:
    provider = ScriptedProvider(
        [[tool_use("t1", "read_file", path="README.md")], [{"type": "text", "text": "done"}]]
    )
    session = make_session(workspace, provider)
    events: list[object] = []
    heard: list[tuple[int, str | None]] = []

    def note_request() -> None:  # (requests the provider had, the event shown last)
        heard.append((len(provider.requests), type(events[-1]).__name__ if events else None))

    session.watch_model_requests(note_request)
    for event in session.run_turn("read the readme"):
        events.append(event)
    assert heard == [(0, None), (1, "ToolFinished")]

    session.watch_model_requests(None)
    drain(session.run_turn("again"))
    assert len(heard) == 2 and len(provider.requests) == 3
