"""Every attempt the API began is counted and priced, and a termination keeps the text.

Found by the tenth outside attack: the usage an attempt reports as it begins
(`message_start`: its input and cache tokens) was dropped when a stream broke and was
retried, when every retry broke (the turn cost $0), and when SIGTERM or SIGHUP ended
agent-cli mid-answer, which also lost the text that had arrived (Ctrl-C kept both). The
real SDK against the strict fake API, and a real process for the signal.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import Reply, Stall, StreamError, start_fake_server, text_block
from session_support import make_session, workspace_with

from agent_cli.errors import ProviderRequestFailed, SummarizerFailed, TerminationRequested
from agent_cli.events import ModelResponse, RetryNotice, TextDelta, TurnEnded, Usage, UsageSoFar
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.provider.summarizers import build_model_summarizer

API_KEY = "sk-ant-billed-attempts-FAKE-0123456789"
MODEL = "claude-sonnet-5-5"
LONG = "partial answer words " * 200


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    return workspace_with(tmp_path, {"notes.txt": "the build uses make\n"})


def recording_usage(server: Any) -> list[dict[str, int]]:
    """The usage the fake API reports at the start of each stream, as it reports it."""
    reported: list[dict[str, int]] = []
    answer = server.usage_for

    def noted(body: dict[str, Any]) -> dict[str, int]:
        usage = answer(body)
        reported.append(dict(usage))
        return usage

    server.usage_for = noted
    return reported


def prompt_of(usage: dict[str, int]) -> int:
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return sum(usage.get(key, 0) for key in keys)


def run_against(server: Any, workspace: Path, text: str) -> tuple[Any, list[Any]]:
    provider = AnthropicProvider(
        API_KEY, MODEL, base_url=server.base_url, sleep=lambda seconds: None, timeout_seconds=5
    )
    session = make_session(workspace, provider)
    return session, list(session.run_turn(text))


def test_a_stream_broken_and_retried_counts_both_attempts(workspace: Path) -> None:
    with start_fake_server(api_key=API_KEY) as server:
        reported = recording_usage(server)
        server.enqueue(
            StreamError(after_events=40, reply=Reply([text_block(LONG)])),
            Reply([text_block("the final answer")]),
        )
        session, events = run_against(server, workspace, "hello")
        stats = session.stats()
        session.close()
    assert [e.outcome for e in events if isinstance(e, TurnEnded)] == ["ok"]
    assert len(reported) == 2 and stats.requests == 2
    assert stats.total_usage.prompt_tokens == sum(map(prompt_of, reported)) > 0
    # the broken attempt's output is at least the text that had arrived
    assert stats.total_usage.output_tokens > session.counter.count_text("the final answer")


def test_a_turn_whose_every_attempt_broke_is_still_priced(workspace: Path) -> None:
    broken = [StreamError(after_events=20, reply=Reply([text_block(LONG)])) for _ in range(8)]
    with start_fake_server(api_key=API_KEY) as server:
        reported = recording_usage(server)
        server.enqueue(*broken)
        session, events = run_against(server, workspace, "hello")
        stats = session.stats()
        session.close()
    assert [e.outcome for e in events if isinstance(e, TurnEnded)] == ["failed"]
    assert len(reported) >= 2 and stats.requests == len(reported)
    assert stats.total_usage.prompt_tokens == sum(map(prompt_of, reported))
    assert sum(stats.cost_by_category.values()) > 0


class BeginsToAnswer:
    """A provider whose answer begins (usage, two pieces of text); then a termination
    signal lands (`terminated`), or a third piece comes."""

    name, model, context_window = "scripted", MODEL, 200_000

    def __init__(self, terminated: bool) -> None:
        self.terminated = terminated

    def stream(self, request: Any) -> Any:
        yield UsageSoFar(Usage(input_tokens=1_200, cache_creation_input_tokens=800))
        yield TextDelta("The answer so far ")
        yield TextDelta("names the build tool.")
        if self.terminated:
            raise TerminationRequested(signal.SIGTERM)
        yield TextDelta(" More.")


def test_a_termination_mid_answer_keeps_the_text_and_its_usage(workspace: Path) -> None:
    session = make_session(workspace, BeginsToAnswer(terminated=True))
    with pytest.raises(TerminationRequested):
        list(session.run_turn("explain the build"))
    last = session.view[-1]
    assert last["role"] == "assistant"
    assert last["content"][0]["text"] == (
        "The answer so far names the build tool.\n[answer cut: agent-cli was ended by SIGTERM]"
    )
    stats = session.stats()
    assert stats.requests == 1 and stats.total_usage.prompt_tokens == 2_000
    assert stats.total_usage.output_tokens >= session.counter.count_text("names the build tool.")


class BrokenThenWhole:
    """A summary request whose first attempt began and broke; the retry answers."""

    name, model, context_window = "scripted", MODEL, 200_000

    def stream(self, request: Any) -> Any:
        yield UsageSoFar(Usage(input_tokens=900))
        yield TextDelta("a summary that breaks off")
        yield RetryNotice(1, 0.0, "overloaded")
        yield UsageSoFar(Usage(input_tokens=900))
        message = {"role": "assistant", "content": [{"type": "text", "text": "Summary: the work."}]}
        yield ModelResponse(message, "end_turn", Usage(input_tokens=900, output_tokens=6))


class BrokenForGood:
    """A summary request whose only attempt began and then failed for good."""

    name, model, context_window = "scripted", MODEL, 200_000

    def stream(self, request: Any) -> Any:
        yield UsageSoFar(Usage(input_tokens=700))
        yield TextDelta("half a summ")
        raise ProviderRequestFailed("overloaded", attempts=5)


def test_a_summary_request_counts_every_attempt_the_api_began() -> None:
    summarizer = build_model_summarizer(BrokenThenWhole(), timeout_seconds=5)  # type: ignore[arg-type]
    assert summarizer([{"role": "user", "content": "a long talk"}]) == "Summary: the work."
    assert summarizer.reported_usage == [
        Usage(input_tokens=900, output_tokens=7),  # 25 characters that arrived, 4 a token
        Usage(input_tokens=900, output_tokens=6),
    ]
    failing = build_model_summarizer(BrokenForGood(), timeout_seconds=5)  # type: ignore[arg-type]
    with pytest.raises(SummarizerFailed):
        failing([{"role": "user", "content": "a long talk"}])
    assert failing.reported_usage == [Usage(input_tokens=700, output_tokens=3)]


def transcript_records(home: Path) -> list[dict[str, Any]]:
    [transcript] = (home / "transcripts").glob("*.jsonl")
    return [json.loads(line) for line in transcript.read_text().splitlines()]


@pytest.mark.parametrize("signal_number", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_while_the_answer_streams_keeps_it_and_its_cost(
    terminals: Any, home: Path, tmp_path: Path, signal_number: int
) -> None:
    """The REPL in a real terminal, the answer on screen as it streams; then the signal."""
    from e2e_support import start_repl

    workspace = workspace_with(tmp_path, {"notes.txt": "the build uses make\n"})
    with start_fake_server(api_key=API_KEY) as server:
        reported = recording_usage(server)
        server.enqueue(Stall(seconds=60, after_events=30, reply=Reply([text_block(LONG)])))
        api = {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url}
        repl = start_repl(terminals, home, workspace, "--model", MODEL, extra_env=api)
        repl.send("answer at length")
        repl.terminal.wait_for_text("partial")
        os.kill(repl.terminal.program_pid(), signal_number)
        returncode = repl.terminal.wait_for_exit()
    assert returncode == 128 + signal_number
    records = transcript_records(home)
    texts = [
        block["text"]
        for record in records
        for block in ((record.get("payload") or {}).get("message") or {}).get("content") or []
        if isinstance(block, dict) and block.get("type") == "text"
    ]
    name = signal.Signals(signal_number).name
    assert any(
        text.startswith("partial") and text.endswith(f"[answer cut: agent-cli was ended by {name}]")
        for text in texts
    ), texts
    usage = [r["payload"] for r in records if r.get("kind") == "usage"]
    assert [prompt_of(u) for u in usage] == [prompt_of(reported[0])]


@pytest.mark.parametrize(
    "reported",
    [
        {"input_tokens": -5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": -100_000},
        {"input_tokens": 10**30, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
    ],
    ids=["negative", "absurd"],
)
def test_a_figure_no_request_could_have_counts_as_zero(
    workspace: Path, reported: dict[str, int]
) -> None:
    """A broken proxy's usage (negative, or more tokens than any request carries) made
    `stats` show negative totals and a negative cost: such a figure counts as zero, like
    one the API left out, in `stats` and in the transcript a resume reads."""
    with start_fake_server(api_key=API_KEY) as server:
        server.usage_for = lambda body: dict(reported)
        session, events = run_against(server, workspace, "hello")
        stats = session.stats()
        session.close()
    assert [e.outcome for e in events if isinstance(e, TurnEnded)] == ["ok"]
    assert stats.requests == 1 and stats.total_usage.prompt_tokens == 0
    assert all(cost >= 0 for cost in stats.cost_by_category.values())
    lines = Path(session.transcript_path).read_text().splitlines()
    [usage] = [r["payload"] for r in map(json.loads, lines) if r.get("kind") == "usage"]
    assert prompt_of(usage) == 0


def test_a_termination_while_the_repl_draws_is_kept_like_one_inside_the_session(
    workspace: Path,
) -> None:
    """Review: a signal that lands while the REPL draws the answer (most of a stream's
    time) left the loop without the session seeing it: no usage, no text kept."""
    from agent_cli.events import AssistantText
    from agent_cli.repl.turns import drive_events

    session = make_session(workspace, BeginsToAnswer(terminated=False))

    def render(event: Any) -> None:
        if isinstance(event, AssistantText) and "names" in event.text:
            raise TerminationRequested(signal.SIGTERM)

    with pytest.raises(TerminationRequested):
        drive_events(session.run_turn("explain the build"), render)
    assert session.view[-1]["content"][0]["text"] == (
        "The answer so far names the build tool.\n[answer cut: agent-cli was ended by SIGTERM]"
    )
    stats = session.stats()
    assert stats.requests == 1 and stats.total_usage.prompt_tokens == 2_000


class RetriedOnce:
    """An attempt begins and is retried; the retry answers."""

    name, model, context_window = "scripted", MODEL, 200_000

    def stream(self, request: Any) -> Any:
        yield UsageSoFar(Usage(input_tokens=1_000))
        yield RetryNotice(1, 0.0, "overloaded")
        message = {"role": "assistant", "content": [{"type": "text", "text": "done"}]}
        yield ModelResponse(message, "end_turn", Usage(input_tokens=1_000, output_tokens=1))


def test_a_ctrl_c_while_a_retried_attempt_is_noted_counts_it_once(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review: the attempt was noted, then Ctrl-C (here in the calibration after the
    usage record) noted it again from the interrupt's handler."""
    session = make_session(workspace, RetriedOnce())
    compactor = session.compactor
    calibrate = compactor.calibrate

    def interrupted(*args: Any, **options: Any) -> None:
        calibrate(*args, **options)
        raise KeyboardInterrupt

    monkeypatch.setattr(compactor, "calibrate", interrupted)
    list(session.run_turn("hello"))
    stats = session.stats()
    assert stats.requests == 1 and stats.total_usage.prompt_tokens == 1_000
