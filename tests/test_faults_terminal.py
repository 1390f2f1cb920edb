"""Whenever its terminal goes away, agent-cli ends within a few seconds, its records sound.

Issue 21 (item 9): a REPL whose tmux server was killed right after a turn lived on for an
hour, SIGHUP and SIGTERM ignored, the main thread idle in the prompt's event loop. The
cause: the termination handler raised while prompt_toolkit's asyncio loop ran a callback
(a redraw); asyncio caught the exception and prompt_toolkit's handler waited for Enter on
the terminal that was gone, with the signal already spent. The tests below:

- reproduce that moment exactly (a signal during a prompt redraw) in a real process;
- hang the shutdown on purpose (a session whose close never returns) and check that the
  process still ends by the deadline, or at once on a second signal;
- kill the terminal (the whole tmux server) at random moments of start-up, a turn against
  the fake API, an approval question, just after a turn and the shutdown, under CPU load,
  and check each time that the process is gone within a few seconds, that no command it
  ran is left, and that every transcript resumes into a valid history.
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

PROJECT_ROOT = Path(__file__).resolve().parents[1]
TESTS = PROJECT_ROOT / "tests"
API_KEY = "sk-ant-terminal-FAKE-9"
# A process must be gone this long after its terminal or its signal: the deadline, plus
# room for a loaded machine to schedule it.
GONE_WITHIN_SECONDS = SHUTDOWN_DEADLINE_SECONDS + 5.0


def wait_until(check: Callable[[], bool], what: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() >= deadline:
            raise AssertionError(f"gave up after {seconds:g}s waiting for {what}")
        time.sleep(0.05)


def start_python(script: str, *args: str, log: Path, **options) -> subprocess.Popen[str]:
    """`python -c script args` with the project and the tests importable; stderr to `log`."""
    env = {**os.environ, "PYTHONPATH": f"{PROJECT_ROOT}{os.pathsep}{TESTS}"}
    options.setdefault("stdout", subprocess.PIPE)
    return subprocess.Popen(
        [sys.executable, "-c", script, *args], env=env, stderr=log.open("w"), text=True, **options
    )


def tail(path: Path, size: int = 3_000) -> str:
    return path.read_text(errors="replace")[-size:]


# --- the moment itself: a signal while the prompt's loop redraws -----------------------

# A prompt on a pipe whose toolbar gauge, on a redraw asked for from another thread (as
# the gauge's worker does), sends SIGHUP to its own process: the handler then runs
# inside the redraw, a callback of the prompt's asyncio loop.
PROMPT_CHILD = """
import os, resource, signal, sys, threading
from pathlib import Path
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from agent_cli.errors import TerminationRequested
from agent_cli.repl.commands import command_summaries
from agent_cli.repl.prompt import PromptReader
from agent_cli.termination import install_termination_handlers

resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))  # the old loop grew without end
install_termination_handlers()
redrawing = threading.Event()

def gauge():
    if redrawing.is_set():
        redrawing.clear()
        os.kill(os.getpid(), signal.SIGHUP)
    return None

def redraw():
    redrawing.set()
    reader.refresh()

with create_pipe_input() as pipe:
    reader = PromptReader(
        Path(sys.argv[1]), command_summaries, terminal_input=pipe, terminal_output=DummyOutput()
    )
    threading.Timer(0.3, redraw).start()
    try:
        reader.read_line(gauge)
    except TerminationRequested as stop:
        print("ended by", stop.signal_number, flush=True)
