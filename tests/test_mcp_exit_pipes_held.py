"""A stdio MCP server whose own process exits while a process it left running holds its
stdout open (`bash -c "sleep 300 & exec server"`, as wrapper scripts do).

Found by an outside tester: the exit was noticed only by the end of the server's stdout,
which the `sleep` held, so a call in flight waited its whole timeout (60 s: "got no answer
in 60 s") and a server that exited once ready stayed "ready", its tools offered. Each test
runs the hand-written hostile server (`mcp_fixtures/hostile_server.py`) as a real process
through a real `bash`, through the hub, with timeouts far above the bounds it asserts.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import sys
import time
from pathlib import Path

import anyio
import pytest
from anyio.abc import Process
from tools_support import make_toolbox

from agent_cli.mcp_servers import process_exit
from agent_cli.mcp_servers.hub import McpHub
from agent_cli.mcp_servers.settings import McpServerSettings

HOSTILE = Path(__file__).parent / "mcp_fixtures" / "hostile_server.py"
SECRET = "ghp_hostileHELD0123456789abcdefXYZ"
# Every timeout of these servers: far above what a test allows itself, and below
# pytest-timeout's 120 s, so code without the fix fails on its own words.
LONG = 90.0
BOUND = 30.0  # what a test allows: the bug took the whole timeout


def wrapped(
    name: str, script: str, left: Path, holds_stdin: bool = False, timeout: float = LONG
) -> McpServerSettings:
    """A server run as `bash -c`, which first leaves a `sleep` running in the background
    (holding the server's stdout and stderr; with `holds_stdin`, its stdin too, which bash
    otherwise gives /dev/null) and writes its pid to `left`; `timeout` is its calls'."""
    sleep = "{ sleep 300 <&3 & } 3<&0;" if holds_stdin else "sleep 300 &"
    leave = f"{sleep} echo $! > {shlex.quote(str(left))}; "
    return McpServerSettings(
        name,
        command="bash",
        args=("-c", leave + script),
        env={"HOSTILE_SECRET": SECRET},
        timeout=timeout,
        startup_timeout=LONG,
    )


def hostile(mode: str) -> str:
    return f"exec {shlex.quote(sys.executable)} {shlex.quote(str(HOSTILE))} {mode}"


def _state(hub: McpHub, name: str):
    return next(state for state in hub.states() if state.name == name)


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting for its reaper does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def _assert_ended(left: Path) -> None:
    """The `sleep` the server left behind was stopped with it."""
    pid = int(left.read_text())
    deadline = time.monotonic() + BOUND
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid), f"the process the server left behind ({pid}) still runs"


@pytest.fixture(params=["pidfd", "polled"])
def exit_watch(request, monkeypatch) -> str:
    """Each test twice: the exit watched through a pidfd, and polled as where there are
    none (then it must not depend on the pidfd path)."""
    if request.param == "polled":
        monkeypatch.delattr(os, "pidfd_open", raising=False)
    elif not hasattr(os, "pidfd_open"):
        pytest.skip("no pidfds on this OS")
    return str(request.param)


def test_a_call_fails_at_once_when_its_server_dies_while_a_child_holds_its_stdout(
    tmp_path, exit_watch
):
    """It said "a call of echo got no answer in 60 s; the server was stopped" after 60 s;
    with only stderr held it said at once that the connection broke, with the server's
    last stderr lines. Now both say the latter at once."""
    left = tmp_path / "left.pid"
    toolbox = make_toolbox(tmp_path, secret_environment={"HOSTILE_TOKEN": SECRET})
    hub = McpHub([wrapped("h", hostile("normal"), left)], tmp_path, toolbox.secret_forms)
    toolbox.attach_mcp(hub)
    hub.start()
    try:
        assert hub.wait_for_start(LONG) == []
        assert _state(hub, "h").status == "ready", _state(hub, "h").reason
        outcome, took = _call_that_breaks(toolbox)
        assert "got no answer" not in outcome.content and SECRET not in outcome.content
        assert took < BOUND, f"the call took {took:.1f} s"
        state = _state(hub, "h")
        assert state.status == "failed" and state.failed_in_call, state
        assert hub.offered_tools() == []
        _assert_ended(left)
    finally:
        hub.close()


