"""A write never replaces changes the model has not seen, whatever approved it.

Real files in a temporary workspace and the real toolbox (`seen_files`): the model reads
or writes a file, then the user (or a command) changes it, then the model writes it
again from its stale copy. The same case on a real terminal: `test_e2e_seen_files.py`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tools_support import RecordingAsker, make_toolbox

from agent_cli.tools import PermissionDecision
from agent_cli.tools.approval import ApprovalKind
from agent_cli.tools.context import ToolLimits
from agent_cli.tools.file_state import FileState, StateKind
from agent_cli.tools.seen_files import FileChangedUnseen, SeenFiles

FIRST = "# Notes\n- item one\n"
USERS = FIRST + "- the user's own line\n"
STALE = "# Notes\n- item one\n- item two\n"
REFUSED = "notes.md changed since it was last read or written in this session"
READ_CAP = ToolLimits().max_read_file_bytes  # read_file's cap: 20 MB


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def write(toolbox, content: str, path: str = "notes.md"):
    return toolbox.run("write_file", {"path": path, "content": content})


def refused_and_kept(outcome, target: Path, text: str) -> bool:
    return outcome.is_error and REFUSED in outcome.content and target.read_text() == text


@pytest.mark.parametrize("approval", ["always", "yes"])
def test_a_write_over_a_file_the_user_changed_since_the_models_write_is_refused(
    workspace: Path, approval: str
):
    asker = RecordingAsker(PermissionDecision.ALLOW_ALWAYS)
    if approval == "always":
        toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    else:
        toolbox = make_toolbox(workspace, auto_approve=True)
    target = workspace / "notes.md"
    assert not write(toolbox, FIRST).is_error
    target.write_text(USERS)  # the user's editor, between turns
    outcome = write(toolbox, STALE)
    assert refused_and_kept(outcome, target, USERS)
    assert "Read it again with read_file" in outcome.content
    assert len(asker.requests) == (1 if approval == "always" else 0)  # refused unasked


def test_a_write_over_a_file_changed_since_it_was_read_is_refused_before_the_question(
    workspace: Path,
):
    target = workspace / "notes.md"
    target.write_text(FIRST)
    asker = RecordingAsker(PermissionDecision.ALLOW_ONCE)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    assert not toolbox.run("read_file", {"path": "notes.md"}).is_error
    target.write_text(USERS)
    assert refused_and_kept(write(toolbox, STALE), target, USERS)
    assert asker.requests == []  # nobody was asked about a write that cannot be made


def test_reading_the_file_again_lets_the_next_write_through(workspace: Path):
    target = workspace / "notes.md"
    toolbox = make_toolbox(workspace)
    write(toolbox, FIRST)
    target.write_text(USERS)
    assert write(toolbox, STALE).is_error
    assert not toolbox.run("read_file", {"path": "notes.md"}).is_error
    assert not write(toolbox, USERS + "- item two\n").is_error
    assert target.read_text() == USERS + "- item two\n"


def test_a_read_of_part_of_the_file_counts_as_seen(workspace: Path):
    target = workspace / "notes.md"
    target.write_text("".join(f"line {n}\n" for n in range(1, 51)))
    toolbox = make_toolbox(workspace)
    window = {"path": "notes.md", "start_line": 3, "end_line": 4}
    assert not toolbox.run("read_file", window).is_error
    assert not write(toolbox, "replaced\n").is_error
    assert target.read_text() == "replaced\n"


def test_a_command_that_changed_the_file_makes_the_write_refused(workspace: Path):
    target = workspace / "notes.md"
    toolbox = make_toolbox(workspace)
    write(toolbox, FIRST)
    assert not toolbox.run("bash", {"command": "echo '- from a command' >> notes.md"}).is_error
    outcome = write(toolbox, STALE)
    assert refused_and_kept(outcome, target, FIRST + "- from a command\n")


def test_touching_the_file_or_writing_the_same_bytes_is_no_change(workspace: Path):
    target = workspace / "notes.md"
    toolbox = make_toolbox(workspace)
    write(toolbox, FIRST)
    os.utime(target, (1, 1))
    target.write_text(FIRST)
    assert not write(toolbox, STALE).is_error
    assert target.read_text() == STALE


def test_a_file_never_read_in_this_session_is_asked_about_with_its_diff(workspace: Path):
    target = workspace / "notes.md"
    target.write_text(USERS)
    asker = RecordingAsker(PermissionDecision.ALLOW_ONCE)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    assert not write(toolbox, STALE).is_error
    assert asker.requests[0].approval.kind is ApprovalKind.DIFF
    assert "-- the user's own line" in asker.requests[0].approval.text
    assert target.read_text() == STALE


def test_a_toolbox_told_nothing_seen_asks_with_the_diff(workspace: Path):
    """A toolbox of its own (a resumed session restores what its transcript recorded:
    `test_resume_seen_files.py`) has seen nothing of what another one wrote."""
    target = workspace / "notes.md"
    write(make_toolbox(workspace), FIRST)  # another toolbox
    target.write_text(USERS)
    asker = RecordingAsker(PermissionDecision.DENY)
    resumed = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    assert write(resumed, STALE).is_error
    assert asker.requests[0].approval.kind is ApprovalKind.DIFF
    assert target.read_text() == USERS


def test_a_file_deleted_since_it_was_seen_may_be_written_again(workspace: Path):
    target = workspace / "notes.md"
    toolbox = make_toolbox(workspace)
    write(toolbox, FIRST)
    target.unlink()
    assert not write(toolbox, STALE).is_error
    assert target.read_text() == STALE


def test_an_edit_applies_to_the_current_content_and_keeps_the_users_line(workspace: Path):
    target = workspace / "notes.md"
    toolbox = make_toolbox(workspace)
    write(toolbox, FIRST)
    target.write_text(USERS)
    edit = {"path": "notes.md", "old_string": "- item one", "new_string": "- item 1"}
    assert not toolbox.run("edit_file", edit).is_error
    assert target.read_text() == "# Notes\n- item 1\n- the user's own line\n"
    # the model has still not seen the user's line: a write from its copy is refused
    assert refused_and_kept(write(toolbox, STALE), target, target.read_text())
    assert "the user's own line" in target.read_text()


def test_an_edit_whose_old_text_the_user_changed_is_not_found(workspace: Path):
    target = workspace / "notes.md"
    toolbox = make_toolbox(workspace)
    write(toolbox, FIRST)
    target.write_text("# Notes\n- item ONE (the user's)\n")
    edit = {"path": "notes.md", "old_string": "- item one", "new_string": "- item 1"}
    outcome = toolbox.run("edit_file", edit)
    assert outcome.is_error and "old_string was not found in notes.md" in outcome.content
    assert target.read_text() == "# Notes\n- item ONE (the user's)\n"


def test_an_edit_of_a_file_seen_as_it_is_counts_as_seen(workspace: Path):
    target = workspace / "notes.md"
    target.write_text(FIRST)
    toolbox = make_toolbox(workspace)
    edit = {"path": "notes.md", "old_string": "- item one", "new_string": "- item 1"}
    assert not toolbox.run("edit_file", edit).is_error  # never read: what it wrote is seen
    assert not write(toolbox, "# Notes\n- item 1\n- item 2\n").is_error
    target.write_text(USERS)
    assert refused_and_kept(write(toolbox, STALE), target, USERS)


def test_seen_files_forget_the_path_seen_longest_ago_past_their_limit():
    seen = SeenFiles(limit=2)
    now = FileState(StateKind.FILE, ("sha256", "now"))
    for name in ("a", "b", "c"):
        seen.note_seen(Path(name), ("sha256", "then"))
    seen.require_seen(Path("a"), now, "a", READ_CAP)  # forgotten: never seen, nothing to check
    with pytest.raises(FileChangedUnseen):
        seen.require_seen(Path("b"), now, "b", READ_CAP)


def lines_of(megabytes: float) -> str:
    """Text of 100-byte lines, about `megabytes` MiB of it."""
    return ("x" * 99 + "\n") * int(megabytes * 10_486)


def test_touching_a_33_mb_file_the_model_wrote_is_no_change(workspace: Path):
    """Found: over 32 MB a file was told by its inode and times, so a chmod and a touch
    that left its content as it was refused the model's next write of it."""
    target = workspace / "data.csv"
    toolbox = make_toolbox(workspace)
    content = lines_of(33)
    assert not write(toolbox, content, "data.csv").is_error
    os.chmod(target, 0o644)
    os.utime(target)
    assert not write(toolbox, content + "more\n", "data.csv").is_error
    assert target.read_text().endswith("x\nmore\n")


