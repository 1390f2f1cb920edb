"""Writing and running ask first: allow once, allow always, deny, and nobody to ask."""

from __future__ import annotations

from pathlib import Path

import pytest
from tools_support import RecordingAsker, make_toolbox

from agent_cli.tools import PermissionDecision, PermissionRequest

TOUCH = {"command": "touch created.txt"}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("draft\n")
    return root


def test_without_an_asker_and_without_auto_approve_bash_is_not_run_and_says_nobody_asked(
    workspace: Path,
):
    toolbox = make_toolbox(workspace, auto_approve=False)
    outcome = toolbox.run("bash", TOUCH)
    assert outcome.is_error
    assert outcome.content.startswith("bash was not run: it needs permission and nobody")
    assert "--yes" in outcome.content and "denied by the user" not in outcome.content
    assert outcome.summary == "not run: nobody could be asked"
    assert not (workspace / "created.txt").exists()


def test_an_asker_that_could_ask_nobody_is_not_reported_as_the_users_denial(workspace: Path):
    asker = RecordingAsker(PermissionDecision.DENY_UNASKED)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    outcome = toolbox.run("bash", TOUCH)
    assert "nobody could be asked" in outcome.content and "--yes" in outcome.content
    assert not (workspace / "created.txt").exists()
    # a real "no" afterwards is worded as the user's own again
    asker.decision = PermissionDecision.DENY
    assert toolbox.run("bash", TOUCH).content == "Permission denied by the user: bash was not run."


def test_a_denied_command_is_never_run(workspace: Path):
    asker = RecordingAsker(PermissionDecision.DENY)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    outcome = toolbox.run("bash", TOUCH)
    assert outcome.content == "Permission denied by the user: bash was not run."
    assert asker.requests == [PermissionRequest("bash", "touch created.txt")]
    assert not (workspace / "created.txt").exists()


def test_allow_once_runs_the_tool_and_asks_again_next_time(workspace: Path):
    asker = RecordingAsker(PermissionDecision.ALLOW_ONCE)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    assert not toolbox.run("bash", TOUCH).is_error
    assert (workspace / "created.txt").exists()
    toolbox.run("bash", {"command": "true"})
    assert [request.description for request in asker.requests] == ["touch created.txt", "true"]


def test_allow_always_is_remembered_for_that_command_only_not_the_whole_tool(workspace: Path):
    asker = RecordingAsker(PermissionDecision.ALLOW_ALWAYS)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    toolbox.run("bash", TOUCH)
    toolbox.run("bash", TOUCH)
    toolbox.run("bash", {"command": "true"})
    toolbox.run("write_file", {"path": "x.txt", "content": "x"})
    assert [request.description for request in asker.requests] == [
        "touch created.txt",
        "true",
        "create x.txt with 1 line",
    ]
    assert (workspace / "x.txt").read_text() == "x"


def test_auto_approve_runs_without_asking(workspace: Path):
    asker = RecordingAsker(PermissionDecision.DENY)
    toolbox = make_toolbox(workspace, auto_approve=True, ask_permission=asker)
    assert not toolbox.run("bash", TOUCH).is_error
    assert (workspace / "created.txt").exists()
    assert asker.requests == []


def test_reading_tools_never_ask(workspace: Path):
    asker = RecordingAsker(PermissionDecision.DENY)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    assert not toolbox.run("read_file", {"path": "notes.txt"}).is_error
    assert not toolbox.run("list_dir", {}).is_error
    assert not toolbox.run("grep", {"pattern": "draft"}).is_error
    assert asker.requests == []


def test_a_denied_write_leaves_the_file_alone(workspace: Path):
    asker = RecordingAsker(PermissionDecision.DENY)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    outcome = toolbox.run("write_file", {"path": "notes.txt", "content": "one\ntwo\n"})
    assert outcome.content == "Permission denied by the user: write_file was not run."
    assert asker.requests == [PermissionRequest("write_file", "overwrite notes.txt with 2 lines")]
    assert (workspace / "notes.txt").read_text() == "draft\n"


def test_a_denied_edit_leaves_the_file_alone(workspace: Path):
    asker = RecordingAsker(PermissionDecision.DENY)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    outcome = toolbox.run(
        "edit_file", {"path": "notes.txt", "old_string": "draft", "new_string": "final"}
    )
    assert outcome.content == "Permission denied by the user: edit_file was not run."
    assert asker.requests == [
        PermissionRequest("edit_file", "edit notes.txt: replace 1 line with 1 line")
    ]
    assert (workspace / "notes.txt").read_text() == "draft\n"


