"""End to end in tmux: on the offline model a plain `agent-cli` shows compaction at work.

No flags: the demo thresholds apply, the banner says so, and reading a few files makes
every layer fire. A flag still wins over the demo value.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from e2e_support import LAYER_LINE, TerminalPool, start_repl

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parent.parent
MCP_DEMO = Path(__file__).parent / "mcp_fixtures" / "demo_server.py"
DEMO_BANNER = "Compaction starts at 3,200 tokens (hard limit 60,000): demo thresholds"


@pytest.mark.parametrize("servers", ["no MCP server", "an MCP server", "facts and AGENTS.md"])
def test_the_readme_sequence_fires_every_layer_on_the_demo_thresholds(
    terminals: TerminalPool, home: Path, workspace: Path, servers: str
) -> None:
    """The README's own four reads: L1 cuts each, and the last one goes on through L2
    (the first README read is still there to drop), L4 and L3, in the automatic order;
    the same with an MCP server, or with project instructions and durable facts, which
    the thresholds are measured above."""
    if servers == "an MCP server":
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text(
            f'[mcp_servers.demo]\ncommand = "{sys.executable}"\nargs = ["{MCP_DEMO}"]\n',
            encoding="utf-8",
        )
    (workspace / "docs").mkdir()
    for name in ("architecture.md", "reliability.md"):
        (workspace / "docs" / name).write_text((REPO / "docs" / name).read_text("utf-8"))
    (workspace / "README.md").write_text((REPO / "README.md").read_text(encoding="utf-8"))
    if servers == "facts and AGENTS.md":
        (workspace / "AGENTS.md").write_text("Answer briefly. Run the tests after edits.\n" * 3)
    repl = start_repl(terminals, home, workspace)
    if servers == "facts and AGENTS.md":  # the instructions lift the thresholds at once
        screen = repl.terminal.screen()
        assert re.search(r"Compaction starts at 3,[2-9]\d\d tokens", screen)
        assert "measured above what this workspace adds" in screen.replace("\n", " ")
        repl.submit("/remember the build uses make and the tests run on four workers")
        repl.submit("/todo check the README demo after each docs change")
    else:
        assert DEMO_BANNER in repl.terminal.screen()
    printed = [
        repl.submit(f"read {path}")
        for path in ("README.md", "docs/architecture.md", "docs/reliability.md", "README.md")
    ]
    for turn in printed[:3]:
        assert LAYER_LINE.findall(turn) == ["L1"], turn
    assert LAYER_LINE.findall(printed[3]) == ["L1", "L2", "L4", "L3"], printed[3]
    if servers == "an MCP server":  # the server's tools were in every request
        assert "demo ready" in repl.submit("/mcp")
        assert (
            re.search(r"/ 3,[2-9]\d\d soft", repl.toolbar()) and "3,200 soft" not in repl.toolbar()
        )


def test_a_threshold_flag_wins_over_the_demo_default(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    repl = start_repl(terminals, home, workspace, "--soft-threshold", "50000")
    screen = repl.terminal.screen()
    assert "Compaction starts at 50,000 tokens (hard limit 60,000)" in screen
    assert "demo thresholds" not in screen  # the soft threshold is the user's
    assert "soft threshold 50,000" in repl.submit("stats")
