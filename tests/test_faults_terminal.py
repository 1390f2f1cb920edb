"""Whenever its terminal goes away, agent-cli ends within a few seconds, its records sound.

Issue 21 (item 9): a REPL whose tmux server was killed right after a turn lived on for an
hour, SIGHUP and SIGTERM ignored, the main thread idle in the prompt's event loop. The
cause: the termination handler raised while prompt_toolkit's asyncio loop ran a callback
(a redraw); asyncio caught the exception and prompt_toolkit's handler waited for Enter on
the terminal that was gone, with the signal already spent. The tests below:

- reproduce that moment exactly (a signal during a prompt redraw) in a real process;
- hang the shutdown on purpose (a session whose close never returns) and check that the
  process still ends by the deadline;
- check that a second signal ends the process at once, unless it follows the first
  within the grace a double hang-up needs.
`test_faults_terminal_stress.py` kills the terminal at random moments, under load.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_cli.repl.main import SHUTDOWN_DEADLINE_SECONDS

PROJECT_ROOT = Path(__file__).resolve().parents[1]
TESTS = PROJECT_ROOT / "tests"
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