"""


def test_a_signal_while_the_prompt_redraws_ends_the_prompt_instead_of_waiting_for_enter(
    tmp_path: Path,
) -> None:
    log = tmp_path / "stderr.txt"
    child = start_python(PROMPT_CHILD, str(tmp_path / "history"), log=log)
    try:
        out, _ = child.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        pytest.fail(f"the prompt never ended; it printed:\n{tail(log)}")
    assert child.returncode == 0, tail(log)
    assert out == f"ended by {signal.SIGHUP.value}\n"
    assert "Unhandled exception" not in log.read_text()


# --- a shutdown that waits for ever still ends -------------------------------------------

# The real `main` on piped input, with a session whose close never returns: the REPL waits
# for a line; SIGTERM ends the wait, and the shutdown hangs in close().
STUCK_CLOSE_CHILD = """
import sys, threading
from pathlib import Path
from types import SimpleNamespace
from repl_fakes import FakeBackend, FakeSession
from agent_cli.repl.main import main

folder = Path(sys.argv[1])

class SessionWhoseCloseNeverReturns(FakeSession):
    def close(self):
        (folder / "closing").write_text("yes")
        threading.Event().wait()

backend = FakeBackend(new_session=lambda n: SessionWhoseCloseNeverReturns(session_id=f"stuck-{n}"))
paths = SimpleNamespace(config_file=folder / "config.toml", history_file=folder / "history")
sys.exit(main([], backend_factory=backend.factory, paths=paths, env={}))
"""


def test_a_shutdown_that_hangs_still_ends_by_the_deadline_with_the_signals_code(
    tmp_path: Path,
) -> None:
    log, out = tmp_path / "stderr.txt", tmp_path / "stdout.txt"
    child = start_python(
        STUCK_CLOSE_CHILD, str(tmp_path), log=log, stdin=subprocess.PIPE, stdout=out.open("w")
    )
    try:
        wait_until(lambda: "/help for commands" in out.read_text(), "the banner", 60)
        signalled_at = time.monotonic()
        child.send_signal(signal.SIGTERM)
        wait_until(lambda: (tmp_path / "closing").exists(), "the shutdown to reach close()", 30)
        code = child.wait(timeout=GONE_WITHIN_SECONDS + 30)
        took = time.monotonic() - signalled_at
    finally:
        if child.poll() is None:
            child.kill()
        child.communicate()
    assert code == 128 + signal.SIGTERM, tail(log)
    assert SHUTDOWN_DEADLINE_SECONDS - 0.5 <= took < GONE_WITHIN_SECONDS


# The handlers with a deadline far away, in a process of their own: a second signal right
# after the first is ignored (a terminal can hang up twice); one after the grace ends the
# process at once, with 128 + its number.
LATER_SIGNAL_CHILD = """
import os, signal, time
from agent_cli.errors import TerminationRequested
from agent_cli.termination import LATER_SIGNAL_GRACE_SECONDS, install_termination_handlers

install_termination_handlers(exit_deadline_seconds=60)
try:
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(5)
    print("the first signal was not raised", flush=True)
except TerminationRequested as stop:
    first_at = time.monotonic()
    print("first", stop.signal_number, flush=True)
os.kill(os.getpid(), signal.SIGHUP)
print("a second signal at once was ignored", flush=True)
while time.monotonic() - first_at <= LATER_SIGNAL_GRACE_SECONDS:
    time.sleep(0.01)
os.kill(os.getpid(), signal.SIGTERM)
time.sleep(5)
print("a later signal did not end the process", flush=True)
"""


def test_a_second_signal_ends_the_process_at_once_unless_it_follows_the_first_closely(
    tmp_path: Path,
) -> None:
    log = tmp_path / "stderr.txt"
    child = start_python(LATER_SIGNAL_CHILD, log=log)
    out, _ = child.communicate(timeout=60)
    assert out.splitlines() == [
        f"first {signal.SIGTERM.value}",
        "a second signal at once was ignored",
    ]
    assert child.returncode == 128 + signal.SIGTERM, tail(log)


# --- the terminal goes away at random moments, under load --------------------------------

PHASES = ("start-up", "turn", "approval", "after a turn", "shutdown")
ROUNDS_PER_PHASE = 4
TIME_BUDGET_SECONDS = 240.0  # rounds stop starting after this; most take a few seconds
BUSY_LOOP = "while True: pass"


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
