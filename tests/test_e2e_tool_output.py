"""End to end in tmux: what a tool did is on screen, while it runs and after.

A finished tool shows the first lines of its output under its header, "+N lines" and
`/last` for all of it; a running command shows its output live with a spinner and the
elapsed time.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_support import ReplDriver, TerminalPool, output_after, start_repl

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


def test_a_running_command_shows_its_output_live_with_the_elapsed_time(
    repl: ReplDriver,
) -> None:
    repl.send("run echo first-line; sleep 6; echo second-line")
    live = repl.terminal.wait_for(
        lambda text: "│ first-line" in text and "running bash" in text,
        "the command's first line while it runs",
        source=repl.terminal.visible,
    )
    assert "│ second-line" not in live
    counted = repl.terminal.wait_for(
        lambda text: any(f"running bash · {n}s" in text for n in (1, 2, 3, 4, 5)),
        "the elapsed time counting",
        source=repl.terminal.visible,
    )
    assert "Ctrl-C stops it" in counted
    screen = repl.terminal.wait_for_text("│ second-line")
    done = output_after(screen, "run echo first-line; sleep 6; echo second-line")
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
