"""The tester's case in the real program: the project folder moved between two runs.

`agent-cli --yes` on pipes, the fake API playing the model through the real SDK. Run 1
the model reads `notes.txt`; the user moves the whole folder (`mv ws ws-moved`, with or
without a link left at `ws`) and adds a line to `notes.txt`; run 2 goes on with the
session from the moved folder (`--resume ID`), or through the link (`--resume ID`,
`--continue`), and the model writes `notes.txt` from its old copy. The records of what
the model saw held paths under `ws`, which matched nothing under `ws-moved`: the write
went through and the user's line was lost. It is refused now (`tools.seen_roots`), and
through the link nothing warns that the tools run "not in" the folder they run in.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from e2e_support import run_piped
from fake_anthropic import Reply, text_block, tool_result_texts, tool_use_block
from seen_support import read_notes_in_a_first_run

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-seen-moved-0123456789"
SEEN = "model saw this\n"
USERS = SEEN + "USER ADDED THIS LINE\n"
REFUSED = "notes.txt changed since it was last read or written in this session"


def read_then_move(home: Path, tmp_path: Path, server: Any, link: bool) -> tuple[dict, Path, str]:
    """Run 1 reads notes.txt in `ws`; then the folder moves to `ws-moved` (a link left at
    `ws` when `link`) and the user adds a line. Gives the environment, the moved folder
    and the session's id."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text(SEEN)
    env = read_notes_in_a_first_run(workspace, home, server, API_KEY)
    (session_id,) = [path.stem for path in (home / "transcripts").glob("*.jsonl")]
    moved = tmp_path / "ws-moved"
    os.rename(workspace, moved)
    if link:
        os.symlink(moved, workspace)
    with open(moved / "notes.txt", "a") as notes:
        notes.write("USER ADDED THIS LINE\n")
    content = SEEN + "model line\n"
    server.enqueue(
        Reply(
            [tool_use_block("toolu_w", "write_file", {"path": "notes.txt", "content": content})],
            "tool_use",
        ),
        Reply([text_block("Wrote it.")]),
    )
    return env, moved, session_id


def test_a_resume_in_the_moved_folder_refuses_the_write_from_the_old_copy(
    home: Path, tmp_path: Path, server: Any
) -> None:
    env, moved, session_id = read_then_move(home, tmp_path, server, link=False)
    second = run_piped(["--yes", "--resume", session_id], cwd=moved, env=env, stdin_text="add\n")
    assert second.returncode == 0, second.stderr
    assert (moved / "notes.txt").read_text() == USERS
    told = tool_result_texts(server.accepted[-1])[-1]
    assert REFUSED in told and "Read it again with read_file" in told
    said = " ".join((second.stdout + second.stderr).split())
    assert f"worked in {tmp_path / 'ws'}, which no longer exists; its tools now run in" in said


@pytest.mark.parametrize("how", ["--resume", "--continue"])
def test_going_on_through_a_link_left_at_the_old_path_refuses_the_write_and_warns_nothing(
    home: Path, tmp_path: Path, server: Any, how: str
) -> None:
    env, moved, session_id = read_then_move(home, tmp_path, server, link=True)
    args = ["--yes", "--resume", session_id] if how == "--resume" else ["--yes", "--continue"]
    second = run_piped(args, cwd=tmp_path / "ws", env=env, stdin_text="add\n")
    assert second.returncode == 0, second.stderr
    said = " ".join((second.stdout + second.stderr).split())
    assert f"session {session_id} (resumed)" in said
    assert (moved / "notes.txt").read_text() == USERS
    told = tool_result_texts(server.accepted[-1])[-1]
    assert REFUSED in told
    assert "This session worked in" not in said and "its tools run there, not in" not in said
