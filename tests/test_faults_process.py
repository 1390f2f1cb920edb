"""Process faults: two agent-cli on one session, and a session killed with SIGKILL mid-turn.

The store-level SIGKILL test (`test_transcript_crash.py`) kills a bare append loop; here
whole sessions are killed at random points of their turns (inside a tool, between the
call and its results, while appending) and must resume into a valid view that holds
every turn they finished.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from faults_support import assert_history_is_valid, take_snapshot, turn_end
from session_support import drain, make_session

from agent_cli.errors import TranscriptLocked
from agent_cli.protocol import validate_tool_protocol
from agent_cli.provider.offline import OfflineProvider

PROJECT_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text(
        "".join(f"note {i}: the build uses make\n" for i in range(2_000))
    )
    return root


def run_agent_cli(args: list[str], workspace: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_cli",
            *args,
            "--provider",
            "offline",
            "--workspace",
            str(workspace),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


# --- two sessions on one id -----------------------------------------------------------------


def test_a_second_session_on_an_open_id_is_refused_and_the_first_goes_on(workspace: Path) -> None:
    first = make_session(workspace, OfflineProvider())
    drain(first.run_turn("list ."))
    before = take_snapshot(first)

    with pytest.raises(TranscriptLocked) as caught:
        make_session(workspace, OfflineProvider(), resume=first.session_id)

    assert caught.value.session_id == first.session_id
    assert take_snapshot(first) == before
    assert turn_end(drain(first.run_turn("read notes.txt"))).outcome == "ok"
    view = list(first.view)
    first.close()
    second = make_session(workspace, OfflineProvider(), resume=first.session_id)
    assert second.view == view
    assert_history_is_valid(second)


def test_a_second_agent_cli_process_on_an_open_session_is_refused_with_a_clear_message(
    workspace: Path,
) -> None:
    first = make_session(workspace, OfflineProvider())
    drain(first.run_turn("list ."))
    before = take_snapshot(first)

    refused = run_agent_cli(["-p", "read notes.txt", "--resume", first.session_id], workspace)

    assert refused.returncode == 1
    assert f"session {first.session_id} is open in another agent-cli" in refused.stderr
    assert "Traceback" not in refused.stderr and refused.stdout == ""
    assert take_snapshot(first) == before
    first.close()
    allowed = run_agent_cli(["-p", "list .", "--resume", first.session_id], workspace)
    assert allowed.returncode == 0, allowed.stderr
    resumed = make_session(workspace, OfflineProvider(), resume=first.session_id)
    assert len(resumed.view) > len(before.view)
    assert_history_is_valid(resumed)


# --- SIGKILL in the middle of turns -----------------------------------------------------------

# Opens (or resumes) a session on the offline model and runs turns for ever, printing the
# number of messages in the view after each finished turn. Each turn reads a file, so the
# kill can land in the tool, between a call and its results, or in an append.
CHILD = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[1] + "/tests")
from session_support import make_session
from agent_cli.provider.offline import OfflineProvider
label = sys.argv[3]
resume = sys.argv[4] if len(sys.argv) > 4 else None
session = make_session(Path(sys.argv[2]), OfflineProvider(), resume=resume)
print("session", session.session_id, flush=True)
n = 0
while True:
    n += 1
    events = list(session.run_turn(f"read notes.txt ({label} #{n})"))
    assert events[-1].outcome == "ok", events[-1]
    print("done", n, flush=True)
"""


def run_and_kill(
    workspace: Path, label: str, finished_turns: int, resume: str | None
) -> tuple[str, int]:
    """Run the session child until it has finished some turns, SIGKILL it mid-way through
    the next ones; return its session id and how many turns it reported finished."""
    args = [sys.executable, "-c", CHILD, str(PROJECT_ROOT), str(workspace), label]
    child = subprocess.Popen(
        args + ([resume] if resume else []), stdout=subprocess.PIPE, text=True, env=dict(os.environ)
    )
    assert child.stdout is not None
    session_id = child.stdout.readline().split()[1]
    done = 0
    while done < finished_turns:
        line = child.stdout.readline()
        assert line.startswith("done"), f"the child stopped early: {line!r}"
        done += 1
    os.kill(child.pid, signal.SIGKILL)
    done += sum(1 for line in child.stdout.read().splitlines() if line.startswith("done"))
    assert child.wait() == -signal.SIGKILL
    return session_id, done


def recorded_user_texts(session) -> list[str]:
    texts = []
    for line in Path(session.transcript_path).read_text().splitlines():
        record = json.loads(line)
        message = record["payload"].get("message") if record["kind"] == "message" else None
        if message and message["role"] == "user" and isinstance(message["content"], str):
            texts.append(message["content"])
    return texts


def test_a_session_killed_mid_turn_resumes_valid_with_every_finished_turn(workspace: Path) -> None:
    session_id = None
    finished: list[str] = []
    for round_number in range(3):
        label = f"round {round_number}"
        session_id, done = run_and_kill(workspace, label, 3, session_id)
        finished += [f"read notes.txt ({label} #{n})" for n in range(1, done + 1)]
        resumed = make_session(workspace, OfflineProvider(), resume=session_id)
        validate_tool_protocol(resumed.view)
        assert set(finished) <= set(recorded_user_texts(resumed))
        assert turn_end(drain(resumed.run_turn("list ."))).outcome == "ok"
        assert_history_is_valid(resumed)
        resumed.close()
