"""A name swapped for a link after the model read it does not let a stale write through.

Found (session 27): the model read `notes.txt`; the user then moved it aside and made
`notes.txt` a link to their own `keep.txt`; the model's write_file of `notes.txt` from
its old copy went through under `--yes` and replaced `keep.txt`, a file the model never
saw. The stale-write guard held what the model saw by resolved path only, and the link's
target had never been seen. It now also holds what the model saw under the name it used
(`seen_files`, `Workspace.named_path`). Real files, links and the real toolbox; across
`--continue`: `test_resume_seen_files.py`, and the real program: `test_e2e_seen_links.py`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tools_support import RecordingAsker, make_toolbox

from agent_cli.tools import PermissionDecision

SEEN = "model saw this\n"
KEEP = "USER'S OWN FILE, never shown to the model\n"
STALE = SEEN + "model line\n"
REFUSED = "keep.txt (via link notes.txt) changed since it was last read or written"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text(SEEN)
    (root / "keep.txt").write_text(KEEP)
    return root


def swap_for_link(workspace: Path, name: str = "notes.txt", target: str = "keep.txt") -> None:
    """The user's move: the file the model read set aside, a link to another in its place."""
    os.rename(workspace / name, workspace / f"{name}.old")
    os.symlink(target, workspace / name)


def read(toolbox, path: str = "notes.txt") -> None:
    outcome = toolbox.run("read_file", {"path": path})
    assert not outcome.is_error, outcome.content


def write(toolbox, content: str, path: str = "notes.txt"):
    return toolbox.run("write_file", {"path": path, "content": content})


def test_a_write_through_a_name_swapped_for_a_link_after_the_read_is_refused_under_yes(
    workspace: Path,
):
    toolbox = make_toolbox(workspace, auto_approve=True)
    read(toolbox)
    swap_for_link(workspace)
    outcome = write(toolbox, STALE)
    assert outcome.is_error and REFUSED in outcome.content
    assert "Read it again with read_file" in outcome.content
    assert (workspace / "keep.txt").read_text() == KEEP
    read(toolbox)  # read again: the model now has seen what the name leads to
    assert not write(toolbox, KEEP + "model line\n").is_error
    assert (workspace / "keep.txt").read_text() == KEEP + "model line\n"


def test_a_swapped_name_is_refused_before_anyone_is_asked(workspace: Path):
    asker = RecordingAsker(PermissionDecision.ALLOW_ALWAYS)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    read(toolbox)
    swap_for_link(workspace)
    assert REFUSED in write(toolbox, STALE).content
    assert asker.requests == [] and (workspace / "keep.txt").read_text() == KEEP


def test_a_name_that_was_a_link_all_along_is_read_and_written_through_it(workspace: Path):
    (workspace / "alias.txt").symlink_to("keep.txt")
    asker = RecordingAsker(PermissionDecision.ALLOW_ONCE)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    read(toolbox, "alias.txt")
    assert not write(toolbox, KEEP + "one\n", "alias.txt").is_error
    assert not write(toolbox, KEEP + "one\ntwo\n", "alias.txt").is_error  # its own write seen
    assert [request.description for request in asker.requests] == [
        "overwrite keep.txt with 2 lines (via link alias.txt)",
        "overwrite keep.txt with 3 lines (via link alias.txt)",
    ]
    assert (workspace / "alias.txt").is_symlink()
    assert (workspace / "keep.txt").read_text() == KEEP + "one\ntwo\n"


def test_a_folder_swapped_for_a_link_makes_a_write_below_it_refused(workspace: Path):
    (workspace / "docs").mkdir()
    (workspace / "docs" / "notes.txt").write_text(SEEN)
    (workspace / "other").mkdir()
    (workspace / "other" / "notes.txt").write_text(KEEP)
    toolbox = make_toolbox(workspace, auto_approve=True)
    read(toolbox, "docs/notes.txt")
    swap_for_link(workspace, "docs", "other")
    outcome = write(toolbox, STALE, "docs/notes.txt")
    assert outcome.is_error
    assert "other/notes.txt (via link docs/notes.txt) changed since" in outcome.content
    assert (workspace / "other" / "notes.txt").read_text() == KEEP


def test_a_name_with_dot_dot_is_held_by_its_folder_and_last_name(workspace: Path):
    (workspace / "sub").mkdir()
    toolbox = make_toolbox(workspace, auto_approve=True)
    read(toolbox, "sub/../notes.txt")
    swap_for_link(workspace)
    for path in ("sub/../notes.txt", "notes.txt"):
        assert write(toolbox, STALE, path).is_error
    assert (workspace / "keep.txt").read_text() == KEEP


def test_an_edit_through_a_swapped_name_edits_what_is_there_and_the_name_stays_stale(
    workspace: Path,
):
    """edit_file replaces its old text in the file as it is (never refused as stale); it
    does not count as having seen what the name now leads to, so a write from the old
    copy is still refused."""
    toolbox = make_toolbox(workspace, auto_approve=True)
    read(toolbox)
    swap_for_link(workspace)
    missing = {"path": "notes.txt", "old_string": "model saw", "new_string": "model read"}
    assert "old_string was not found in keep.txt" in toolbox.run("edit_file", missing).content
    edit = {"path": "notes.txt", "old_string": "OWN FILE", "new_string": "OWN NOTES"}
    assert not toolbox.run("edit_file", edit).is_error
    edited = KEEP.replace("OWN FILE", "OWN NOTES")
    assert (workspace / "keep.txt").read_text() == edited
    outcome = write(toolbox, STALE)
    assert outcome.is_error and REFUSED in outcome.content
    assert (workspace / "keep.txt").read_text() == edited
