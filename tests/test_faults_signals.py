"""SIGTERM or SIGHUP to agent-cli ends the running command's whole process group and
records that the command was stopped, with what it had printed (as Ctrl-C keeps it),
before the process exits; SIGKILL, which agent-cli
cannot catch, still takes the command's whole group down with it (its supervisor does).

Real processes: `agent-cli -p --yes` on the real SDK against the strict fake API runs a
bash command that starts a background `sleep` and waits; the test signals agent-cli and
then checks that no process of the command is left and what the transcript says.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

from agent_cli.tools.shell import is_group_alive

API_KEY = "sk-ant-signals-FAKE-7"
COMMAND = "sleep 1000 & echo $! > bg.pid; echo $$ > shell.pid; wait"
# It prints before it waits: what a signal must not throw away.
PRINTING_COMMAND = "echo tick 1; echo tick 2; " + COMMAND
PRINT_MODE = [sys.executable, "-m", "agent_cli", "--yes", "-p"]


@dataclass(frozen=True)
class PrintRun:
    """`agent-cli -p --yes` running in `workspace`, its state in `home`, against `server`."""

    agent: subprocess.Popen[bytes]
    server: Any
    workspace: Path
    home: Path
    env: dict[str, str]


@contextmanager
def running_a_command(
    tmp_path: Path, call_id: str, command: str, files: dict[str, str] | None = None
) -> Iterator[PrintRun]:
    """agent-cli asked to "run the long job" in a workspace holding `files`, whose model
    (the fake API) answers with one bash call `call_id` running `command`. The fake API
    serves until the block ends; the agent is killed then if it still runs."""
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    for name, text in (files or {}).items():
        (workspace / name).write_text(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(Reply([tool_use_block(call_id, "bash", {"command": command})], "tool_use"))
        env.update(
            ANTHROPIC_API_KEY=API_KEY, ANTHROPIC_BASE_URL=server.base_url, AGENT_CLI_HOME=str(home)
        )
        agent = subprocess.Popen(
            [*PRINT_MODE, "run the long job"],
            cwd=workspace,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            yield PrintRun(agent, server, workspace, home, env)
        finally:
            if agent.poll() is None:
                agent.kill()
            agent.wait()


def wait_for(check, what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


def is_running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def wait_for_the_command(workspace: Path) -> tuple[int, int]:
    """The pids of the command's shell and of its background `sleep`, once both run."""

    def has_started() -> bool:
        files = (workspace / "bg.pid", workspace / "shell.pid")
        return all(f.is_file() and f.read_text().strip() for f in files)

    wait_for(has_started, "the command to start")
    return int((workspace / "shell.pid").read_text()), int((workspace / "bg.pid").read_text())


def process_group_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[2])


def kill_leftovers(*pids: int) -> None:
    """Never leave a `sleep 1000` behind, even when a check failed."""
    for pid in pids:
        if is_running(pid):
            os.kill(pid, signal.SIGKILL)


def tool_results(home: Path) -> list[dict]:
    found = []
    for transcript in (home / "transcripts").glob("*.jsonl"):
        for line in transcript.read_text().splitlines():
            message = (json.loads(line).get("payload") or {}).get("message") or {}
            content = message.get("content")
            if isinstance(content, list):
                found += [b for b in content if b.get("type") == "tool_result"]
    return found


@pytest.mark.parametrize("signal_number", [signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT])
def test_a_signal_to_agent_cli_ends_the_command_group_and_records_it(
    tmp_path: Path, signal_number: int
) -> None:
    with running_a_command(tmp_path, "toolu_sleep", PRINTING_COMMAND) as run:
        shell_pid, background_pid = wait_for_the_command(run.workspace)
        group = process_group_of(shell_pid)
        assert is_running(shell_pid) and is_running(background_pid)
        run.agent.send_signal(signal_number)
        returncode = run.agent.wait(timeout=60)
    try:
        assert returncode == 128 + signal_number
        # the group was signalled before agent-cli exited; its processes end on their own
        # time (a loaded machine: CI read one still alive right after the exit once)
        wait_for(lambda: not is_group_alive(group), "the command's group to end", 20)
        assert not is_running(shell_pid) and not is_running(background_pid)
    finally:
        kill_leftovers(shell_pid, background_pid)
    [result] = tool_results(run.home)
    assert result["tool_use_id"] == "toolu_sleep" and result["is_error"] is True
    name = signal.Signals(signal_number).name
    assert result["content"] == (
        f"Stopped: agent-cli was ended by {name} while this tool ran; the command and its "
        "whole process group were ended. Output so far follows.\ntick 1\ntick 2\n"
    )