def test_a_changed_file_too_big_for_read_file_is_refused_once_and_never_for_good(
    workspace: Path,
):
    """Found: the refusal said to read the file again, which read_file refuses over its
    20 MB cap, so the model could never write that path again. Now the refusal says how
    to look at it and counts as having seen it as it is."""
    target = workspace / "data.csv"
    toolbox = make_toolbox(workspace)
    assert not write(toolbox, lines_of(21), "data.csv").is_error
    with target.open("a") as handle:
        handle.write("the user's line\n")
    refused = write(toolbox, "small\n", "data.csv")
    assert refused.is_error and "data.csv changed since it was last read" in refused.content
    assert "read_file cannot show it (21.0 MB, over its 20.0 MB read cap)" in refused.content
    assert "look at it with bash" in refused.content
    assert target.read_text().endswith("the user's line\n")  # nothing was written
    assert toolbox.run("read_file", {"path": "data.csv"}).is_error  # the old advice's way
    assert not write(toolbox, "small\n", "data.csv").is_error
    assert target.read_text() == "small\n"


def test_a_changed_binary_file_is_refused_once_and_never_for_good(workspace: Path):
    target = workspace / "blob.dat"
    toolbox = make_toolbox(workspace)
    assert not write(toolbox, "head\x00tail\n", "blob.dat").is_error
    target.write_bytes(b"head\x00the user's tail\n")
    refused = write(toolbox, "new\x00tail\n", "blob.dat")
    assert refused.is_error and "read_file cannot show it (it holds NUL bytes" in refused.content
    assert target.read_bytes() == b"head\x00the user's tail\n"
    assert not write(toolbox, "new\x00tail\n", "blob.dat").is_error
    target.write_bytes(b"changed again\x00\n")  # seen as it was refused, not from then on
    assert write(toolbox, "newer\x00\n", "blob.dat").is_error
    assert target.read_bytes() == b"changed again\x00\n"