def test_an_edit_that_cannot_apply_fails_before_asking(workspace: Path):
    asker = RecordingAsker(PermissionDecision.ALLOW_ONCE)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    outcome = toolbox.run(
        "edit_file", {"path": "notes.txt", "old_string": "absent", "new_string": "x"}
    )
    assert outcome.is_error
    assert "not found" in outcome.content
    assert asker.requests == []


def test_a_write_outside_the_workspace_fails_before_asking(workspace: Path):
    asker = RecordingAsker(PermissionDecision.ALLOW_ONCE)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    outcome = toolbox.run("write_file", {"path": "../escape.txt", "content": "x"})
    assert outcome.is_error
    assert asker.requests == []


def test_an_asker_that_raises_counts_as_a_failed_call_not_a_crash(workspace: Path):
    def broken_asker(request: PermissionRequest) -> PermissionDecision:
        raise RuntimeError("prompt unavailable")

    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=broken_asker)
    outcome = toolbox.run("bash", TOUCH)
    assert outcome.is_error
    assert "RuntimeError" in outcome.content
    assert not (workspace / "created.txt").exists()


def test_ctrl_c_at_the_permission_prompt_propagates_without_running(workspace: Path):
    def interrupted_asker(request: PermissionRequest) -> PermissionDecision:
        raise KeyboardInterrupt

    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=interrupted_asker)
    with pytest.raises(KeyboardInterrupt):
        toolbox.run("bash", TOUCH)
    assert not (workspace / "created.txt").exists()


def test_a_link_swapped_in_while_the_user_decides_is_not_written_through(
    workspace: Path, tmp_path: Path
):
    outside = tmp_path / "outside"
    outside.mkdir()
    (workspace / "sub").mkdir()

    def swapping_asker(request: PermissionRequest) -> PermissionDecision:
        (workspace / "sub").rename(workspace / "sub-moved")
        (workspace / "sub").symlink_to(outside, target_is_directory=True)
        return PermissionDecision.ALLOW_ONCE

    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=swapping_asker)
    outcome = toolbox.run("write_file", {"path": "sub/f.txt", "content": "x"})
    assert outcome.is_error
    assert "outside the workspace" in outcome.content
    assert list(outside.iterdir()) == []


def test_a_path_redirected_inside_while_the_user_decides_is_not_written(workspace: Path):
    (workspace / "sub").mkdir()
    (workspace / "other").mkdir()

    def redirecting_asker(request: PermissionRequest) -> PermissionDecision:
        (workspace / "sub").rename(workspace / "sub-moved")
        (workspace / "sub").symlink_to(workspace / "other", target_is_directory=True)
        return PermissionDecision.ALLOW_ONCE

    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=redirecting_asker)
    outcome = toolbox.run("write_file", {"path": "sub/f.txt", "content": "x"})
    assert outcome.is_error
    assert "now leads somewhere else" in outcome.content
    assert list((workspace / "other").iterdir()) == []


class ShowingRecordingAsker(RecordingAsker):
    """A `ShowingAsker`: records what it is shown without being asked, too."""

    def __init__(self, decision: PermissionDecision) -> None:
        super().__init__(decision)
        self.shown_unasked: list[tuple[PermissionRequest, str]] = []

    def show_unasked(self, request: PermissionRequest, scope) -> None:
        self.shown_unasked.append((request, scope.shown))


def test_a_call_always_lets_through_is_shown_to_an_asker_that_can_show_it(workspace: Path):
    asker = ShowingRecordingAsker(PermissionDecision.ALLOW_ALWAYS)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    toolbox.run("write_file", {"path": "notes.txt", "content": "one\n"})
    assert asker.shown_unasked == []
    edit = {"path": "notes.txt", "old_string": "one", "new_string": "curl x | sh"}
    assert not toolbox.run("edit_file", edit).is_error
    assert len(asker.requests) == 1
    [(request, scope)] = asker.shown_unasked
    assert scope == "notes.txt" and request.description.startswith("edit notes.txt")
    assert "+curl x | sh" in request.approval.text.splitlines()


def test_nothing_is_shown_unasked_with_yes_or_for_a_call_no_always_covers(workspace: Path):
    asker = ShowingRecordingAsker(PermissionDecision.ALLOW_ONCE)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    toolbox.run("write_file", {"path": "notes.txt", "content": "one\n"})
    toolbox.run("write_file", {"path": "notes.txt", "content": "two\n"})
    assert len(asker.requests) == 2 and asker.shown_unasked == []
    yes = ShowingRecordingAsker(PermissionDecision.ALLOW_ONCE)
    make_toolbox(workspace, auto_approve=True, ask_permission=yes).run("bash", TOUCH)
    assert yes.requests == [] and yes.shown_unasked == []
