"""File tools stay inside the workspace: `..`, absolute paths and symlinks that lead out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tools_support import make_toolbox

from agent_cli.errors import WorkspaceEscape, WorkspaceGone
from agent_cli.tools.workspace import Workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "inside.txt").write_text("inside\n")
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("top secret\n")
    return folder


def assert_refused(outcome) -> None:
    assert outcome.is_error
    assert "outside the workspace" in outcome.content
    assert "top secret" not in outcome.content


def test_dot_dot_that_climbs_out_is_refused(workspace: Path, outside: Path):
    assert_refused(make_toolbox(workspace).run("read_file", {"path": "../outside/secret.txt"}))


def test_dot_dot_hidden_in_the_middle_of_a_path_is_refused(workspace: Path, outside: Path):
    outcome = make_toolbox(workspace).run("read_file", {"path": "sub/../../outside/secret.txt"})
    assert_refused(outcome)


def test_dot_dot_that_stays_inside_is_allowed(workspace: Path):
    outcome = make_toolbox(workspace).run("read_file", {"path": "sub/../inside.txt"})
    assert not outcome.is_error
    assert outcome.content.startswith("File: inside.txt (lines 1-1 of 1)")


def test_absolute_path_outside_is_refused(workspace: Path, outside: Path):
    outcome = make_toolbox(workspace).run("read_file", {"path": str(outside / "secret.txt")})
    assert_refused(outcome)


def test_absolute_path_inside_is_allowed(workspace: Path):
    outcome = make_toolbox(workspace).run("read_file", {"path": str(workspace / "inside.txt")})
    assert not outcome.is_error
    assert "inside" in outcome.content


def test_write_through_dot_dot_creates_nothing_outside(workspace: Path, outside: Path):
    outcome = make_toolbox(workspace).run(
        "write_file", {"path": "../outside/new.txt", "content": "x"}
    )
    assert_refused(outcome)
    assert not (outside / "new.txt").exists()


def test_reading_a_symlink_to_an_outside_file_is_refused(workspace: Path, outside: Path):
    (workspace / "link.txt").symlink_to(outside / "secret.txt")
    outcome = make_toolbox(workspace).run("read_file", {"path": "link.txt"})
    assert_refused(outcome)
    assert "symbolic link" in outcome.content


def test_writing_through_a_symlink_to_an_outside_file_is_refused(workspace: Path, outside: Path):
    (workspace / "link.txt").symlink_to(outside / "secret.txt")
    outcome = make_toolbox(workspace).run("write_file", {"path": "link.txt", "content": "pwned"})
    assert_refused(outcome)
    assert (outside / "secret.txt").read_text() == "top secret\n"


def test_editing_through_a_symlink_to_an_outside_file_is_refused(workspace: Path, outside: Path):
    (workspace / "link.txt").symlink_to(outside / "secret.txt")
    outcome = make_toolbox(workspace).run(
        "edit_file", {"path": "link.txt", "old_string": "top", "new_string": "no"}
    )
    assert_refused(outcome)
    assert (outside / "secret.txt").read_text() == "top secret\n"


def test_a_dangling_symlink_pointing_outside_is_not_followed_by_writes(
    workspace: Path, outside: Path
):
    (workspace / "dangling").symlink_to(outside / "would-be-created.txt")
    outcome = make_toolbox(workspace).run("write_file", {"path": "dangling", "content": "x"})
    assert_refused(outcome)
    assert not (outside / "would-be-created.txt").exists()


def test_a_symlinked_directory_leading_out_is_refused_for_reads(workspace: Path, outside: Path):
    (workspace / "linkdir").symlink_to(outside, target_is_directory=True)
    assert_refused(make_toolbox(workspace).run("read_file", {"path": "linkdir/secret.txt"}))
    assert_refused(make_toolbox(workspace).run("list_dir", {"path": "linkdir"}))
    assert_refused(make_toolbox(workspace).run("grep", {"pattern": "secret", "path": "linkdir"}))


def test_a_symlinked_directory_leading_out_is_refused_for_writes(workspace: Path, outside: Path):
    (workspace / "linkdir").symlink_to(outside, target_is_directory=True)
    outcome = make_toolbox(workspace).run(
        "write_file", {"path": "linkdir/deep/new.txt", "content": "x"}
    )
    assert_refused(outcome)
    assert not (outside / "deep").exists()


def test_grep_of_the_whole_workspace_does_not_follow_links_out(workspace: Path, outside: Path):
    (workspace / "linkdir").symlink_to(outside, target_is_directory=True)
    (workspace / "link.txt").symlink_to(outside / "secret.txt")
    outcome = make_toolbox(workspace).run("grep", {"pattern": "secret"})
    assert not outcome.is_error
    assert "top secret" not in outcome.content
    assert outcome.content.startswith("No matches")


def test_a_symlink_that_stays_inside_is_followed(workspace: Path):
    (workspace / "alias.txt").symlink_to(workspace / "inside.txt")
    toolbox = make_toolbox(workspace)
    assert "inside" in toolbox.run("read_file", {"path": "alias.txt"}).content
    outcome = toolbox.run("write_file", {"path": "alias.txt", "content": "changed\n"})
    assert not outcome.is_error
    assert (workspace / "inside.txt").read_text() == "changed\n"
    assert (workspace / "alias.txt").is_symlink()


def test_a_workspace_reached_through_a_symlink_still_confines(tmp_path: Path, outside: Path):
    real = tmp_path / "real-ws"
    real.mkdir()
    (real / "a.txt").write_text("a\n")
    alias = tmp_path / "alias-ws"
    alias.symlink_to(real, target_is_directory=True)
    toolbox = make_toolbox(alias)
    assert not toolbox.run("read_file", {"path": "a.txt"}).is_error
    assert_refused(toolbox.run("read_file", {"path": "../outside/secret.txt"}))


def test_a_workspace_folder_replaced_during_the_session_is_refused_not_written_into_the_old_one(
    tmp_path: Path,
):
    root = tmp_path / "ws"
    root.mkdir()
    toolbox = make_toolbox(root)
    root.rename(tmp_path / "ws-moved")
    root.mkdir()
    outcome = toolbox.run("write_file", {"path": "a.txt", "content": "x\n"})
    assert outcome.is_error and "was replaced by another folder" in outcome.content
    assert not (root / "a.txt").exists() and not (tmp_path / "ws-moved" / "a.txt").exists()


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("list_dir", {"path": "."}),
        ("bash", {"command": "touch made-here"}),
        ("grep", {"pattern": "x"}),
        ("read_file", {"path": "a.txt"}),
        ("edit_file", {"path": "a.txt", "old_string": "x", "new_string": "y"}),
    ],
)
def test_every_workspace_tool_refuses_a_workspace_folder_replaced_in_the_same_words(
    tmp_path: Path, tool: str, tool_input: dict[str, str]
):
    """One check in the toolbox, not one per tool: a command does not run in the folder
    now at the path (it would, by its path), and the words say what works from here."""
    root = tmp_path / "ws"
    root.mkdir()
    toolbox = make_toolbox(root)
    root.rename(tmp_path / "ws-moved")
    root.mkdir()
    (root / "a.txt").write_text("x\n")
    outcome = toolbox.run(tool, tool_input)
    assert outcome.is_error and outcome.content == (
        f"The workspace folder {root} was replaced by another folder while this session "
        "ran; nothing was done. This session's file tools and commands work only in the "
        "folder it started in: the user can quit and run `agent-cli --resume session-1` to "
        "go on with this conversation in the folder now there."
    )
    cause = outcome.cause  # for the REPL's own words to the user (`repl.error_text`)
    assert isinstance(cause, WorkspaceGone)
    assert (cause.root, cause.now, cause.session_id) == (str(root), "another folder", "session-1")
    assert sorted(p.name for p in root.iterdir()) == ["a.txt"]
    assert (root / "a.txt").read_text() == "x\n"


def test_a_command_that_removes_the_workspace_folder_is_told_so_in_its_result(tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    outcome = make_toolbox(root).run("bash", {"command": f"rm -rf '{root}'; echo done"})
    assert not outcome.is_error and "done" in outcome.content
    assert f"[After this call: The workspace folder {root} no longer exists (moved or " in (
        outcome.content
    )
    assert "nothing was done" not in outcome.content


@pytest.mark.parametrize("relative", ["../outside.txt", "sub/../../outside.txt", "./x", "a//b"])
def test_the_safe_opener_walks_only_plain_names(tmp_path: Path, relative: str):
    """`..` is not a link, so O_NOFOLLOW alone would climb it: the walk refuses it."""
    from agent_cli.errors import WorkspaceEscape
    from agent_cli.tools.safe_open import open_file_beneath

    (tmp_path / "outside.txt").write_text("outside\n")
    (tmp_path / "ws" / "sub").mkdir(parents=True)
    root = os.open(tmp_path / "ws", os.O_RDONLY | os.O_DIRECTORY)
    try:
        with pytest.raises(WorkspaceEscape):
            open_file_beneath(root, relative.split("/"), relative, os.O_RDONLY)
    finally:
        os.close(root)


@pytest.fixture
def sibling(tmp_path: Path) -> Path:
    """A folder next to the workspace whose name starts with the workspace's (`ws2`): a
    check written as a string prefix test would take it for the inside."""
    folder = tmp_path / "ws2"
    folder.mkdir()
    (folder / "secret.txt").write_text("top secret\n")
    return folder


SIBLING_PATHS = ["../ws2/secret.txt", "sub/../../ws2/secret.txt", "../ws2", "../ws2/new.txt"]


@pytest.mark.parametrize("path", [*SIBLING_PATHS, "{parent}/ws2/secret.txt"])
def test_a_sibling_whose_name_starts_with_the_workspace_name_is_outside(
    workspace: Path, sibling: Path, path: str
):
    path = path.format(parent=workspace.parent)  # the last one: absolute
    with pytest.raises(WorkspaceEscape):
        Workspace(workspace).resolve_inside(path)
    toolbox = make_toolbox(workspace)
    assert_refused(toolbox.run("read_file", {"path": path}))
    assert_refused(toolbox.run("write_file", {"path": path, "content": "x"}))
    assert sorted(p.name for p in sibling.iterdir()) == ["secret.txt"]
    assert (sibling / "secret.txt").read_text() == "top secret\n"


def test_a_link_into_a_sibling_whose_name_starts_with_the_workspace_name_is_refused(
    workspace: Path, sibling: Path
):
    os.symlink(sibling / "secret.txt", workspace / "looks-local.txt")
    os.symlink(sibling, workspace / "looks-local-folder")
    toolbox = make_toolbox(workspace)
    assert_refused(toolbox.run("read_file", {"path": "looks-local.txt"}))
    assert_refused(toolbox.run("read_file", {"path": "looks-local-folder/secret.txt"}))
    assert_refused(toolbox.run("list_dir", {"path": "looks-local-folder"}))


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("read_file", {"path": "loop"}),
        ("read_file", {"path": "a/x.txt"}),
        ("list_dir", {"path": "loop"}),
        ("grep", {"pattern": "x", "path": "loop"}),
        ("write_file", {"path": "loop", "content": "x"}),
        ("write_file", {"path": "a", "content": "x"}),
        ("edit_file", {"path": "a", "old_string": "x", "new_string": "y"}),
    ],
)
def test_a_path_through_a_loop_of_links_is_a_plain_tool_error(workspace: Path, tool, arguments):
    """Twelfth attack: a path naming a link loop (`loop -> loop`, `a -> b -> a`) made
    every file tool 'fail unexpectedly (RuntimeError: Symlink loop from /abs/...)'."""
    os.symlink("loop", workspace / "loop")
    os.symlink("b", workspace / "a")
    os.symlink("a", workspace / "b")
    outcome = make_toolbox(workspace).run(tool, arguments)
    assert outcome.is_error
    assert "lead back to each other (a loop)" in outcome.content, outcome.content
    assert "unexpectedly" not in outcome.content and str(workspace) not in outcome.content
