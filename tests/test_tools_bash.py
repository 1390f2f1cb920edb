"""bash: real subprocesses, their exit codes, output, timeouts, caps and process groups."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from tools_support import FakeArtifactStore, RecordingAsker, is_process_running, make_toolbox

from agent_cli.tools import PermissionDecision
from agent_cli.tools.output import ToolInterrupted


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def read_pids(workspace: Path, *names: str) -> list[int]:
    return [int((workspace / name).read_text()) for name in names]


def wait_for_file(path: Path, limit_seconds: float = 30.0) -> bool:
    """Bounded wait for a file a child process writes; used only to time a signal."""
    deadline = time.monotonic() + limit_seconds
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return True
        time.sleep(0.02)
    return False


def test_bash_reports_the_exit_code_and_combined_output(workspace: Path):
    outcome = make_toolbox(workspace).run("bash", {"command": "echo out; echo err >&2; exit 3"})
    assert not outcome.is_error
    assert outcome.content == "Exit code: 3\nout\nerr\n"
    assert outcome.summary == "exit 3, 8 B"


def test_bash_runs_in_the_workspace_directory(workspace: Path):
    outcome = make_toolbox(workspace).run("bash", {"command": "pwd"})
    assert outcome.content == f"Exit code: 0\n{workspace.resolve()}\n"


def test_bash_says_when_there_was_no_output(workspace: Path):
    outcome = make_toolbox(workspace).run("bash", {"command": "true"})
    assert outcome.content == "Exit code: 0\n(no output)"


def test_bash_gives_the_command_no_stdin(workspace: Path):
    outcome = make_toolbox(workspace).run("bash", {"command": "cat; echo after"})
    assert outcome.content == "Exit code: 0\nafter\n"


def test_bash_decodes_invalid_utf8_output_with_replacement(workspace: Path):
    outcome = make_toolbox(workspace).run("bash", {"command": r"printf 'caf\xe9\n'"})
    assert outcome.content == "Exit code: 0\ncaf\ufffd\n"


def test_bash_reports_a_command_killed_by_a_signal(workspace: Path):
    outcome = make_toolbox(workspace).run("bash", {"command": "kill -9 $$"})
    assert outcome.content.startswith("Killed by signal 9.")


def test_bash_hides_the_anthropic_api_key_from_commands(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-should-never-show")
    monkeypatch.setenv("VISIBLE_SETTING", "shown")
    outcome = make_toolbox(workspace).run(
        "bash", {"command": 'echo "${ANTHROPIC_API_KEY:-unset} $VISIBLE_SETTING"'}
    )
    assert outcome.content == "Exit code: 0\nunset shown\n"


def test_bash_with_an_empty_command_is_an_error(workspace: Path):
    outcome = make_toolbox(workspace).run("bash", {"command": "   "})
    assert outcome.is_error
    assert "command is empty" in outcome.content


def test_bash_timeout_ends_the_whole_process_group(workspace: Path):
    command = "echo $$ > leader.pid; sleep 30 & echo $! > child.pid; echo started; sleep 30"
    outcome = make_toolbox(workspace).run("bash", {"command": command, "timeout_seconds": 2})
    assert outcome.is_error
    assert outcome.content.startswith("Timed out after 2 s; the command and its whole process")
    assert "started" in outcome.content
    assert "timeout_seconds" in outcome.content
    assert outcome.summary.startswith("timed out")
    for pid in read_pids(workspace, "leader.pid", "child.pid"):
        assert not is_process_running(pid)


def test_bash_timeout_also_ends_children_that_ignore_sigterm(workspace: Path):
    command = "(trap '' TERM; echo $BASHPID > stubborn.pid; sleep 30) & sleep 30"
    outcome = make_toolbox(workspace).run("bash", {"command": command, "timeout_seconds": 2})
    assert outcome.is_error
    (stubborn,) = read_pids(workspace, "stubborn.pid")
    assert not is_process_running(stubborn)


def test_bash_returns_when_the_command_exits_even_if_a_background_child_holds_output(
    workspace: Path,
):
    command = "sleep 30 & echo $! > bg.pid; echo done"
    outcome = make_toolbox(workspace).run("bash", {"command": command, "timeout_seconds": 20})
    (background,) = read_pids(workspace, "bg.pid")
    try:
        assert not outcome.is_error
        assert outcome.content == "Exit code: 0\ndone\n"
    finally:
        os.kill(background, signal.SIGKILL)


def test_bash_output_cap_stops_an_endless_command(workspace: Path):
    toolbox = make_toolbox(workspace, max_output_bytes=10_000, artifact_threshold_bytes=1_000_000)
    command = "echo $$ > leader.pid; yes"
    outcome = toolbox.run("bash", {"command": command, "timeout_seconds": 30})
    assert outcome.is_error
    assert outcome.content.startswith("Output reached the 9.8 KB cap; the command and its whole")
    assert outcome.content.count("y\n") == 5_000
    assert outcome.summary.startswith("output cap hit")
    (leader,) = read_pids(workspace, "leader.pid")
    assert not is_process_running(leader)


def test_ctrl_c_during_bash_ends_the_process_group_then_propagates(workspace: Path):
    command = "echo $$ > leader.pid; sleep 30 & echo $! > child.pid; sleep 30"
    child_pid_file = workspace / "child.pid"

    def interrupt_once_started() -> None:
        if wait_for_file(child_pid_file):
            os.kill(os.getpid(), signal.SIGINT)

    interrupter = threading.Thread(target=interrupt_once_started)
    interrupter.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            make_toolbox(workspace).run("bash", {"command": command, "timeout_seconds": 60})
    finally:
        interrupter.join()
    for pid in read_pids(workspace, "leader.pid", "child.pid"):
        assert not is_process_running(pid)


def interrupt_when_written(path: Path) -> threading.Thread:
    """Press Ctrl-C (a real SIGINT) once the command has written `path`."""

    def interrupt() -> None:
        if wait_for_file(path):
            os.kill(os.getpid(), signal.SIGINT)

    interrupter = threading.Thread(target=interrupt)
    interrupter.start()
    return interrupter


def run_until_ctrl_c(toolbox, command: str, pid_file: Path) -> ToolInterrupted:
    interrupter = interrupt_when_written(pid_file)
    try:
        with pytest.raises(ToolInterrupted) as caught:
            toolbox.run("bash", {"command": command, "timeout_seconds": 60})
    finally:
        interrupter.join()
    return caught.value


def test_ctrl_c_during_bash_keeps_what_the_command_printed_as_an_interrupted_result(
    workspace: Path,
):
    command = "echo first; echo '  second'; echo $$ > leader.pid; sleep 30"
    interrupt = run_until_ctrl_c(make_toolbox(workspace), command, workspace / "leader.pid")

    outcome = interrupt.outcome
    assert outcome is not None and outcome.is_error
    assert outcome.content == (
        "Interrupted by the user (Ctrl-C) while it ran; the command and its whole process "
        "group were ended. Output so far follows.\nfirst\n  second\n"
    )
    assert outcome.summary == "interrupted, 15 B"
    (leader,) = read_pids(workspace, "leader.pid")
    assert not is_process_running(leader)


def test_the_output_kept_at_ctrl_c_is_redacted_and_spilled_like_any_result(workspace: Path):
    secret = "sk-ant-interrupted-0123456789abcdef"
    artifacts = FakeArtifactStore()
    toolbox = make_toolbox(
        workspace,
        artifacts=artifacts,
        artifact_threshold_bytes=400,
        secret_environment={"ANTHROPIC_API_KEY": secret},
    )
    command = f"echo {secret}; seq 1 300; echo $$ > leader.pid; sleep 30"
    outcome = run_until_ctrl_c(toolbox, command, workspace / "leader.pid").outcome

    assert outcome is not None and outcome.artifact_pointer is not None
    assert secret not in outcome.content
    stored = artifacts.saved[outcome.artifact_pointer].decode()
    assert secret not in stored and stored.startswith("Interrupted by the user (Ctrl-C)")
    assert stored.endswith("\n299\n300\n")


def test_the_last_line_before_ctrl_c_is_kept_whole_with_an_api_key_known(workspace: Path):
    # twenty-third outside test: "trapped" came back as "trappe", "line2" as "line"
    for secret in ("test-key", "sk-ant-api03-Zq9w8e7r6t5y4u3i2o1pLmNbVcXz_AbCdEf"):
        toolbox = make_toolbox(workspace, secret_environment={"ANTHROPIC_API_KEY": secret})
        command = "echo trapped; printf 'line1\\nline2\\n'; echo $$ > leader.pid; sleep 30"
        outcome = run_until_ctrl_c(toolbox, command, workspace / "leader.pid").outcome
        assert outcome is not None
        assert outcome.content.endswith("follows.\ntrapped\nline1\nline2\n"), secret
        (workspace / "leader.pid").unlink()


def test_an_ending_that_may_begin_the_key_is_held_back_and_said_at_ctrl_c(workspace: Path):
    secret = "sk-ant-api03-Zq9w8e7r6t5y4u3i2o1pLmNbVcXz_AbCdEf"
    toolbox = make_toolbox(workspace, secret_environment={"ANTHROPIC_API_KEY": secret})
    command = f"printf 'found: {secret[:20]}'; echo $$ > leader.pid; sleep 30"
    outcome = run_until_ctrl_c(toolbox, command, workspace / "leader.pid").outcome
    assert outcome is not None and secret[:6] not in outcome.content
    assert outcome.content.endswith(
        "follows.\nfound: \n[20 characters printed last, where the command was stopped, "
        "held back: they could begin a secret whose rest never came]"
    )


def test_a_timed_out_command_says_what_it_held_back_before_the_timeout_advice(
    workspace: Path,
):
    toolbox = make_toolbox(workspace, secret_environment={"ANTHROPIC_API_KEY": "test-key"})
    command = "printf 'abc\\nxyz dGVz'; sleep 30"
    outcome = toolbox.run("bash", {"command": command, "timeout_seconds": 1})
    assert outcome.content.endswith(
        "follows.\nabc\nxyz \n[4 characters printed last, where the command was stopped, "
        "held back: they could begin a secret whose rest never came]\n[Pass a larger "
        "timeout_seconds (at most 600) or split the work into shorter commands.]"
    )


def test_ctrl_c_while_the_command_starts_still_keeps_its_output_and_ends_it(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
):
    """A Ctrl-C that lands as `Popen` returns, before the tool's handler is in place (a
    loaded machine: the command had already written its pid file), escaped as a bare
    KeyboardInterrupt: the output read so far was lost, and the suite's worker died."""
    import subprocess

    from agent_cli.tools import shell

    real_popen = subprocess.Popen

    def popen_then_ctrl_c(*args, **kwargs):
        process = real_popen(*args, **kwargs)
        assert wait_for_file(workspace / "leader.pid")
        os.kill(os.getpid(), signal.SIGINT)  # lands here, inside the start
        return process

    monkeypatch.setattr(shell.subprocess, "Popen", popen_then_ctrl_c)
    command = "echo started; echo $$ > leader.pid; sleep 30"
    with pytest.raises(ToolInterrupted) as caught:
        make_toolbox(workspace).run("bash", {"command": command, "timeout_seconds": 60})
    outcome = caught.value.outcome
    assert outcome is not None and outcome.content.endswith("Output so far follows.\nstarted\n")
    (leader,) = read_pids(workspace, "leader.pid")
    assert not is_process_running(leader)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_the_command_sees_no_trace_of_its_supervisor(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
):
    """Default SIGPIPE (Python ignores it), no LC_CTYPE added by Python's locale coercion,
    and no extra descriptor (the supervisor's lifeline) in the command's shell."""
    for name in ("LC_ALL", "LC_CTYPE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C")
    command = (
        "yes | head -1 > /dev/null; echo ${PIPESTATUS[0]} ${LC_CTYPE-unset}; ls /proc/$$/fd; :"
    )
    outcome = make_toolbox(workspace).run("bash", {"command": command})
    assert outcome.content == "Exit code: 0\n141 unset\n0\n1\n2\n"


@pytest.mark.parametrize(
    ("command", "words"),
    [("echo a\x00b", "contains a NUL character"), ("echo \ud800", "contains U+D800")],
)
def test_a_command_no_shell_can_be_given_is_refused_before_anyone_is_asked(
    workspace: Path, command: str, words: str
):
    """Seventh attack: `echo a^@b` was put to the user, then failed as "ValueError:
    embedded null byte"."""
    asker = RecordingAsker(PermissionDecision.ALLOW_ONCE)
    outcome = make_toolbox(workspace, auto_approve=False, ask_permission=asker).run(
        "bash", {"command": command}
    )
    assert outcome.is_error and words in outcome.content and "nothing was run" in outcome.content
    assert "Error" not in outcome.content  # no Python error's name
    assert asker.requests == []
