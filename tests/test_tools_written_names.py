"""Names holding controls read the same in every place: approvals, panels, the model's text.

A fifteenth outside attack (F5): a folder `d<ESC>]52;c;QUFB<BEL>x` holding
`n<ESC>]0;TITLE<BEL><ESC>[2J.txt`, and a file `new<LF>line.txt`. The list_dir panel
showed `dx/`, then `new` and `line.txt (7 B)` as two entries; the grep panel showed
`dx/n.txt:1: needle`; write_file's panel said `path: dx/n.txt` while its approval asked
about `create d^[]52;c;QUFB^Gx/n^[]0;T^G.txt`; the model got the raw bytes. Now every
name is written out by the one rule approvals use (`written_out.reveal_all`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tools_support import RecordingAsker, make_toolbox

from agent_cli.events import ToolStarted
from agent_cli.repl.approval_view import describe_request
from agent_cli.repl.safe_text import show_path
from agent_cli.repl.tool_lines import build_tool_started_line
from agent_cli.tools import PermissionDecision

FOLDER = "d\x1b]52;c;QUFB\x07x"
INNER = "n\x1b]0;TITLE\x07\x1b[2J.txt"
NEW = f"{FOLDER}/n\x1b]0;T\x07.txt"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / FOLDER).mkdir(parents=True)
    (root / FOLDER / INNER).write_text("needle\n")
    (root / "new\nline.txt").write_text("a needle\n")
    return root


def test_list_dir_writes_each_name_out_on_one_line(workspace: Path):
    content = make_toolbox(workspace).run("list_dir", {"path": "."}).content
    assert content.splitlines() == [
        "Directory: . (1 directory, 1 file)",
        "d^[]52;c;QUFB^Gx/",
        "new^Jline.txt  (9 B)",
    ]
    assert show_path(FOLDER) + "/" in content  # as an approval names it


def test_a_listed_folder_is_named_as_list_dir_of_it_names_it(workspace: Path):
    content = make_toolbox(workspace).run("list_dir", {"path": FOLDER}).content
    assert content.splitlines() == [
        "Directory: d^[]52;c;QUFB^Gx (0 directories, 1 file)",
        "n^[]0;TITLE^G^[[2J.txt  (7 B)",
    ]


def test_grep_names_the_matching_file_as_approvals_do(workspace: Path):
    content = make_toolbox(workspace).run("grep", {"pattern": "needle"}).content
    assert "d^[]52;c;QUFB^Gx/n^[]0;TITLE^G^[[2J.txt:1: needle" in content
    assert show_path(f"{FOLDER}/{INNER}") + ":1: needle" in content
    assert "\x1b" not in content and "\x07" not in content


def test_a_link_and_its_target_are_written_out(workspace: Path):
    (workspace / "to\x1b[2Jx").symlink_to(f"{FOLDER}/{INNER}")
    content = make_toolbox(workspace).run("list_dir", {"path": "."}).content
    assert "to^[[2Jx -> d^[]52;c;QUFB^Gx/n^[]0;TITLE^G^[[2J.txt" in content


def test_write_files_panel_approval_and_answer_name_the_same_file(workspace: Path):
    asker = RecordingAsker(PermissionDecision.ALLOW_ONCE)
    box = make_toolbox(workspace, ask_permission=asker, auto_approve=False)
    outcome = box.run("write_file", {"path": NEW, "content": "hi\n"})
    written = "d^[]52;c;QUFB^Gx/n^[]0;T^G.txt"
    (request,) = asker.requests
    assert describe_request(request, 200) == f"create {written} with 1 line"
    panel = build_tool_started_line(ToolStarted("toolu_1", "write_file", {"path": NEW}), 120)
    assert f"path: {written}" in panel.plain
    assert outcome.content == f"Wrote 1 line (3 B) to {written} (new file)."
    assert (workspace / NEW).read_text() == "hi\n"


def test_read_file_and_its_errors_name_the_file_written_out(workspace: Path):
    box = make_toolbox(workspace)
    read = box.run("read_file", {"path": f"{FOLDER}/{INNER}"}).content
    assert read.startswith("File: d^[]52;c;QUFB^Gx/n^[]0;TITLE^G^[[2J.txt (lines 1-1 of 1)")
    past = box.run("read_file", {"path": "new\nline.txt", "start_line": 5})
    assert past.is_error and "new^Jline.txt" in past.content
