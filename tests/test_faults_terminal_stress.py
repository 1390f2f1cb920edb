"""Closing the terminal at random moments, under load: agent-cli always ends, soundly.

Issue 21 (item 9): the hang was seen three times in a day, on a 2-core machine at load
5-9, when the tmux server was killed after a turn (the cause and the exact moment are
reproduced in `test_faults_terminal.py`). Here the terminal (the whole tmux server) is
killed at random moments of start-up, a turn against the fake API (streaming, the bash
command running), an approval question, just after a turn (the gauge redraw) and the
shutdown, with two busy processes loading the CPU; each time the process must be gone
within the shutdown deadline plus slack, the command it ran must be gone, nothing that
was not approved may have run, and every transcript must resume into a valid history.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from faults_support import assert_history_is_valid
from session_support import make_session
from tools_support import is_process_running

from agent_cli.provider.offline import OfflineProvider
from agent_cli.repl.main import SHUTDOWN_DEADLINE_SECONDS

API_KEY = "sk-ant-terminal-stress-FAKE-3"
GONE_WITHIN_SECONDS = SHUTDOWN_DEADLINE_SECONDS + 5.0  # the deadline, and a loaded machine


def wait_until(check: Callable[[], bool], what: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() >= deadline:
            raise AssertionError(f"gave up after {seconds:g}s waiting for {what}")
        time.sleep(0.05)


PHASES = ("start-up", "turn", "approval", "after a turn", "shutdown")
ROUNDS_PER_PHASE = 4
TIME_BUDGET_SECONDS = 240.0  # rounds stop starting after this; most take a few seconds
# busy until its parent is gone: a test run killed by a signal (no teardown) must not
# leave two cores burning (two leaked loops burned for an hour after a `pkill pytest`)
BUSY_LOOP = f"import os\nwhile os.getppid() == {os.getpid()}: pass"


@pytest.fixture()
def cpu_load() -> Iterator[None]:
    """Two busy processes, as on the loaded machine where the hang was seen."""
    busy = [subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(2)]
    try:
        yield
    finally:
        for process in busy:
            process.kill()
            process.wait()


class Round:
    """One agent-cli in a fresh terminal, talking to its own fake API; `run(phase)` takes
    it to a random moment of `phase` and kills the terminal there."""

    def __init__(self, terminals, home: Path, workspace: Path, server, number: int) -> None:
        from e2e_support import ReplDriver, agent_cli_argv, build_env

        self.number, self.server, self.workspace = number, server, workspace
        env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url})
        self.terminal = terminals.open(env)
        self._argv = agent_cli_argv()
        self.repl = ReplDriver(self.terminal)
        self.command_pid_file = workspace / f"command-{number}.pid"
        self.approved_file = workspace / f"approved-{number}"

    def run(self, phase: str, rng: random.Random) -> int:
        """Start agent-cli, reach a random moment of `phase`, kill the terminal; its pid."""
        flags = [] if phase == "approval" else ["--yes"]
        self.terminal.start([*self._argv, *flags], cwd=self.workspace)
        pid = self.terminal.program_pid()
        getattr(self, "_" + phase.replace(" ", "_").replace("-", "_"))(rng)
        self.terminal.kill()
        return pid

    def _start_up(self, rng: random.Random) -> None:
        pause_until(time.monotonic() + rng.uniform(0.0, 3.0))

    def _turn(self, rng: random.Random) -> None:
        command = f"echo $$ > {self.command_pid_file.name}; sleep 60; echo slept"
        self.server.enqueue(
            Reply(
                [
                    text_block("Running it."),
                    tool_use_block("toolu_t", "bash", {"command": command}),
                ],
                "tool_use",
            ),
            Reply([text_block("It slept.")]),
        )
        self.repl.wait_for_prompt(timeout=60)
        self.repl.send("run the sleeper")
        pause_until(time.monotonic() + rng.uniform(0.0, 2.5))

    def _approval(self, rng: random.Random) -> None:
        command = f"touch {self.approved_file.name}"
        self.server.enqueue(
            Reply([tool_use_block("toolu_a", "bash", {"command": command})], "tool_use"),
            Reply([text_block("Touched.")]),
        )
        self.repl.wait_for_prompt(timeout=60)
        self.repl.send("touch the file")
        self.terminal.wait_for(lambda screen: "allow?" in screen, "the question", timeout=60)
        pause_until(time.monotonic() + rng.uniform(0.0, 0.5))

    def _after_a_turn(self, rng: random.Random) -> None:
        self.repl.wait_for_prompt(timeout=60)
        self.repl.submit("hello there", timeout=60)  # the gauge is redrawn right after
        pause_until(time.monotonic() + rng.uniform(0.0, 0.5))

    def _shutdown(self, rng: random.Random) -> None:
        self.repl.wait_for_prompt(timeout=60)
        self.repl.submit("hello there", timeout=60)
        self.repl.send("/quit")
        pause_until(time.monotonic() + rng.uniform(0.0, 0.4))


def wait_for_process_to_end(pid: int, what: str, seconds: float) -> None:
    wait_until(lambda: not is_process_running(pid), f"{what} to end", seconds)


def pause_until(moment: float) -> None:
    """The random moment to kill at: the one wait here that is a time and not a condition."""
    while time.monotonic() < moment:
        time.sleep(0.01)


def assert_every_transcript_resumes_valid(home: Path, workspace: Path) -> None:
    for transcript in sorted((home / "transcripts").glob("*.jsonl")):
        session = make_session(workspace, OfflineProvider(), resume=transcript.stem)
        try:
            assert_history_is_valid(session)
        finally:
            session.close()


@pytest.mark.e2e
@pytest.mark.serial  # it loads the CPU on purpose: tests beside it would pass their bounds
@pytest.mark.timeout(TIME_BUDGET_SECONDS + 180)
def test_closing_the_terminal_at_random_moments_under_load_always_ends_agent_cli_soundly(
    terminals, isolated_home: Path, tmp_path: Path, cpu_load: None
) -> None:
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    schedule = [phase for phase in PHASES for _ in range(ROUNDS_PER_PHASE)]
    rng.shuffle(schedule)
    started = time.monotonic()
    done: list[str] = []
    for number, phase in enumerate(schedule):
        if time.monotonic() - started > TIME_BUDGET_SECONDS:
            break
        where = f"round {number} ({phase}, seed {seed})"
        with start_fake_server(api_key=API_KEY) as server:
            this = Round(terminals, isolated_home, workspace, server, number)
            pid = this.run(phase, rng)
            closed_at = time.monotonic()
            wait_for_process_to_end(pid, f"agent-cli, {where}", GONE_WITHIN_SECONDS)
        if this.command_pid_file.exists() and this.command_pid_file.read_text().strip():
            command_pid = int(this.command_pid_file.read_text())  # its shell; it sleeps 60 s
            try:
                wait_for_process_to_end(command_pid, f"the command, {where}", 10)
            finally:
                if is_process_running(command_pid):
                    os.killpg(os.getpgid(command_pid), signal.SIGKILL)
        assert not this.approved_file.exists(), f"a command nobody approved ran, {where}"
        assert_every_transcript_resumes_valid(isolated_home, workspace)
        done.append(f"{phase}: {time.monotonic() - closed_at:.1f}s")
    assert len(done) >= len(PHASES), f"too few rounds ran in the time budget: {done}"
