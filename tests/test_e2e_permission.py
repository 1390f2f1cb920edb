"""End to end in tmux: the permission question, answered or cancelled with Ctrl-C."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e_support import ReplDriver, TerminalPool, count_prompts, start_repl

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
        lambda text: count_prompts(text) > before and "turn cancelled" in text,
        "the prompt back after Ctrl-C at the question",
    )
    assert "Cancelled at the permission question: bash was not run." in screen
    assert "not run: cancelled at the permission question" in screen
    assert "interrupted" not in screen.split("allow? [y] once", 1)[1]
    assert not (workspace / "made-by-bash.txt").exists()
    # the model is told the same: not run, rather than stopped half way
    records = [
        json.loads(line)
        for path in (home / "transcripts").glob("*.jsonl")
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    results = [
        block["content"]
        for record in records
        if record["kind"] == "message"
        for block in record["payload"]["message"]["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    assert results and results[-1].startswith("Not run: the user pressed Ctrl-C when asked")
