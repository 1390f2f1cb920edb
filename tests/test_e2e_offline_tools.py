"""End to end in tmux: the offline demo model shows every tool, in sensible words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from e2e_support import ReplDriver, TerminalPool, start_repl

pytestmark = pytest.mark.e2e

POINTER = re.compile(r"artifact:[\w.-]+:[\w.-]+:[0-9a-f]{12,64}")


@pytest.fixture()
def repl(terminals: TerminalPool, home: Path, workspace: Path) -> ReplDriver:
    (workspace / "setup.sh").write_text("# ---\n# build helper\nmake all\n", encoding="utf-8")
    # wide enough that a typed artifact pointer stays on one line
    return start_repl(terminals, home, workspace, "--yes", width=220)


def flat(text: str) -> str:
    return " ".join(text.split())


def test_every_tool_is_demonstrated_with_whole_sentences(repl: ReplDriver, workspace: Path) -> None:
    said = flat(repl.submit("write notes.txt: the colour is blue"))
    assert "notes.txt was written" in said
    said = flat(repl.submit("edit notes.txt: blue -> green"))
    assert "╭─ edit_file" in said and "notes.txt was edited" in said
    assert (workspace / "notes.txt").read_text(encoding="utf-8") == "the colour is green\n"
    assert "notes.txt has 1 line" in flat(repl.submit("read notes.txt"))
    assert "has 4 entries" in flat(repl.submit("list ."))
    assert "matched 1 line" in flat(repl.submit("grep green"))
    assert "exited with code 0" in flat(repl.submit("run echo done"))

    big = flat(repl.submit("run cat big.txt big.txt"))  # over the artifact threshold
    pointer = POINTER.search(big)
    assert pointer is not None, big
    stored = flat(repl.submit(f"read {pointer.group(0)}"))
    assert "╭─ read_artifact" in stored and "line 000 " in stored
    assert "Bytes 0-" in stored and "of the stored output start with" in stored

    comment = flat(repl.submit("read setup.sh and tell me its first heading"))
    assert "no Markdown heading" in comment and "heading is `# ---`" not in comment
    everything = repl.terminal.screen()
    assert ".`." not in everything and "..\n" not in everything


def test_help_says_what_the_offline_model_understands(repl: ReplDriver) -> None:
    shown = flat(repl.submit("/help"))
    assert "The offline demo model understands these requests:" in shown
    for form in ("read FILE", "write FILE: TEXT", "edit FILE: OLD TEXT -> NEW TEXT", "run COMMAND"):
        assert form in shown, form
