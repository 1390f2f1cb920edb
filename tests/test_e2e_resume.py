"""End to end: coming back to a session with `--continue` and `--resume ID` (tmux).

The earlier sessions are made by the real program with piped input; the resumed one runs
in a real terminal, where the user reads the banner and `stats`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from e2e_support import (
    TerminalPool,
    build_env,
    run_piped,
    session_id_on,
    start_repl,
)

from agent_cli.store.transcript import TranscriptStore

pytestmark = pytest.mark.e2e


def record_session(home: Path, workspace: Path, lines: str) -> str:
    """Run one piped session of `lines`; return its id."""
    done = run_piped([], cwd=workspace, env=build_env(home), stdin_text=lines)
    assert done.returncode == 0, done.stderr
    return session_id_on(done.stdout)


def count_messages(home: Path, session_id: str) -> int:
    records = TranscriptStore(home / "transcripts").replay(session_id)
    return sum(1 for record in records if record["kind"] == "message")


def test_continue_resumes_the_latest_session_and_stats_shows_its_earlier_messages(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    session_id = record_session(home, workspace, "read README.md\nlist .\n")
    earlier = count_messages(home, session_id)
    assert earlier == 8

    repl = start_repl(terminals, home, workspace, "--continue")
    assert f"session {session_id} (resumed)" in repl.terminal.screen()
    panel = repl.submit("stats")
    assert re.search(rf"messages\s+{earlier} in view / {earlier} in transcript", panel), panel

    assert "Demo Project" in repl.submit("read README.md and tell me its first heading")
    repl.terminal.press("C-d")
    assert repl.terminal.wait_for_exit() == 0
    assert count_messages(home, session_id) == earlier + 4


def test_resume_by_id_opens_that_session_even_when_a_later_one_exists(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    first = record_session(home, workspace, "read README.md\n")
    later = record_session(home, workspace, "list .\nlist .\n")
    assert first != later

    repl = start_repl(terminals, home, workspace, "--resume", first)
    assert f"session {first} (resumed)" in repl.terminal.screen()
    panel = repl.submit("stats")
    assert re.search(r"messages\s+4 in view / 4 in transcript", panel), panel
    assert first in panel and later not in panel


def test_slash_resume_replays_the_last_exchanges_on_screen(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    earlier = record_session(
        home, workspace, "read README.md and tell me its first heading\nlist .\n"
    )
    repl = start_repl(terminals, home, workspace)
    shown = repl.submit(f"/resume {earlier}")
    assert f"session {earlier} (resumed)" in shown
    replay = shown.split("── where you left off ──", 1)[1]
    assert "you: read README.md and tell me its first heading" in replay
    assert "used read_file" in replay and "Demo Project" in replay
    assert "you: list ." in replay and "used list_dir" in replay
    assert replay.index("you: read README.md") < replay.index("you: list .")
