"""End to end in tmux (a real bracketed paste): a long paste whose first line is a command
shows only as `[pasted N characters]`, so it is never run as one (sixteenth outside
attack: `/sessions delete <id>` and 11 log lines deleted that session on Enter, the log
lines taken as more ids; `/new`, `/compact`, `/quit`, `/remember` the same). Nothing
runs, the input stays in the prompt, and `//` sends it whole as a message.

The offline model answers; what was sent is read from the transcript.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_support import (
    TerminalPool,
    build_env,
    last_prompt_line,
    run_piped,
    session_id_on,
    start_repl,
)
from test_e2e_prompt_input import typed_messages

pytestmark = pytest.mark.e2e

LOG = "".join(f"log line {n}: something the user copied\n" for n in range(1, 12))
REFUSED = "nothing was run: that input starts with"


def test_a_pasted_sessions_delete_runs_nothing_and_stays_in_the_prompt(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    earlier = run_piped([], cwd=workspace, env=build_env(home), stdin_text="my earlier session\n")
    assert earlier.returncode == 0, earlier.stderr
    (transcript,) = (home / "transcripts").glob("*.jsonl")
    repl = start_repl(terminals, home, workspace)
    pasted = f"/sessions delete {transcript.stem}\n{LOG}"
    placeholder = f"[pasted {len(pasted):,} characters]"
    repl.terminal.paste(pasted)
    repl.terminal.wait_for_text(placeholder)
    repl.terminal.press("Enter")
    screen = repl.terminal.wait_for_text(REFUSED)
    assert f"{REFUSED} /sessions" in screen and "deleted" not in screen, screen
    assert "no such session" not in screen, screen
    assert transcript.exists()
    shown = repl.terminal.wait_for(
        lambda s: last_prompt_line(s) == f"› {placeholder}",
        "the paste back in the prompt",
        source=repl.terminal.visible,
    )
    assert "back in the prompt" in shown
    repl.terminal.press("Home")
    repl.terminal.type_text("/")  # `//...`: a message, sent whole
    repl.terminal.press("Enter")
    repl.terminal.wait_for(lambda s: typed_messages(home)[-1:] == [pasted], "the message sent")
    assert transcript.exists()


def test_a_pasted_new_does_not_start_a_new_session(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    repl = start_repl(terminals, home, workspace)
    session = session_id_on(repl.terminal.screen())
    pasted = "/new\n" + LOG
    repl.terminal.paste(pasted)
    repl.terminal.wait_for_text(f"[pasted {len(pasted):,} characters]")
    repl.terminal.press("Enter")
    screen = repl.terminal.wait_for_text(f"{REFUSED} /new")
    assert screen.count("(new)") == 1, screen  # one banner: no second session opened
    assert session_id_on(screen) == session
    assert len(list((home / "transcripts").glob("*.jsonl"))) <= 1
