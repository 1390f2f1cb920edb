"""End to end in tmux: what is typed or pasted at the prompt is what is sent, and the
history file failing does not get in the way.

The offline model answers; each test reads what was sent from the transcript.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from e2e_support import (
    ReplDriver,
    TerminalPool,
    agent_cli_argv,
    build_env,
    count_prompts,
    start_repl,
)

pytestmark = pytest.mark.e2e


def typed_messages(home: Path) -> list[str]:
    """The text of every user message the transcripts hold, in order: transcripts by when
    they were last written (two sessions started in one second have ids that sort by their
    random part, not by time)."""
    texts = []
    paths = (home / "transcripts").glob("*.jsonl")
    for path in sorted(paths, key=lambda path: (path.stat().st_mtime_ns, path.name)):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            message = (record.get("payload") or {}).get("message") or {}
            is_typed = message.get("role") == "user" and isinstance(message.get("content"), str)
            if record.get("kind") == "message" and is_typed:
                texts.append(message["content"])
    return texts


def test_a_pasted_snippet_is_sent_exactly_as_pasted_indentation_and_blank_lines_included(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    """LOSS-3: the message was stripped, so pasted code lost its first line's indent."""
    repl = start_repl(terminals, home, workspace)
    snippet = (
        "".join(
            ["        if retries > 3:\n", "            raise TooMany()\n", "        wait(1)\n"] * 4
        )
        + "\n"
    )  # 12 lines and a blank one: long enough to show as a placeholder
    repl.terminal.paste(snippet)
    repl.terminal.wait_for_text(f"[pasted {len(snippet):,} characters]")
    repl.terminal.press("Enter")
    repl.terminal.wait_for(lambda screen: count_prompts(screen) >= 2, "the answer")
    assert typed_messages(home) == [snippet]


def test_typed_text_that_looks_like_a_paste_placeholder_is_sent_as_typed(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    """LOSS-7: it was refused as a paste recalled from an earlier run."""
    repl = start_repl(terminals, home, workspace)
    question = "why does the screen show [pasted 1,200 characters] instead of my text?"
    shown = repl.submit(question)
    assert "Paste the text again" not in shown
    assert typed_messages(home) == [question]


def test_a_history_file_that_cannot_grow_is_said_once_and_every_line_is_still_sent(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    """LOSS-5: each line printed prompt_toolkit's traceback and waited for Enter. A
    file-size limit (EFBIG) stands in for a full disk: the history file is at it."""
    limit = 64 * 1024
    home.mkdir(parents=True)
    entry = "\n# 2026-12-05 08:00:00.000000\n+an earlier line\n"
    history = home / "history"
    history.write_text((entry * (limit // len(entry) + 1))[:limit], encoding="utf-8")
    history.chmod(0o600)
    capped = [
        sys.executable,
        "-c",
        "import os, resource, sys; "
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit})); "
        "os.execv(sys.argv[1], sys.argv[1:])",
        *agent_cli_argv(),
    ]
    terminal = terminals.open(build_env(home))
    terminal.start(capped, cwd=workspace)
    repl = ReplDriver(terminal)
    repl.wait_for_prompt()
    first = repl.submit("first line on a full history")
    second = repl.submit("second line on a full history")
    screen = terminal.screen()
    assert "Unhandled exception" not in screen and "Press ENTER" not in screen, screen
    assert "Could not add that line to the prompt history file: the file would be bigger" in first
    assert "prompt history" not in second  # said once, not on every line
    assert typed_messages(home) == ["first line on a full history", "second line on a full history"]
    assert history.stat().st_size == limit  # nothing half-written past the limit
