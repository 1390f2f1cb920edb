"""The tester's case in the real program: a name swapped for a link between two runs.

`agent-cli --yes` on pipes, the fake API playing the model through the real SDK. Run 1
the model reads `notes.txt`; the user moves it aside and makes `notes.txt` a link to
their own `keep.txt`; run 2 (`--continue --yes`) the model writes `notes.txt` from its
copy. It used to replace `keep.txt`, a file the model never saw; it is refused now, and
the model is told to read it again (`seen_files`: also by the name it used).
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

API_KEY = "sk-ant-e2e-seen-links-0123456789"
KEEP = "USER'S OWN FILE, never shown to the model\n"


def test_a_name_swapped_for_a_link_between_runs_is_not_written_through(
    home: Path, tmp_path: Path, server: Any
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("model saw this\n")
    (workspace / "keep.txt").write_text(KEEP)
    env = read_notes_in_a_first_run(workspace, home, server, API_KEY)
    os.rename(workspace / "notes.txt", workspace / "notes.old")
    os.symlink("keep.txt", workspace / "notes.txt")
    content = "model saw this\nmodel line\n"
    server.enqueue(
        Reply(
            [tool_use_block("toolu_w", "write_file", {"path": "notes.txt", "content": content})],
            "tool_use",
        ),
        Reply([text_block("Wrote it.")]),
    )
    second = run_piped(["--yes", "--continue"], cwd=workspace, env=env, stdin_text="add\n")
    assert second.returncode == 0, second.stderr
    assert (workspace / "keep.txt").read_text() == KEEP
    told = tool_result_texts(server.accepted[-1])[-1]
    assert "keep.txt (via link notes.txt) changed since it was last read" in told
    assert "Read it again with read_file" in told