def test_a_call_in_flight_when_what_is_left_holds_stdin_too_ends_at_its_timeout_saying_why(
    tmp_path, monkeypatch
):
    """The server's exit is no longer its end while its stdout is open (a launcher may
    have forked it and left: `test_mcp_launcher_exits.py`): it is asked with a ping. What
    it left running here holds its stdin too, so the ping is written and goes unanswered.
    Session 28 ended the server then, in `ANSWER_SECONDS`; but a healthy server busy with
    a long call cannot answer a ping either (round 29, `test_mcp_busy_server_ping.py`), so
    the call in flight now decides: it fails at its own timeout (4 s here; the ping's
    answer time made 0.5 s), saying that the ping went unanswered too and what the server
    last wrote to stderr, redacted."""
    monkeypatch.setattr("agent_cli.mcp_servers.hub.ANSWER_SECONDS", 0.5)
    left = tmp_path / "left.pid"
    toolbox = make_toolbox(tmp_path, secret_environment={"HOSTILE_TOKEN": SECRET})
    settings = wrapped("h", hostile("normal"), left, holds_stdin=True, timeout=4.0)
    hub = McpHub([settings], tmp_path, toolbox.secret_forms)
    toolbox.attach_mcp(hub)
    hub.start()
    try:
        assert hub.wait_for_start(LONG) == []
        outcome = toolbox.run("mcp__h__die", {})
        assert outcome.is_error
        assert (
            "a call of die got no answer in 4 s; the process agent-cli started for it had "
            "exited and the server did not answer a ping either; its last stderr lines: "
            "dying mid call: the backend refused [REDACTED]; the server was stopped"
        ) in outcome.content, outcome.content
        assert SECRET not in outcome.content
        state = _state(hub, "h")
        assert state.status == "failed" and not state.launcher_exited, state
        assert hub.offered_tools() == []
        _assert_ended(left)
    finally:
        hub.close()


def test_a_ready_server_that_exits_turns_failed_when_what_is_left_holds_stdin_too(tmp_path):
    """The same between calls (no call in flight to wait for): it turns failed once the
    ping goes unanswered, its tools no longer offered, the reason saying so (not that it
    exited: a launcher's exit looks the same) with its last stderr lines."""
    left = tmp_path / "left.pid"
    toolbox = make_toolbox(tmp_path, secret_environment={"HOSTILE_TOKEN": SECRET})
    settings = wrapped("dies", hostile("die_after_ready"), left, holds_stdin=True)
    hub = McpHub([settings], tmp_path, toolbox.secret_forms)
    toolbox.attach_mcp(hub)
    hub.start()
    try:
        unanswered = (
            "the process agent-cli started for it exited and the server did not answer a "
            "ping in 10 s, so agent-cli ended it; its last stderr lines: "
        )
        _assert_turns_failed_once_ready(hub, "dies", unanswered)
        _assert_ended(left)
    finally:
        hub.close()


def test_an_answer_written_just_before_the_server_exits_is_still_read(tmp_path, exit_watch):
    """Its exit, noticed now while its stdout is held open, must not cut off what it wrote
    before: its answer, behind 5,000 log messages still in the pipe when it has exited,
    arrives whole."""
    left = tmp_path / "left.pid"
    hub = McpHub([wrapped("h", hostile("exit_after_answer"), left)], tmp_path)
    hub.start()
    try:
        assert hub.wait_for_start(LONG) == []
        outcome = hub.call("h", "echo", {})
        assert outcome.failure is None, outcome.failure
        assert [item["text"] for item in outcome.items] == ["ok"]
        deadline = time.monotonic() + BOUND
        while _state(hub, "h").status == "ready" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _state(hub, "h").reason.startswith("it exited after it was ready")
        _assert_ended(left)
    finally:
        hub.close()


