"""End to end through the CLI (offline model, piped): the workspace folder removed while
the session runs. Every tool that works in it says so in the same words (the toolbox checks
the folder before each such call and after one that failed), the call that removed it
says so too, tools that do not need it go on, and the advice given is true: resuming the
session by its id from another folder works.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from e2e_support import build_env, run_piped

pytestmark = pytest.mark.e2e

GONE = "no longer exists (moved or deleted while this session ran); nothing was done"
WORKSPACE_TOOL_LINES = (
    "list .",
    "run ls",
    "read a.txt",
    "grep hello",
    "write b.txt: new text",
    "edit a.txt: hello -> bye",
)


def _error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("╰─ ✗")]


def test_every_workspace_tool_says_the_workspace_folder_is_gone_and_how_to_go_on(
    tmp_path: Path, home: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "a.txt").write_text("hello\n", encoding="utf-8")
    lines = [f"run rm -rf {workspace}", *WORKSPACE_TOOL_LINES, "recall search hello"]
    env = build_env(home)
    done = run_piped(
        ["--provider", "offline", "--yes"],
        cwd=workspace,
        env=env,
        stdin_text="\n".join(lines) + "\n",
    )
    output = done.stdout + done.stderr
    session = re.search(r"resume with: agent-cli --resume (\S+)", output)
    assert session is not None, output
    # the call that removed it is told so at once, without "nothing was done" (it ran):
    # the user in the user's words, under the panel (the model's note is not shown)
    assert f"The workspace folder {workspace} no longer exists (moved or deleted during" in output
    assert "[After this call:" not in output
    errors = _error_lines(output)
    gone = [line for line in errors if f"The workspace folder {workspace} {GONE}" in line]
    assert len(gone) == len(WORKSPACE_TOOL_LINES), errors
    assert not any("No such directory" in line or "could not be started" in line for line in errors)
    assert "Start agent-cli again in that folder" not in output
    # recall does not work in the folder: it is not refused for it
    recall = output[output.index("╭─ recall") :]
    assert "╰─ ✓ 1 match" in recall and GONE not in recall

    # the advice holds: the session resumes by its id from another folder
    other = tmp_path / "other"
    other.mkdir()
    resumed = run_piped(
        ["--provider", "offline", "--yes", "--resume", session.group(1)],
        cwd=other,
        env=env,
        stdin_text="list .\n",
    )
    shown = resumed.stdout + resumed.stderr
    assert f"This session worked in {workspace}, which no longer exists" in shown
    assert "╰─ ✓ 0 entries" in shown and GONE not in shown
