"""Ctrl-C at every stage of a turn: streaming, retry waits, tools, compaction, and the
moments in between when the REPL is showing an event.

Whatever stage the interrupt lands in, the turn ends "cancelled", the view is one the API
accepts and is exactly what the transcript replays into, and the next turn works.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import HttpError, Reply, start_fake_server, text_block
from faults_support import (
    HangingProvider,
    InterruptingToolbox,
    assert_history_is_valid,
    drain_or_fail,
    drive_with_interrupt,
    notices,
    take_snapshot,
    turn_end,
)
from session_support import ScriptedProvider, drain, make_session, plain, tool_use, workspace_with
from tools_support import is_process_running

from agent_cli.errors import SummarizerFailed
from agent_cli.events import (
    AssistantText,
    CompactionFired,
    TextDelta,
    ToolFinished,
    ToolStarted,
    Usage,
    UsageSoFar,
)
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.provider.base import PlainSummarizer
from agent_cli.provider.summarizers import build_model_summarizer
from agent_cli.store.fsutil import FileOps

API_KEY = "sk-ant-test-INTERRUPT-0123456789"
ANSWER = [{"type": "text", "text": "done"}]


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    return workspace_with(tmp_path, {"notes.txt": "the build uses make\n"})


def answer_then_interrupt(*texts: str):
    """A provider step that streams `texts`, then the user presses Ctrl-C."""

    def step(request):
        for text in texts:
            yield TextDelta(text)
        raise KeyboardInterrupt

    return step


def assert_cancelled_and_sound(session: Any, events: list[Any]) -> None:
    assert turn_end(events).outcome == "cancelled"
    assert notices(events, "cancelled")
    assert_history_is_valid(session)
    assert turn_end(drain(session.run_turn("carry on"))).outcome == "ok"
    assert_history_is_valid(session)


# --- while streaming ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "texts, kept",
    [
        (("The answer ", "begins"), "The answer begins"),
        ((), None),
        (("   ",), None),
        (("caf\ud800e ",), "caf\ufffde "),  # a lone surrogate could not be recorded
    ],
    ids=["after some text", "before any text", "after only blanks", "a lone surrogate"],
)
def test_ctrl_c_while_streaming_keeps_what_arrived_marked_and_nothing_else(
    workspace: Path, texts: tuple[str, ...], kept: str | None
) -> None:
    session = make_session(workspace, ScriptedProvider([ANSWER, answer_then_interrupt(*texts)]))
    drain(session.run_turn("first"))
    before = take_snapshot(session)

    events = drain_or_fail(session.run_turn("explain"))

    expected = [*before.view, {"role": "user", "content": "explain"}]
    if kept is not None:
        assert plain(session.view[:-1]) == plain(expected)
        text = session.view[-1]["content"][0]["text"]
        assert text.startswith(kept) and text.endswith("[answer interrupted by the user]")
    else:
        assert plain(session.view) == plain(expected)
    assert_cancelled_and_sound(session, events)


def test_ctrl_c_while_the_real_sdk_streams_keeps_the_partial_answer(workspace: Path) -> None:
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(
            Reply([text_block("A long answer that streams in many small pieces.")], chunk_size=4)
        )
        provider = AnthropicProvider(
            API_KEY,
            "claude-test",
            base_url=server.base_url,
            sleep=lambda seconds: None,
            timeout_seconds=5,
        )
        session = make_session(workspace, provider)
        run = drive_with_interrupt(session.run_turn("talk"), at_index=3)
        texts = [e.text for e in run.events if isinstance(e, AssistantText)]
        assert not run.escaped and isinstance(run.interrupted_at, AssistantText)
        assert session.view[-1]["content"][0]["text"].startswith("".join(texts))
        assert_cancelled_and_sound(session, run.events)
        assert all(request.rejection is None for request in server.requests)


def test_an_answer_cancelled_after_the_api_began_it_is_counted_and_priced(workspace: Path) -> None:
    """Seventh attack: a cancelled answer was billed (message_start reported its input and
    cache tokens; output ran until the cut) but `stats` said 0 requests and $0."""
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(Reply([text_block("word " * 400)], chunk_size=8))
        provider = AnthropicProvider(
            API_KEY,
            "claude-sonnet-5-5",
            base_url=server.base_url,
            sleep=lambda seconds: None,
            timeout_seconds=5,
        )
        session = make_session(workspace, provider)
        run = drive_with_interrupt(session.run_turn("talk"), at_index=6)
        streamed = "".join(e.text for e in run.events if isinstance(e, AssistantText))
        stats = session.stats()
    assert not run.escaped and turn_end(run.events).outcome == "cancelled"
    assert stats.requests == 1
    assert stats.total_usage.prompt_tokens > 0
    assert stats.total_usage.output_tokens >= session.counter.count_text(streamed) > 0
    assert sum(stats.cost_by_category.values()) > 0


def test_a_summary_abandoned_after_the_api_began_it_is_counted() -> None:
    """The same for a summary request, asked on a thread the caller abandons (at its
    timeout here; Ctrl-C takes the same path)."""
    release = threading.Event()

    class StallingProvider:
        name, model, context_window = "stalling", "claude-sonnet-5-5", 200_000

        def stream(self, request: Any) -> Any:
            yield UsageSoFar(Usage(input_tokens=900, cache_read_input_tokens=100))
            yield TextDelta("a summary that never ends " * 4)
            release.wait(30)

    summarizer = build_model_summarizer(StallingProvider(), timeout_seconds=2)  # type: ignore[arg-type]
    try:
        with pytest.raises(SummarizerFailed):
            summarizer([{"role": "user", "content": "a long talk to summarize"}])
    finally:
        release.set()
    assert summarizer.reported_usage == [
        Usage(input_tokens=900, output_tokens=26, cache_read_input_tokens=100)
    ]


def test_ctrl_c_during_a_retry_wait_cancels_with_the_history_as_before(workspace: Path) -> None:
    presses = ["Ctrl-C"]

    def sleep(seconds: float) -> None:
        if presses:
            presses.pop()
            raise KeyboardInterrupt

    with start_fake_server(api_key=API_KEY) as server:
        provider = AnthropicProvider(
            API_KEY, "claude-test", base_url=server.base_url, sleep=sleep, timeout_seconds=5
        )
        session = make_session(workspace, provider)
        drain(session.run_turn("first"))
        before = take_snapshot(session)
        server.enqueue(HttpError(529))

        events = drain_or_fail(session.run_turn("second"))

        assert plain(session.view) == plain([*before.view, {"role": "user", "content": "second"}])
        assert_cancelled_and_sound(session, events)
        assert all(request.rejection is None for request in server.requests)


# --- while a tool runs --------------------------------------------------------------------


def test_ctrl_c_while_bash_runs_ends_the_command_and_answers_every_call(workspace: Path) -> None:
    provider = ScriptedProvider(
        [
            [
                tool_use("t1", "bash", command="echo $$ > sleeper.pid; exec sleep 30"),
                tool_use("t2", "list_dir", path="."),
            ]
        ]
    )
    session = make_session(workspace, provider)
    events: list[Any] = []
    presser = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    try:
        for event in session.run_turn("sleep, then list"):
            events.append(event)
            if isinstance(event, ToolStarted) and event.tool_use_id == "t1":
                presser.start()  # the real SIGINT a terminal sends on Ctrl-C
    finally:
        presser.cancel()
        presser.join()

    results = session.view[-1]["content"]
    assert [b["tool_use_id"] for b in results] == ["t1", "t2"]
    assert all(b["is_error"] for b in results)
    assert "Interrupted" in results[0]["content"] and "Not run" in results[1]["content"]
    pid = int((workspace / "sleeper.pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the sleeping command is gone, not left behind
    assert_cancelled_and_sound(session, events)


def press_ctrl_c_once_written(path: Path) -> threading.Thread:
    """A real SIGINT, as a terminal sends on Ctrl-C, once the command has written `path`."""

    def press() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (path.exists() and path.read_text().strip()):
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGINT)

    presser = threading.Thread(target=press)
    presser.start()
    return presser


def test_ctrl_c_while_bash_prints_records_its_output_so_far_and_then_shows_it(
    workspace: Path,
) -> None:
    command = "echo tick 1; echo tick 2; echo $$ > ticker.pid; sleep 30"
    provider = ScriptedProvider(
        [[tool_use("t1", "bash", command=command), tool_use("t2", "list_dir", path=".")]]
    )
    session = make_session(workspace, provider)
    presser = press_ctrl_c_once_written(workspace / "ticker.pid")
    events: list[Any] = []
    recorded_when_shown = False
    try:
        for event in session.run_turn("tick, then list"):
            events.append(event)
            if isinstance(event, ToolFinished):
                recorded_when_shown = b"tick 2" in b"".join(take_snapshot(session).transcript_lines)
    finally:
        presser.join()

    (finished,) = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.tool_use_id == "t1" and finished.interrupted and finished.is_error
    assert finished.output.endswith("Output so far follows.\ntick 1\ntick 2\n")
    assert recorded_when_shown  # the panel closes only once its result is on disk
    results = session.view[-1]["content"]
    assert [b["tool_use_id"] for b in results] == ["t1", "t2"]
    assert results[0]["content"] == finished.output and results[0]["is_error"]
    assert "Not run" in results[1]["content"]
    assert not is_process_running(int((workspace / "ticker.pid").read_text()))
    assert_cancelled_and_sound(session, events)


def test_ctrl_c_inside_a_tool_records_an_error_result_for_it(workspace: Path) -> None:
    provider = ScriptedProvider([[tool_use("t1", "read_file", path="notes.txt")]])
    toolbox = InterruptingToolbox()
    session = make_session(workspace, provider, toolbox_factory=lambda *parts: toolbox)

    events = drain_or_fail(session.run_turn("read"))

    assert session.toolbox.calls == ["read_file"]
    assert session.view[-1]["content"][0]["tool_use_id"] == "t1"
    assert_cancelled_and_sound(session, events)


def test_ctrl_c_while_a_write_is_prepared_tells_the_model_it_was_not_run(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the diff of a long file is built before anyone is asked; Ctrl-C then: nothing ran
    from agent_cli.session.turn import NOT_STARTED_TEXT, TOOL_NOT_STARTED
    from agent_cli.tools import file_tools

    def interrupted_diff(*_: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(file_tools, "build_overwrite_approval", interrupted_diff)
    asked: list[Any] = []
    provider = ScriptedProvider([[tool_use("t1", "write_file", path="notes.txt", content="x\n")]])
    session = make_session(workspace, provider, auto_approve=False, ask_permission=asked.append)

    events = drain_or_fail(session.run_turn("rewrite notes"))

    assert [n.code for n in notices(events)] == [TOOL_NOT_STARTED]
    assert session.view[-1]["content"][0]["content"] == NOT_STARTED_TEXT
    assert asked == [] and (workspace / "notes.txt").read_text() == "the build uses make\n"
    assert turn_end(events).outcome == "cancelled"
    assert_history_is_valid(session)
    assert turn_end(drain(session.run_turn("carry on"))).outcome == "ok"


# --- while compacting ---------------------------------------------------------------------


class Summarizer:
    """A summarizer that is interrupted by Ctrl-C while armed, and summarizes otherwise."""

    def __init__(self) -> None:
        self.armed = False
        self.calls = 0

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        self.calls += 1
        if self.armed:
            raise KeyboardInterrupt
        return "Earlier: the user wrote long messages."


def start_long_session(workspace: Path, summarizer: Any) -> Any:
    """A session whose next request must summarize: message 0 alone nearly fills it."""
    session = make_session(
        workspace, ScriptedProvider(summarizer=summarizer), soft=2_500, hard=60_000, keep_recent=2
    )
    drain(session.run_turn("first " * 1_800))
    return session


def test_ctrl_c_while_the_summarizer_runs_cancels_the_turn_with_the_view_unchanged(
    workspace: Path,
) -> None:
    summarizer = Summarizer()
    session = start_long_session(workspace, summarizer)
    summarizer.armed = True
    before = take_snapshot(session)

    events = drain_or_fail(session.run_turn("second " * 100))

    assert summarizer.calls == 1
    assert not [e for e in events if isinstance(e, CompactionFired)]
    assert plain(session.view) == plain(
        [*before.view, {"role": "user", "content": "second " * 100}]
    )
    assert b'"kind":"compaction"' not in b"".join(take_snapshot(session).transcript_lines)
    summarizer.armed = False
    assert_cancelled_and_sound(session, events)


def test_ctrl_c_during_a_forced_compaction_leaves_the_view_unchanged(workspace: Path) -> None:
    summarizer = Summarizer()
    session = start_long_session(workspace, summarizer)
    drain(session.run_turn("second"))
    summarizer.armed = True
    before = take_snapshot(session)

    events = drain_or_fail(session.compact_now("keep names"))

    assert [n.code for n in notices(events)] == ["cancelled"]
    assert take_snapshot(session) == before
    assert_history_is_valid(session)


def test_a_real_ctrl_c_while_the_model_summary_is_awaited_cancels_the_turn(workspace: Path) -> None:
    hanging = HangingProvider()
    summarizer = build_model_summarizer(hanging, timeout_seconds=30)
    session = start_long_session(workspace, summarizer)
    before = take_snapshot(session)
    presser = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    presser.start()
    try:
        events = drain_or_fail(session.run_turn("second " * 100))
    finally:
        presser.cancel()
        presser.join()
        hanging.release.set()

    assert plain(session.view) == plain(
        [*before.view, {"role": "user", "content": "second " * 100}]
    )
    session.provider.summarizer = PlainSummarizer(lambda messages: "Earlier: long messages.")
    assert_cancelled_and_sound(session, events)


class InterruptedDisk(FileOps):
    """Real file operations, but one fsync (or one write) armed to raise Ctrl-C, as a
    SIGINT landing in that syscall does."""

    def __init__(self) -> None:
        self.armed: str | None = None

    def write(self, fd: int, data: bytes) -> int:
        if self.armed == "write":
            self.armed = None
            raise KeyboardInterrupt
        return os.write(fd, data)

    def fsync(self, fd: int) -> None:
        if self.armed == "fsync":
            self.armed = None
            raise KeyboardInterrupt
        os.fsync(fd)


@pytest.mark.parametrize("where", ["fsync", "write"])
def test_ctrl_c_inside_a_transcript_append_leaves_view_and_transcript_agreeing(
    workspace: Path, where: str
) -> None:
    """Found by an outside attack: a SIGINT landing in a transcript append (between the
    write and the writer's bookkeeping) made the next append find the file "grown" by the
    writer's own line, and the session said results were lost that were on disk."""
    disk = InterruptedDisk()
    provider = ScriptedProvider(
        [[{"type": "text", "text": "one"}], [{"type": "text", "text": "two"}]]
    )
    session = make_session(workspace, provider, transcript_fs=disk)
    assert turn_end(drain(session.run_turn("first"))).outcome == "ok"

    disk.armed = where
    with pytest.raises(KeyboardInterrupt):
        drain(session.run_turn("second"))
    in_view = [m["content"] for m in plain(session.view) if m["role"] == "user"]
    assert in_view == (["first", "second"] if where == "fsync" else ["first"])
    assert_history_is_valid(session)

    assert turn_end(drain(session.run_turn("third"))).outcome == "ok"
    assert_history_is_valid(session)