def test_a_server_that_exits_once_ready_while_a_child_holds_its_stdout_turns_failed(
    tmp_path, exit_watch
):
    """Run directly it turned failed at once ("it exited after it was ready; its last
    stderr lines: bye after ready"); wrapped it stayed ready with its tools offered."""
    left = tmp_path / "left.pid"
    toolbox = make_toolbox(tmp_path, secret_environment={"HOSTILE_TOKEN": SECRET})
    hub = McpHub(
        [wrapped("dies", hostile("die_after_ready"), left)], tmp_path, toolbox.secret_forms
    )
    toolbox.attach_mcp(hub)
    hub.start()
    try:
        _assert_turns_failed_once_ready(hub, "dies")
        assert not any(s["name"].startswith("mcp__") for s in toolbox.schemas())
        _assert_ended(left)
    finally:
        hub.close()


def test_a_server_that_exits_during_its_handshake_while_a_child_holds_its_stdout_fails_then(
    tmp_path, exit_watch
):
    """The same, before it was ready: it failed only at its startup_timeout, said to be
    one; now it fails when it exits, with its last stderr lines."""
    left = tmp_path / "left.pid"
    script = "echo 'no token configured' >&2; exit 3"
    hub = McpHub([wrapped("early", script, left)], tmp_path)
    hub.start()
    try:
        began = time.monotonic()
        assert hub.wait_for_start(LONG) == []
        took = time.monotonic() - began
        state = _state(hub, "early")
        assert state.status == "failed", state
        assert state.reason.startswith("it stopped before it was ready"), state.reason
        assert "its last stderr lines: no token configured" in state.reason
        assert "startup_timeout" not in state.reason
        assert took < BOUND, f"the start took {took:.1f} s to fail"
        _assert_ended(left)
    finally:
        hub.close()


def test_wait_exited_returns_once_the_process_exited_though_a_child_holds_its_stdout(
    tmp_path, exit_watch, monkeypatch
):
    """`process_exit.wait_exited` alone: it returns, and the process is gone by then."""
    if exit_watch == "pidfd":  # the pidfd must be what wakes it: a poll would come too late
        monkeypatch.setattr(process_exit, "POLL_SECONDS", 10 * BOUND)
    left = tmp_path / "left.pid"
    script = f"sleep 300 & echo $! > {shlex.quote(str(left))}; read line"
    gone: list[bool] = []

    async def watch(process: Process) -> None:
        await process_exit.wait_exited(process)
        gone.append(not _alive(process.pid))

    async def run() -> None:
        process = await anyio.open_process(["bash", "-c", script])
        try:
            with anyio.fail_after(BOUND):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(watch, process)
                    await anyio.wait_all_tasks_blocked()  # watching before bash can exit
                    assert process.stdin is not None
                    await process.stdin.send(b"exit now\n")
        finally:
            with contextlib.suppress(OSError, ValueError):
                os.kill(int(left.read_text()), signal.SIGKILL)
            await process.aclose()

    anyio.run(run)
    assert gone == [True]


def _assert_turns_failed_once_ready(
    hub: McpHub, name: str, reason: str = "it exited after it was ready"
) -> None:
    """`name` starts ready, then turns failed within `BOUND` (its reason beginning with
    `reason`: for having exited), its last stderr lines (redacted) in the reason and its
    tools no longer offered."""
    assert hub.wait_for_start(LONG) == []
    deadline = time.monotonic() + BOUND
    while _state(hub, name).status == "ready" and time.monotonic() < deadline:
        time.sleep(0.05)
    state = _state(hub, name)
    assert state.status == "failed", state
    assert state.reason.startswith(reason), state.reason
    assert "bye [REDACTED]" in state.reason
    assert hub.offered_tools() == []


def _call_that_breaks(toolbox) -> tuple:
    """Call `h`'s `die` (it writes a line to stderr and exits mid-call): the outcome, an
    error that names the broken connection and the last stderr lines, redacted, and the
    seconds it took."""
    began = time.monotonic()
    outcome = toolbox.run("mcp__h__die", {})
    took = time.monotonic() - began
    assert outcome.is_error
    assert "the MCP server h stopped: its connection broke during a call of die" in (
        outcome.content
    ), outcome.content
    assert "its last stderr lines: dying mid call: the backend refused [REDACTED]" in (
        outcome.content
    )
    return outcome, took