def test_output_a_signal_kept_is_redacted_and_last_shows_it_after_continue(
    tmp_path: Path,
) -> None:
    """The output so far of a command SIGTERM stopped is redacted as any result is, and
    `/last` of the resumed session shows it (it said "no tool has run in this session
    yet")."""
    secret = "9f3c2a7b41d8e6f0a5c3b2d1e4f7a8c6"
    command = "echo started; cat .env; " + COMMAND
    files = {".env": f"DEPLOY_TOKEN={secret}\n"}
    with running_a_command(tmp_path, "toolu_env", command, files) as run:
        shell_pid, background_pid = wait_for_the_command(run.workspace)
        run.agent.send_signal(signal.SIGTERM)
        try:
            assert run.agent.wait(timeout=60) == 128 + signal.SIGTERM
        finally:
            kill_leftovers(shell_pid, background_pid)
        [result] = tool_results(run.home)
        assert "started\nDEPLOY_TOKEN=" in result["content"]
        assert secret not in result["content"]
        resumed = subprocess.run(
            [sys.executable, "-m", "agent_cli", "--continue"],
            cwd=run.workspace,
            env=run.env,
            input="/last\n",
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert resumed.returncode == 0, resumed.stderr
    assert "no tool has run" not in resumed.stdout
    assert "bash failed" in resumed.stdout
    assert "Stopped: agent-cli was ended by SIGTERM" in resumed.stdout
    assert "started\nDEPLOY_TOKEN=" in resumed.stdout and secret not in resumed.stdout


def test_sigkill_of_agent_cli_kills_the_running_command_group_and_resume_answers_the_call(
    tmp_path: Path,
) -> None:
    command = "sleep 1000 & echo $! > bg.pid; echo $$ > shell.pid; sleep 30; touch after"
    with running_a_command(tmp_path, "toolu_killed", command) as run:
        try:
            shell_pid, background_pid = wait_for_the_command(run.workspace)
            group = process_group_of(shell_pid)
            run.agent.kill()
            assert run.agent.wait(timeout=60) == -signal.SIGKILL
            wait_for(lambda: not is_group_alive(group), "the command's group to end", 20)
            assert not is_running(shell_pid) and not is_running(background_pid)
        finally:
            kill_leftovers(shell_pid, background_pid)
        assert not (run.workspace / "after").exists()  # and never can be: its shell is gone

        run.server.enqueue(Reply([text_block("picked up where we were")]))
        resumed = subprocess.run(
            [*PRINT_MODE, "carry on", "--continue"],
            cwd=run.workspace,
            env=run.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert resumed.returncode == 0, resumed.stderr
    assert "picked up where we were" in resumed.stdout
    [result] = tool_results(run.home)  # the dangling call, answered once by the resume
    assert result["tool_use_id"] == "toolu_killed" and result["is_error"] is True
    assert "The result was not recorded" in result["content"]


@pytest.mark.e2e
def test_closing_the_terminal_ends_the_running_command_and_records_it(terminals, tmp_path) -> None:
    from e2e_support import ReplDriver, agent_cli_argv, build_env

    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    terminal = terminals.open(build_env(home))
    terminal.start([*agent_cli_argv(), "--yes"], cwd=workspace)
    repl = ReplDriver(terminal)
    repl.wait_for_prompt()
    repl.send(f"run {PRINTING_COMMAND}")
    shell_pid, background_pid = wait_for_the_command(workspace)
    terminal.kill()  # the terminal goes away: agent-cli gets SIGHUP
    try:
        wait_for(lambda: not is_running(background_pid), "the background sleep to end", 30)
        wait_for(lambda: bool(tool_results(home)), "the stopped command to be recorded", 30)
        assert not is_running(shell_pid)
    finally:
        kill_leftovers(shell_pid, background_pid)
    [result] = tool_results(home)
    assert "Stopped: agent-cli was ended by SIGHUP while this tool ran" in result["content"]
    assert result["content"].endswith("Output so far follows.\ntick 1\ntick 2\n")


@pytest.mark.e2e
def test_ctrl_backslash_while_a_command_runs_ends_it_and_records_it(terminals, tmp_path) -> None:
    """Ctrl-\\ is the terminal's other quit key (SIGQUIT): it killed agent-cli outright
    ("Quit", no record, its pane dead by signal 3). Now it quits like SIGTERM: the command
    and its group ended, the call recorded as stopped, exit 131."""
    from e2e_support import ReplDriver, agent_cli_argv, build_env

    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    terminal = terminals.open(build_env(home))
    terminal.start([*agent_cli_argv(), "--yes"], cwd=workspace)
    repl = ReplDriver(terminal)
    repl.wait_for_prompt()
    repl.send(f"run {COMMAND}")
    shell_pid, background_pid = wait_for_the_command(workspace)
    terminal.press("C-\\")
    try:
        assert terminal.wait_for_exit() == 128 + signal.SIGQUIT
        wait_for(lambda: not is_running(background_pid), "the background sleep to end", 30)
        assert not is_running(shell_pid)
    finally:
        kill_leftovers(shell_pid, background_pid)
    [result] = tool_results(home)
    assert "Stopped: agent-cli was ended by SIGQUIT while this tool ran" in result["content"]


@pytest.mark.e2e
def test_ctrl_backslash_while_the_model_answers_ends_agent_cli_cleanly(terminals, tmp_path) -> None:
    """The same key while the request waits for the model: a clean exit 131 and a
    session that resumes (the user's message is kept)."""
    from scene_support import open_scene

    with open_scene(tmp_path, terminals, API_KEY, {}) as scene:
        scene.server.enqueue(Reply([text_block("too late")], first_token_delay=60))
        scene.repl.send("a question that takes long")
        wait_for(lambda: len(scene.server.requests) == 1, "the request to reach the model")
        scene.repl.terminal.press("C-\\")
        assert scene.repl.terminal.wait_for_exit() == 128 + signal.SIGQUIT
        screen = scene.repl.terminal.screen()
    assert "resume with: agent-cli --resume" in screen
    transcript = next((tmp_path / "home" / "transcripts").glob("*.jsonl")).read_text()
    assert "a question that takes long" in transcript


def test_a_signal_while_a_command_starts_is_raised_once_the_caller_can_end_it() -> None:
    from agent_cli.errors import TerminationRequested
    from agent_cli.termination import (
        HANDLED_SIGNALS,
        install_termination_handlers,
        termination_held,
    )

    saved = {number: signal.getsignal(number) for number in HANDLED_SIGNALS}
    install_termination_handlers()
    try:
        with pytest.raises(TerminationRequested) as raised, termination_held() as release:
            os.kill(os.getpid(), signal.SIGTERM)  # lands "inside Popen": only noted
            for _ in range(1000):  # give the interpreter many chances to run the handler
                pass
            noted_without_raising = True
            release()
        assert noted_without_raising and raised.value.signal_number == signal.SIGTERM
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)
