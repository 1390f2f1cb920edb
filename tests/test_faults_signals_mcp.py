"""SIGTERM or SIGHUP to agent-cli while an MCP tool call waits for its server records that
the call was stopped, and why, before the process ends (session 30's left item).

A shell command stopped by a signal has been recorded since session 30 ("Stopped:
agent-cli was ended by SIGTERM … Output so far follows."). An MCP call was answered with
the same words, about "a running command and its whole process group", though no command
ran and the server may have done the work; and an answer that had come back as the
signal landed was dropped (Ctrl-C keeps it, `CallInterrupted`). Now the call is cancelled
and answered with `toolbox.MCP_TERMINATED_TEXT`, or with the server's answer when there
was one (`CallTerminated`), and the recap reads it back as stopped.

Real processes: `agent-cli -p --yes` on the real SDK against the strict fake API, the
real demo MCP server's `hang` tool; then `agent-cli --resume <id> -p`, whose request the
strict fake must accept with the stopped call's result in it. The hub alone, with the real
demo server and a real SIGTERM to this process: the waiting call, and one being handed
over, are cancelled; an answer that had come is kept (`CallTerminated`). The toolbox: a
signal just after the answer (its dotenv check) keeps it (a review found it dropped).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from e2e_support import agent_cli_argv, build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from tools_support import make_toolbox

from agent_cli.errors import TerminationRequested
from agent_cli.mcp_servers.hub import McpHub
from agent_cli.mcp_servers.offered_tools import OfferedTool
from agent_cli.mcp_servers.settings import McpServerSettings
from agent_cli.mcp_servers.states import CallOutcome, CallTerminated
from agent_cli.session.call_outcome import STOPPED, read_call_outcome
from agent_cli.termination import HANDLED_SIGNALS, install_termination_handlers
from agent_cli.tools.output import ToolTerminated

API_KEY = "sk-ant-signals-mcp-FAKE-7"
DEMO = Path(__file__).parent / "mcp_fixtures" / "demo_server.py"
CALL_ID = "toolu_hang"


def write_config(home: Path, started: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[mcp_servers.demo]\ncommand = "{sys.executable}"\nargs = ["{DEMO}"]\n'
        "startup_timeout = 60\ntimeout = 600\n"
        f'[mcp_servers.demo.env]\nDEMO_HANG_STARTED_FILE = "{started}"\n',
        encoding="utf-8",
    )


def wait_for_file(path: Path, agent: subprocess.Popen[bytes], seconds: float = 90.0) -> None:
    deadline = time.monotonic() + seconds
    while not path.is_file():
        assert agent.poll() is None, "agent-cli ended before the MCP call started"
        assert time.monotonic() < deadline, "the MCP call never started"
        time.sleep(0.05)


def recorded_result(home: Path) -> dict[str, Any]:
    """The tool_result the transcript holds for the call (the only transcript)."""
    (transcript,) = (home / "transcripts").glob("*.jsonl")
    for line in transcript.read_text().splitlines():
        content = ((json.loads(line).get("payload") or {}).get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_result" and block.get("tool_use_id") == CALL_ID:
                return dict(block)
    raise AssertionError(f"no tool_result for {CALL_ID} in {transcript.name}")


@pytest.mark.parametrize(
    ("signal_number", "name"), [(signal.SIGTERM, "SIGTERM"), (signal.SIGHUP, "SIGHUP")]
)
def test_a_signal_during_an_mcp_call_records_it_stopped_and_the_resumed_history_is_accepted(
    tmp_path: Path, signal_number: int, name: str
) -> None:
    workspace, home, started = tmp_path / "ws", tmp_path / "home", tmp_path / "hang-started"
    workspace.mkdir()
    write_config(home, started)
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(Reply([tool_use_block(CALL_ID, "mcp__demo__hang", {})], "tool_use"))
        env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url})
        agent = subprocess.Popen(
            [*agent_cli_argv(), "--yes", "-p", "wait for the demo server"],
            cwd=workspace,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for_file(started, agent)
            agent.send_signal(signal_number)
            assert agent.wait(timeout=60) == 128 + signal_number
        finally:
            if agent.poll() is None:
                agent.kill()
                agent.wait()
        result = recorded_result(home)
        text = str(result["content"])
        assert result.get("is_error") is True
        assert text.startswith(f"Stopped: agent-cli was ended by {name} during the call")
        assert "of the tool hang of the MCP server demo, before any answer came back" in text
        assert_no_claim_about_the_server(text)
        assert "process group" not in text  # no command ran
        assert read_call_outcome(result) == STOPPED  # the recap says "stopped before finishing"
        (transcript,) = (home / "transcripts").glob("*.jsonl")
        server.enqueue(Reply([text_block("It was stopped; I will not call it again.")]))
        resumed = run_piped(
            ["--yes", "--resume", transcript.stem, "-p", "what happened?"], cwd=workspace, env=env
        )
        assert resumed.returncode == 0, resumed.stderr
        assert all(request.rejection is None for request in server.requests)
        sent = server.accepted[-1]["messages"]
        answers = [
            block
            for message in sent
            if isinstance(message["content"], list)
            for block in message["content"]
            if block.get("tool_use_id") == CALL_ID
        ]
    assert len(answers) == 1 and "before any answer came back" in str(answers[0]["content"])


def assert_no_claim_about_the_server(text: str) -> None:
    """The words stay true for an HTTP server (not stopped with agent-cli) and for a
    signal that came before the call was handed over (the server may never have had it):
    they say what *may* have happened there."""
    assert "may have received the call" in text and "may have done part or all" in text
    assert "was stopped with agent-cli" not in text and " ran its tool" not in text


class _SignalledServers:
    """An MCP part whose one call meets a termination signal: `answer` set, once the
    server had answered (`CallTerminated`), else before (`TerminationRequested`)."""

    version = 1

    def __init__(self, answer: CallOutcome | None) -> None:
        self.answer = answer

    def offered_tools(self) -> list[OfferedTool]:
        return [OfferedTool({"name": "mcp__ops__deploy"}, "ops", "deploy")]

    def not_offered(self, name: str) -> None:
        return None

    def call(self, server: str, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        if self.answer is None:
            raise TerminationRequested(signal.SIGTERM)
        raise CallTerminated(signal.SIGTERM, self.answer)


def test_a_signal_before_the_server_answered_gives_a_result_saying_the_call_was_stopped(
    tmp_path: Path,
) -> None:
    toolbox = make_toolbox(tmp_path)
    toolbox.attach_mcp(_SignalledServers(None))
    with pytest.raises(ToolTerminated) as stopped:
        toolbox.run("mcp__ops__deploy", {"target": "prod"})
    assert stopped.value.signal_number == signal.SIGTERM  # agent-cli still ends by it
    kept = stopped.value.outcome
    assert kept is not None and kept.is_error
    assert kept.content.startswith(
        "Stopped: agent-cli was ended by SIGTERM during the call of the tool deploy of the "
        "MCP server ops, before any answer came back."
    )
    assert_no_claim_about_the_server(kept.content)
    assert read_call_outcome({"is_error": True, "content": kept.content}) == STOPPED


def test_a_signal_once_the_server_answered_keeps_its_answer_as_the_result(tmp_path: Path) -> None:
    answer = CallOutcome(({"type": "text", "text": "deployed to prod"},))
    toolbox = make_toolbox(tmp_path)
    toolbox.attach_mcp(_SignalledServers(answer))
    with pytest.raises(ToolTerminated) as stopped:
        toolbox.run("mcp__ops__deploy", {"target": "prod"})
    kept = stopped.value.outcome
    assert kept is not None and not kept.is_error and "deployed to prod" in kept.content


class _Answers:
    """An MCP part whose one call is answered; `answered` says it was."""

    version = 1

    def __init__(self) -> None:
        self.answered = False
        self.checks_after = 0  # dotenv checks begun once the call was answered

    def offered_tools(self) -> list[OfferedTool]:
        return [OfferedTool({"name": "mcp__ops__deploy"}, "ops", "deploy")]

    def not_offered(self, name: str) -> None:
        return None

    def call(self, server: str, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        self.answered = True
        return CallOutcome(({"type": "text", "text": "deployed to prod"},))


def _signalled_after_the_answer(
    tmp_path: Path, signal_it: Callable[[], None]
) -> tuple[ToolTerminated, int]:
    """What `toolbox.run` raises when `signal_it` runs in the dotenv check that follows
    the server's answer (the review's `signal_after_answer.py`), and how many dotenv
    checks began after the answer."""
    toolbox = make_toolbox(tmp_path)
    servers = _Answers()
    toolbox.attach_mcp(servers)
    check = toolbox.check_dotenv

    def check_then_signal() -> None:
        if servers.checks_after or servers.answered:
            servers.checks_after += 1
        if servers.answered:
            servers.answered = False
            signal_it()
        check()

    toolbox.check_dotenv = check_then_signal  # type: ignore[method-assign]
    with pytest.raises(ToolTerminated) as stopped:
        toolbox.run("mcp__ops__deploy", {"target": "prod"})
    return stopped.value, servers.checks_after


def test_a_real_sigterm_while_the_answer_is_made_the_result_keeps_it(tmp_path: Path) -> None:
    saved = {number: signal.getsignal(number) for number in HANDLED_SIGNALS}
    install_termination_handlers()
    try:
        stopped, checks = _signalled_after_the_answer(
            tmp_path, lambda: os.kill(os.getpid(), signal.SIGTERM)
        )
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)
    assert stopped.signal_number == signal.SIGTERM  # agent-cli still ends by it
    kept = stopped.outcome
    assert kept is not None and not kept.is_error and "deployed to prod" in kept.content
    assert checks == 1  # the signal was held: the check went on, the result was made once


def test_a_signal_raised_just_after_the_answer_keeps_it(tmp_path: Path) -> None:
    def raise_it() -> None:
        raise TerminationRequested(signal.SIGHUP)

    stopped, _ = _signalled_after_the_answer(tmp_path, raise_it)
    assert stopped.signal_number == signal.SIGHUP
    kept = stopped.outcome
    assert kept is not None and "deployed to prod" in kept.content
    assert "Stopped: agent-cli was ended" not in kept.content


# --- the hub: a signal while a real server's call waits, is handed over, was answered ---


@pytest.fixture
def termination_handlers() -> Iterator[None]:
    """agent-cli's handlers of SIGTERM, SIGHUP and SIGQUIT, as `main` installs them."""
    saved = {number: signal.getsignal(number) for number in HANDLED_SIGNALS}
    install_termination_handlers()
    try:
        yield
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)


