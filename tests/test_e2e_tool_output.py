"""End to end in tmux: what a tool did is on screen, while it runs and after.

A finished tool shows the first lines of its output under its header, "+N lines" and
`/last` for all of it; a running command shows its output live with a spinner and the
elapsed time; Ctrl-C stops it and keeps what it printed, on screen, in the transcript and
for `/last`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from e2e_support import (
    ReplDriver,
    TerminalPool,
    count_prompts,
    output_after,
    session_id_on,
    start_repl,
)

from agent_cli.protocol import validate_tool_protocol
from agent_cli.store.transcript import TranscriptStore

pytestmark = pytest.mark.e2e


@pytest.fixture()
def repl(terminals: TerminalPool, home: Path, workspace: Path) -> ReplDriver:
    for name in ("alpha.txt", "beta.txt", "gamma.txt", "delta.txt", "epsilon.txt"):
        (workspace / name).write_text(f"{name}\n", encoding="utf-8")
    return start_repl(terminals, home, workspace, "--yes")


def test_a_finished_command_shows_its_first_lines_and_how_many_more(repl: ReplDriver) -> None:
    printed = repl.submit("run ls -1")
    lines = printed.splitlines()
    assert "│ README.md" in lines, printed
    assert "│ alpha.txt" in lines, printed
    assert "│ gamma.txt" not in lines, printed  # past the preview
    assert "+3 lines (/last shows all)" in printed, printed

    whole = repl.submit("/last")
    for name in ("alpha.txt", "big.txt", "epsilon.txt", "gamma.txt"):
        assert name in whole, whole


# Prints its second line once the test has made `go` (a fixed sleep could end before the
# test has looked, on a loaded machine).
HELD_COMMAND = "run echo first-line; until [ -e go ]; do sleep 0.1; done; echo second-line"


def test_a_running_command_shows_its_output_live_with_the_elapsed_time(
    repl: ReplDriver, workspace: Path
) -> None:
    repl.send(HELD_COMMAND)
    live = repl.terminal.wait_for(
        lambda text: "│ first-line" in text and "running bash" in text,
        "the command's first line while it runs",
        source=repl.terminal.visible,
    )
    assert "│ second-line" not in live
    counted = repl.terminal.wait_for(
        lambda text: re.search(r"running bash · [1-9]\d*s", text) is not None,
        "the elapsed time counting",
        source=repl.terminal.visible,
    )
    assert "Ctrl-C stops it" in counted and "│ second-line" not in counted
    (workspace / "go").touch()
    screen = repl.terminal.wait_for_text("│ second-line")
    done = output_after(screen, HELD_COMMAND)
    assert "│ first-line" in done and "│ second-line" in done
    assert "running bash" not in repl.terminal.wait_for(
        lambda text: "exit 0" in text, "the finished line", source=repl.terminal.visible
    )


def test_a_preview_keeps_the_indentation_of_the_file(repl: ReplDriver, workspace: Path) -> None:
    (workspace / "app.py").write_text(
        'def greet(name):\n    return "Helo, " + name\n', encoding="utf-8"
    )
    printed = repl.submit("read app.py")
    assert '│      2      return "Helo, " + name' in printed.splitlines(), printed


TICKER = "run for n in 1 2 3 4 5 6 7 8 9; do echo tick $n; sleep 0.3; done; sleep 30"


def test_ctrl_c_keeps_the_output_of_a_running_command(repl: ReplDriver, home: Path) -> None:
    session_id = session_id_on(repl.terminal.screen())
    repl.send(TICKER)
    repl.terminal.wait_for(
        lambda text: "│ tick 9" in text and "running bash" in text,
        "the last tick while the command runs",
        source=repl.terminal.visible,
    )
    before = count_prompts(repl.terminal.screen())
    repl.terminal.press("C-c")
    screen = repl.terminal.wait_for(
        lambda text: count_prompts(text) > before, "the prompt back after Ctrl-C", timeout=10
    )
    shown = output_after(screen, TICKER).splitlines()
    assert "│ … 3 earlier lines (/last shows all)" in shown, shown
    assert [f"│ tick {n}" for n in range(4, 10)] == [r for r in shown if r.startswith("│ tick")]
    assert "╰─ ✗ interrupted by Ctrl-C; the output so far is kept" in shown, shown
    assert "no result was shown" not in screen

    whole = repl.submit("/last").splitlines()
    assert [f"tick {n}" for n in range(1, 10)] == [r for r in whole if r.startswith("tick")]

    records = list(TranscriptStore(home / "transcripts").replay(session_id))
    messages = [r["payload"]["message"] for r in records if r["kind"] == "message"]
    (result,) = messages[-1]["content"]
    assert result["is_error"] and result["content"].startswith("Interrupted by the user (Ctrl-C)")
    assert result["content"].endswith("tick 8\ntick 9\n")
    assert len(validate_tool_protocol(messages)) == 1
