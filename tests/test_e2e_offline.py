"""End to end on the offline model, in a real terminal (tmux): what a new user sees.

Each test starts the installed `agent-cli` in its own tmux server with its own state
folder and workspace, types as a user would, and reads the screen.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from e2e_support import (
    LAYER_LINE,
    PROMPT_MARK,
    TOTAL_LINE,
    ReplDriver,
    TerminalPool,
    agent_cli_argv,
    build_env,
    count_prompts,
    last_prompt_line,
    session_id_on,
)

from agent_cli.protocol import validate_tool_protocol
from agent_cli.store.transcript import TranscriptStore

pytestmark = pytest.mark.e2e

LOW_THRESHOLDS = ("--soft-threshold", "2500", "--hard-limit", "60000", "--yes")
CATEGORIES = (
    "system prompt",
    "durable context",
    "tool schemas",
    "user text",
    "assistant text",
    "tool calls",
    "tool results",
)
GAUGE = re.compile(r"ctx [\d,]+ / 2,500 soft / 60,000 hard \(\d+%\) · estimator: \S")
COMPACTION_ROW = re.compile(
    r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+(L[1-4](?:\+L[1-4])*): [\d,]+ -> [\d,]+ tokens"
)


@pytest.fixture()
def repl(terminals: TerminalPool, home: Path, workspace: Path) -> ReplDriver:
    terminal = terminals.open(build_env(home))
    terminal.start([*agent_cli_argv(), *LOW_THRESHOLDS], cwd=workspace)
    driver = ReplDriver(terminal)
    driver.wait_for_prompt()
    return driver


def run_until_compaction(repl: ReplDriver, line: str, *, attempts: int = 6) -> str:
    """Send `line` until a `[compact]` total line shows; return everything it printed."""
    printed = ""
    for _ in range(attempts):
        printed += repl.submit(line)
        if TOTAL_LINE.search(printed):
            return printed
    raise AssertionError(f"no [compact] total line after {attempts} x {line!r}:\n{printed}")


def test_turns_past_the_soft_threshold_print_compact_lines_and_stats_lists_them(
    repl: ReplDriver,
) -> None:
    printed = run_until_compaction(repl, "read big.txt")
    answer = repl.submit("read README.md and tell me its first heading")
    assert "Demo Project" in answer
    listing = repl.submit("list .")
    assert "big.txt" in listing and "README.md" in listing
    printed += answer + listing

    fired = set(LAYER_LINE.findall(printed))
    assert fired, printed
    assert TOTAL_LINE.search(printed)

    panel = repl.submit("stats")
    assert "offline-demo-1 (offline)" in panel
    assert "soft threshold 2,500" in panel and "hard limit 60,000" in panel
    for category in CATEGORIES:
        assert re.search(rf"{category}\s+[\d,]+ ", panel), category
    listed = {layer for row in COMPACTION_ROW.findall(panel) for layer in row.split("+")}
    assert fired <= listed, panel


def test_the_bottom_toolbar_shows_the_context_gauge_against_both_limits(
    repl: ReplDriver,
) -> None:
    repl.submit("list .")
    repl.terminal.wait_for(
        lambda _: GAUGE.search(repl.toolbar()) is not None,
        "the gauge in the bottom toolbar",
        source=repl.terminal.visible,
    )


def test_ctrl_c_cancels_a_running_command_and_the_next_turn_works(repl: ReplDriver) -> None:
    repl.send("run sleep 30")
    repl.terminal.wait_for_text("command: sleep 30")
    before = count_prompts(repl.terminal.screen())
    repl.terminal.press("C-c")
    # Far less than the 30 s the command would take: the interrupt ended it.
    screen = repl.terminal.wait_for(
        lambda text: count_prompts(text) > before and "cancelled" in text,
        "the prompt back after Ctrl-C",
        timeout=10,
    )
    assert "turn cancelled" in screen
    assert "big.txt" in repl.submit("list .")


def test_ctrl_c_at_the_prompt_clears_the_typed_line(repl: ReplDriver) -> None:
    repl.terminal.type_text("half a thought")
    repl.terminal.wait_for(
        lambda text: last_prompt_line(text) == f"{PROMPT_MARK} half a thought",
        "the typed text at the prompt",
    )
    repl.terminal.press("C-c")
    repl.terminal.wait_for(
        lambda text: last_prompt_line(text) == PROMPT_MARK,
        "an empty prompt after Ctrl-C",
    )
    assert "README.md" in repl.submit("list .")


def test_ctrl_d_exits_saying_where_the_transcript_is_and_it_replays(
    repl: ReplDriver, home: Path
) -> None:
    session_id = session_id_on(repl.terminal.screen())
    repl.submit("read README.md and tell me its first heading")
    repl.terminal.press("C-d")
    assert repl.terminal.wait_for_exit() == 0
    screen = repl.terminal.screen()
    transcript = home / "transcripts" / f"{session_id}.jsonl"
    assert f"transcript: {transcript}" in screen
    assert f"resume with: agent-cli --resume {session_id}" in screen

    assert transcript.is_file()
    records = list(TranscriptStore(home / "transcripts").replay(session_id))
    assert [r["sequence"] for r in records] == list(range(1, len(records) + 1))
    assert records[0]["kind"] == "session_started"
    messages = [r["payload"]["message"] for r in records if r["kind"] == "message"]
    assert messages[0] == {
        "role": "user",
        "content": "read README.md and tell me its first heading",
    }
    assert len(validate_tool_protocol(messages)) == 1