@contextmanager
def demo_hub(tmp_path: Path) -> Iterator[tuple[McpHub, Path]]:
    """The real demo server over stdio, started; and the file its `hang` tool writes."""
    started = tmp_path / "hang-started"
    settings = McpServerSettings(
        "demo",
        command=sys.executable,
        args=(str(DEMO),),
        env={"DEMO_HANG_STARTED_FILE": str(started)},
        timeout=600,
        startup_timeout=60,
    )
    hub = McpHub([settings], tmp_path)
    hub.start()
    try:
        assert hub.wait_for_start(90) == []
        assert [state.status for state in hub.states()] == ["ready"]
        yield hub, started
    finally:
        hub.close()


def kept_futures(hub: McpHub) -> list[Future[Any]]:
    """The futures of the hub's calls handed to its loop, from now on, in order."""
    futures: list[Future[Any]] = []
    submit = hub._submit

    def submit_and_keep(coroutine: Any) -> Future[Any]:
        futures.append(submit(coroutine))
        return futures[-1]

    hub._submit = submit_and_keep  # type: ignore[method-assign]
    return futures


def sigterm_to_self() -> None:
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(1000):  # give the interpreter many chances to run the handler
        pass


@pytest.mark.usefixtures("termination_handlers")
def test_a_sigterm_while_the_call_waits_cancels_it(tmp_path: Path) -> None:
    with demo_hub(tmp_path) as (hub, started):
        futures = kept_futures(hub)

        def signal_once_running() -> None:
            deadline = time.monotonic() + 90
            while not started.is_file() and time.monotonic() < deadline:
                time.sleep(0.05)
            sigterm_to_self()

        threading.Thread(target=signal_once_running, daemon=True).start()
        with pytest.raises(TerminationRequested) as stopped:
            hub.call("demo", "hang", {})
        assert started.is_file()  # it was the waiting call the signal met
        assert not isinstance(stopped.value, CallTerminated)  # no answer had come
        assert futures[0].cancelled()  # not left running to its timeout


@pytest.mark.usefixtures("termination_handlers")
def test_a_sigterm_as_the_call_is_handed_over_cancels_it(tmp_path: Path) -> None:
    with demo_hub(tmp_path) as (hub, _):
        futures = kept_futures(hub)
        submit = hub._submit

        def submit_then_signal(coroutine: Any) -> Future[Any]:
            future = submit(coroutine)
            sigterm_to_self()  # lands before `call` holds the future
            return future

        hub._submit = submit_then_signal  # type: ignore[method-assign]
        with pytest.raises(TerminationRequested):
            hub.call("demo", "hang", {})
        assert futures[0].cancelled()


@pytest.mark.usefixtures("termination_handlers")
def test_a_sigterm_once_the_server_answered_keeps_the_answer(tmp_path: Path) -> None:
    with demo_hub(tmp_path) as (hub, _):
        hub._catch_up = lambda follower, heard: sigterm_to_self()  # type: ignore[method-assign]
        with pytest.raises(CallTerminated) as stopped:
            hub.call("demo", "echo", {"text": "deployed"})
    assert stopped.value.signal_number == signal.SIGTERM
    assert stopped.value.outcome.items[0]["text"] == "echo: deployed"
