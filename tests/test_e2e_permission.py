"""End to end in tmux: the permission question, answered, cancelled with Ctrl-C, or cut short
by the terminal going away."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from e2e_support import ReplDriver, TerminalPool, count_prompts, start_repl
from tools_support import is_process_running

pytestmark = pytest.mark.e2e


@pytest.fixture()
def repl(terminals: TerminalPool, home: Path, workspace: Path) -> ReplDriver:
    return start_repl(terminals, home, workspace)


def test_ctrl_c_at_the_permission_question_says_the_tool_never_ran(
    repl: ReplDriver, home: Path, workspace: Path
) -> None:
    repl.send("run touch made-by-bash.txt")
    repl.terminal.wait_for_text("allow? [y] once")
    before = count_prompts(repl.terminal.screen())
    repl.terminal.press("C-c")
    screen = repl.terminal.wait_for(
        lambda text: count_prompts(text) > before and "the turn ended" in text,
        "the prompt back after Ctrl-C at the question",
    )
    after_question = screen.split("allow? [y] once", 1)[1].split("\n")[1:]
    said = " ".join(" ".join(after_question).split("› ")[0].split())
    # one Ctrl-C, one line (issue 23 item 14): the panel's close says all of it
    assert said == (
        "╰─ ✗ not run: cancelled at the permission question; the turn ended, the "
        "conversation so far is kept"
    ), screen
    assert "interrupted" not in screen.split("allow? [y] once", 1)[1]
    assert not (workspace / "made-by-bash.txt").exists()
    # the model is told the same: not run, rather than stopped half way
    results = recorded_tool_results(home)
    assert results and results[-1].startswith("Not run: the user pressed Ctrl-C when asked")


def test_closing_the_terminal_at_the_permission_question_records_that_the_tool_never_ran(
    repl: ReplDriver, home: Path, workspace: Path
) -> None:
    repl.send("run touch made-by-bash.txt")
    repl.terminal.wait_for_text("allow? [y] once")
    pid = repl.terminal.program_pid()
    repl.terminal.kill()  # the terminal goes away: SIGHUP
    deadline = time.monotonic() + 30
    while is_process_running(pid):
        assert time.monotonic() < deadline, "agent-cli outlived its terminal"
        time.sleep(0.05)
    assert recorded_tool_results(home)[-1] == (
        "Not run: agent-cli was ended by SIGHUP while asking the user for permission to run "
        "this tool."
    )
    assert not (workspace / "made-by-bash.txt").exists()


def recorded_tool_results(home: Path) -> list[str]:
    records = [
        json.loads(line)
        for path in (home / "transcripts").glob("*.jsonl")
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    return [
        block["content"]
        for record in records
        if record["kind"] == "message"
        for block in record["payload"]["message"]["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]


def test_killed_at_the_permission_question_resumes_saying_the_tool_never_ran(
    terminals: TerminalPool, repl: ReplDriver, home: Path, workspace: Path
) -> None:
    """SIGKILL leaves no time to record anything more: the record written before the
    question tells the resume that the call never started (it said "may have run")."""
    import os
    import signal

    repl.send("run touch made-by-bash.txt")
    repl.terminal.wait_for_text("allow? [y] once")
    pid = repl.terminal.program_pid()
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while is_process_running(pid):
        assert time.monotonic() < deadline, "agent-cli outlived SIGKILL"
        time.sleep(0.05)
    resumed = start_repl(terminals, home, workspace, "--continue")
    screen = resumed.terminal.wait_for(
        lambda text: "where you left off" in text, "the resumed session's greeting"
    )
    said = " ".join(screen.split())
    assert "stopped while asking for permission to run bash: it was not run" in said
    assert "while a tool ran" not in said
    assert recorded_tool_results(home)[-1].startswith("Not run: the session ended while the user")
    assert not (workspace / "made-by-bash.txt").exists()
