"""The end-to-end terminals clean up after themselves (issue 23 item 19).

Each test terminal is a private tmux server whose socket lives in the user's tmux folder
(`/tmp/tmux-<uid>`); tmux's kill-server leaves that file behind, and hundreds piled up.
Here real tmux servers run real programs, and a real pytest run has a test fail with a
terminal open: afterwards neither the server nor its socket is left.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from e2e_support import build_env, require_tmux

pytestmark = pytest.mark.e2e

TESTS = Path(__file__).resolve().parent
WAITING_PROGRAM = [sys.executable, "-c", "input()"]  # runs until its terminal goes


def _server_answers(socket: Path) -> bool:
    done = subprocess.run(
        [require_tmux(), "-S", str(socket), "display-message", "-p", "#{pid}"],
        capture_output=True,
        check=False,
        timeout=10,
    )
    return done.returncode == 0


def test_a_killed_terminal_leaves_neither_its_server_nor_its_socket(terminals, tmp_path):
    terminal = terminals.open(build_env(tmp_path / "home"))
    terminal.start(WAITING_PROGRAM, cwd=tmp_path)
    assert terminal.socket_path.is_socket()
    assert _server_answers(terminal.socket_path)  # the path is the socket tmux really uses
    terminal.kill()
    assert not terminal.socket_path.exists()
    assert not _server_answers(terminal.socket_path)
    terminal.kill()  # a second kill (the fixture's) is harmless


def test_a_terminal_whose_program_ended_still_loses_its_socket(terminals, tmp_path):
    terminal = terminals.open(build_env(tmp_path / "home"))
    terminal.start([sys.executable, "-c", "print('bye')"], cwd=tmp_path)
    assert terminal.wait_for_exit() == 0
    assert terminal.socket_path.is_socket()  # remain-on-exit keeps the server for the screen
    terminal.kill()
    assert not terminal.socket_path.exists()


def _is_running(pid: int) -> bool:
    """True while `pid` is a live process (a zombie waiting for its reaper is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_every_terminal_of_a_pool_is_killed_even_when_tmux_cannot_be_run(terminals, tmp_path):
    first, second = (terminals.open(build_env(tmp_path / f"home-{n}")) for n in (1, 2))
    for terminal in (first, second):
        terminal.start(WAITING_PROGRAM, cwd=tmp_path)
    first_server, tmux = first.server_pid(), first._tmux
    first._tmux = str(tmp_path / "no-such-tmux")  # its kill-server cannot even start
    with pytest.raises(FileNotFoundError):
        terminals.kill_all()
    first._tmux = tmux  # for the fixture's own kill_all
    assert not second.socket_path.exists() and not _server_answers(second.socket_path)
    assert not first.socket_path.exists()
    first.wait_for(
        lambda running: running == "no",
        "the unanswering server's process to end",
        source=lambda: "yes" if _is_running(first_server) else "no",
    )


INNER_TEST = """
import sys
from pathlib import Path

from e2e_support import build_env


def test_that_fails_with_a_terminal_open(terminals, tmp_path):
    terminal = terminals.open(build_env(tmp_path / "home"))
    terminal.start([sys.executable, "-c", "input()"], cwd=tmp_path)
    Path({record!r}).write_text(str(terminal.socket_path))
    assert terminal.socket_path.is_socket()
    raise AssertionError("this test fails on purpose, its terminal still open")
"""


def test_a_failing_test_leaves_no_server_or_socket_behind(tmp_path):
    require_tmux()
    record = tmp_path / "socket-path.txt"
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "test_inner.py").write_text(INNER_TEST.format(record=str(record)))
    (inner / "pytest.ini").write_text("[pytest]\n")
    env = {**build_env(tmp_path / "home"), "PYTHONPATH": str(TESTS)}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "-q"],
        cwd=inner,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert run.returncode == 1, run.stdout + run.stderr  # the one failure, nothing else
    assert re.fullmatch(r"1 failed in [\d.]+s", run.stdout.strip().splitlines()[-1]), run.stdout
    socket = Path(record.read_text())
    assert socket.name.startswith("agent-cli-e2e-")
    assert not socket.exists()
    assert not _server_answers(socket)


LEAKING_TEST = """
import sys
from pathlib import Path

import pytest
from e2e_support import TmuxTerminal, build_env, require_tmux


@pytest.mark.parametrize("n", [1, 2])
def test_that_leaves_its_terminal_running(n, tmp_path):
    terminal = TmuxTerminal(require_tmux(), tmp_path, build_env(tmp_path / "home"))
    terminal.start([sys.executable, "-c", "input()"], cwd=tmp_path)
    Path({records!r}, f"socket-{{n}}.txt").write_text(str(terminal.socket_path))
"""


def test_each_parallel_worker_names_the_sockets_its_tests_left_behind(tmp_path):
    """Under pytest-xdist every worker is a process with its own terminals: the session's
    check runs in each, so a socket left by any worker's test is named."""
    tmux = require_tmux()
    records, inner = tmp_path / "records", tmp_path / "inner"
    records.mkdir()
    inner.mkdir()
    (inner / "test_leaking.py").write_text(LEAKING_TEST.format(records=str(records)))
    (inner / "pytest.ini").write_text("[pytest]\n")
    env = {**build_env(tmp_path / "home"), "PYTHONPATH": str(TESTS)}
    try:
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider"]
            + ["-n", "2", "-q"],
            cwd=inner,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        leaked = sorted(records.glob("socket-*.txt"))
        assert len(leaked) == 2, run.stdout + run.stderr
        assert run.returncode == 1, run.stdout + run.stderr
        reports = [line for line in run.stdout.splitlines() if "sockets left behind:" in line]
        for record in leaked:  # each named by the worker that made it, whichever that was
            assert any(f"'{record.read_text()}'" in line for line in reports), run.stdout
    finally:
        for record in records.glob("socket-*.txt"):
            socket = Path(record.read_text())
            subprocess.run([tmux, "-S", str(socket), "kill-server"], capture_output=True)
            socket.unlink(missing_ok=True)
