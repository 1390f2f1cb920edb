"""A write is approved under the name of the file it writes, over what the approval showed.

Real files in a temporary workspace, the real toolbox, an asker that records what it is
asked (and, for the races, changes the file while "the question is up", as a user with an
editor would). The same cases on a real terminal: `test_e2e_approval_target.py`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from tools_support import make_toolbox

from agent_cli.tools import PermissionDecision, PermissionRequest
from agent_cli.tools.approval import MAX_DIFF_SOURCE_BYTES, ApprovalKind

GITCONFIG = "[core]\n\tbare = false\n"
EVIL = '[core]\n\tfsmonitor = "touch PWNED"\n'


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


class MeddlingAsker:
    """Answers `decision`, after running `meanwhile` (the user changing the file while the
    question is up); records the requests."""

    def __init__(
        self, decision: PermissionDecision, meanwhile: Callable[[], object] = lambda: None
    ) -> None:
        self.decision = decision
        self.meanwhile = meanwhile
        self.requests: list[PermissionRequest] = []

    def __call__(self, request: PermissionRequest) -> PermissionDecision:
        self.requests.append(request)
        self.meanwhile()
        return self.decision


def asking(workspace: Path, decision=PermissionDecision.ALLOW_ONCE, meanwhile=lambda: None):
    asker = MeddlingAsker(decision, meanwhile)
    return make_toolbox(workspace, auto_approve=False, ask_permission=asker), asker


# --- A1: the name approved is the file written ----------------------------------------------


def test_a_write_through_a_file_link_is_approved_and_reported_under_the_file_it_writes(
    workspace: Path,
):
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text(GITCONFIG)
    (workspace / "notes.md").symlink_to(".git/config")
    toolbox, asker = asking(workspace, PermissionDecision.ALLOW_ALWAYS)
    outcome = toolbox.run("write_file", {"path": "notes.md", "content": EVIL})
    request = asker.requests[0]
    assert request.description == "overwrite .git/config with 2 lines (via link notes.md)"
    assert request.approval.text.splitlines()[:2] == [
        "--- .git/config (now)",
        "+++ .git/config (after)",
    ]
    assert [scope.shown for scope in request.always_scopes()] == [".git/config"]
    assert outcome.content.startswith("Wrote 2 lines (")
    assert "to .git/config (replaced the old content) (via link notes.md)." in outcome.content
    assert (workspace / ".git" / "config").read_text() == EVIL
    # "always" was for the file written: by its own name it now runs unasked
    again = toolbox.run("write_file", {"path": ".git/config", "content": GITCONFIG})
    assert not again.is_error and len(asker.requests) == 1


def test_dot_dot_after_a_linked_folder_is_named_as_the_os_resolves_it(workspace: Path):
    (workspace / "a" / "b").mkdir(parents=True)
    (workspace / "README.md").write_text("# top readme\n")
    (workspace / "a" / "README.md").write_text("# a's readme\n")
    (workspace / "docs").symlink_to("a/b")
    toolbox, asker = asking(workspace)
    toolbox.run("write_file", {"path": "docs/../README.md", "content": "# new text\n"})
    request = asker.requests[0]
    assert request.description == "overwrite a/README.md with 1 line (via link docs/../README.md)"
    assert request.approval.text.splitlines()[0] == "--- a/README.md (now)"
    assert request.always_scopes()[0].shown == "a/README.md"
    assert (workspace / "a" / "README.md").read_text() == "# new text\n"
    assert (workspace / "README.md").read_text() == "# top readme\n"
    read = toolbox.run("read_file", {"path": "docs/../README.md"})
    assert read.content.startswith("File: a/README.md (lines 1-1 of 1)")


def test_an_edit_through_a_link_names_the_file_edited(workspace: Path):
    (workspace / "real.txt").write_text("one\n")
    (workspace / "alias.txt").symlink_to("real.txt")
    toolbox, asker = asking(workspace)
    outcome = toolbox.run(
        "edit_file", {"path": "alias.txt", "old_string": "one", "new_string": "two"}
    )
    assert asker.requests[0].description == (
        "edit real.txt: replace 1 line with 1 line (via link alias.txt)"
    )
    assert outcome.content.startswith("Edited real.txt (via link alias.txt): replaced")


def test_a_path_without_a_link_has_no_link_note(workspace: Path):
    (workspace / "sub").mkdir()
    toolbox, asker = asking(workspace)
    toolbox.run("write_file", {"path": "./sub/../new.txt", "content": "x\n"})
    assert asker.requests[0].description == "create new.txt with 1 line"


# --- A15: a folder named ~ ------------------------------------------------------------------


def test_a_folder_named_tilde_in_the_workspace_never_reads_as_the_home_folder(workspace: Path):
    toolbox, asker = asking(workspace, PermissionDecision.ALLOW_ALWAYS)
    outcome = toolbox.run("write_file", {"path": "~/.ssh/authorized_keys", "content": "k\n"})
    request = asker.requests[0]
    assert request.description == "create ./~/.ssh/authorized_keys with 1 line"
    assert request.always_scopes()[0].shown == "./~/.ssh/authorized_keys"
    assert "to ./~/.ssh/authorized_keys (new file)" in outcome.content
    assert (workspace / "~" / ".ssh" / "authorized_keys").read_text() == "k\n"
    listing = toolbox.run("list_dir", {"path": "~"})
    assert listing.content.startswith("Directory: ./~ (")
    # a name that only contains a tilde further on is left as it is
    toolbox.run("write_file", {"path": "a~/b~.txt", "content": "k\n"})
    assert asker.requests[-1].description.startswith("create a~/b~.txt ")


# --- A4: what the approval showed is what is written over ------------------------------------


def test_a_file_that_appears_while_create_is_asked_is_kept(workspace: Path):
    target = workspace / "notes.txt"
    toolbox, asker = asking(workspace, meanwhile=lambda: target.write_text("the user's notes\n"))
    outcome = toolbox.run("write_file", {"path": "notes.txt", "content": "model notes\n"})
    assert asker.requests[0].description == "create notes.txt with 1 line"
    assert outcome.is_error
    assert "notes.txt did not exist when writing it was approved" in outcome.content
    assert "Read it with read_file" in outcome.content and "(new file)" not in outcome.content
    assert target.read_text() == "the user's notes\n"


def test_a_line_added_while_an_overwrite_is_asked_is_not_destroyed(workspace: Path):
    target = workspace / "todo.txt"
    target.write_text("buy milk\n")
    toolbox, _ = asking(
        workspace, meanwhile=lambda: target.write_text("buy milk\ncall the bank before 5pm\n")
    )
    outcome = toolbox.run("write_file", {"path": "todo.txt", "content": "buy milk\nbuy eggs\n"})
    assert outcome.is_error and "todo.txt changed after writing it was approved" in outcome.content
    assert target.read_text() == "buy milk\ncall the bank before 5pm\n"


def test_an_edit_is_not_made_in_a_file_that_changed_while_it_was_asked(workspace: Path):
    # the diff showed the line under `if DRY_RUN:`; meanwhile it moved into a loop
    target = workspace / "cleanup.py"
    target.write_text("import shutil\nif DRY_RUN:\n    print('would remove', path)\n")
    moved = "import shutil\nfor path in ALL_USER_DIRS:\n    print('would remove', path)\n"
    toolbox, asker = asking(workspace, meanwhile=lambda: target.write_text(moved))
    outcome = toolbox.run(
        "edit_file",
        {
            "path": "cleanup.py",
            "old_string": "    print('would remove', path)",
            "new_string": "    shutil.rmtree(path)",
        },
    )
    assert "if DRY_RUN:" in asker.requests[0].approval.text
    assert outcome.is_error and "cleanup.py changed after" in outcome.content
    assert target.read_text() == moved


def test_an_edit_goes_ahead_when_the_file_was_only_touched_while_it_was_asked(workspace: Path):
    target = workspace / "notes.txt"
    target.write_text("one\n")
    toolbox, _ = asking(workspace, meanwhile=lambda: os.utime(target, (1, 1)))
    outcome = toolbox.run(
        "edit_file", {"path": "notes.txt", "old_string": "one", "new_string": "two"}
    )
    assert not outcome.is_error, outcome.content
    assert target.read_text() == "two\n"


def test_a_file_deleted_while_its_overwrite_is_asked_is_not_made_again(workspace: Path):
    target = workspace / "todo.txt"
    target.write_text("buy milk\n")
    toolbox, _ = asking(workspace, meanwhile=target.unlink)
    outcome = toolbox.run("write_file", {"path": "todo.txt", "content": "buy eggs\n"})
    assert outcome.is_error and "was deleted after writing it was approved" in outcome.content
    assert not target.exists()


def test_the_same_bytes_written_again_or_a_touch_meanwhile_do_not_stop_the_write(workspace: Path):
    target = workspace / "todo.txt"
    target.write_text("buy milk\n")

    def rewrite_and_touch() -> None:
        target.write_text("buy milk\n")
        os.utime(target, (1, 1))

    toolbox, _ = asking(workspace, meanwhile=rewrite_and_touch)
    outcome = toolbox.run("write_file", {"path": "todo.txt", "content": "buy eggs\n"})
    assert not outcome.is_error, outcome.content
    assert target.read_text() == "buy eggs\n"


def test_a_big_file_changed_while_its_overwrite_is_asked_is_kept(workspace: Path):
    from agent_cli.tools import file_state

    target = workspace / "big.log"
    target.write_bytes(b"x" * 100)
    appended = b"x" * 100 + b"the user's line\n"

    def grow() -> None:
        with target.open("ab") as handle:
            handle.write(b"the user's line\n")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(file_state, "DIGEST_MAX_BYTES", 50)  # fingerprinted by inode and times
        toolbox, _ = asking(workspace, meanwhile=grow)
        outcome = toolbox.run("write_file", {"path": "big.log", "content": "short\n"})
    assert outcome.is_error and "big.log changed after" in outcome.content
    assert target.read_bytes() == appended


def test_a_directory_is_refused_before_anyone_is_asked(workspace: Path):
    (workspace / "folder").mkdir()
    toolbox, asker = asking(workspace)
    outcome = toolbox.run("write_file", {"path": "folder", "content": "x\n"})
    assert outcome.is_error and "folder is a directory" in outcome.content
    assert asker.requests == []


# --- A11: an overwrite without a diff says what it replaces ---------------------------------


def test_an_overwrite_too_big_to_diff_says_so_and_how_big_the_old_file_is(workspace: Path):
    (workspace / "data.csv").write_bytes(b"id,name\n" + b"1,customer\n" * 250_000)
    toolbox, asker = asking(workspace, PermissionDecision.DENY)
    toolbox.run("write_file", {"path": "data.csv", "content": "id,name\n"})
    request = asker.requests[0]
    assert (workspace / "data.csv").stat().st_size > MAX_DIFF_SOURCE_BYTES
    assert request.approval.kind is ApprovalKind.CONTENT
    assert request.description == "overwrite data.csv (2.6 MB now, too big to diff) with 1 line"


def test_an_overwrite_of_a_binary_file_says_it_replaces_binary_data(workspace: Path):
    (workspace / "app.db").write_bytes(b"SQLite format 3\x00" + b"\x01" * 5000)
    toolbox, asker = asking(workspace, PermissionDecision.DENY)
    toolbox.run("write_file", {"path": "app.db", "content": "id,name\n"})
    assert asker.requests[0].description == (
        "overwrite app.db (binary, 4.9 KB now; not shown) with 1 line"
    )


def test_an_overwrite_shown_as_a_diff_carries_no_such_note(workspace: Path):
    (workspace / "notes.txt").write_text("one\n")
    toolbox, asker = asking(workspace, PermissionDecision.DENY)
    toolbox.run("write_file", {"path": "notes.txt", "content": "two\n"})
    assert asker.requests[0].description == "overwrite notes.txt with 1 line"
