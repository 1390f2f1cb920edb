"""agent-cli's own state folders are off limits to the file tools, inside the workspace too.

A fifteenth outside attack: run in the home folder, the default state folder
`~/.local/share/agent-cli` lay inside the workspace, and `grep` (never asked about),
`list_dir` and `read_file` read other sessions' transcripts and the prompt history.
Every test here builds that shape on real files in a temp folder: a workspace holding
the state folder (as `resolve_state_paths` lays it out) with another session's
transcript in it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tools_support import RecordingAsker, make_toolbox

from agent_cli.store.paths import resolve_state_paths
from agent_cli.tools import PermissionDecision
from agent_cli.tools.state_folders import REFUSAL, StateFolders

SECRET_LINE = '{"role":"user","content":"my db password is hunter2secretpw"}\n'
STATE = ".local/share/agent-cli"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A home-like workspace: a project file, and agent-cli's state folder holding
    another session's transcript, the prompt history and config.toml."""
    root = tmp_path / "home"
    (root / "project").mkdir(parents=True)
    (root / "project" / "notes.txt").write_text("hunter2 is a famous password\n")
    paths = resolve_state_paths({"AGENT_CLI_HOME": str(root / STATE)})
    (paths.transcripts / "20261206-010101-abcdef.jsonl").write_text(SECRET_LINE)
    paths.history_file.write_text("+my db password is hunter2secretpw\n")
    paths.config_file.write_text('model = "claude-x"\n')
    return root


def toolbox(root: Path, **options):
    paths = resolve_state_paths({"AGENT_CLI_HOME": str(root / STATE)}, create=False)
    return make_toolbox(root, state_folders=paths.own_folders(), **options)


def assert_refused(outcome) -> None:
    assert outcome.is_error
    assert outcome.content == REFUSAL
    assert "hunter2secretpw" not in outcome.content


@pytest.mark.parametrize(
    "path",
    [
        f"{STATE}/transcripts/20261206-010101-abcdef.jsonl",
        f"{STATE}/history",
        f"{STATE}/config.toml",
        f"project/../{STATE}/history",
    ],
)
def test_read_file_of_anything_in_the_state_folder_is_refused(workspace: Path, path: str):
    assert_refused(toolbox(workspace).run("read_file", {"path": path}))


@pytest.mark.parametrize("path", [STATE, f"{STATE}/transcripts", f"{STATE}/memory"])
def test_list_dir_and_grep_of_the_state_folder_are_refused(workspace: Path, path: str):
    box = toolbox(workspace)
    assert_refused(box.run("list_dir", {"path": path}))
    assert_refused(box.run("grep", {"pattern": "hunter2secretpw", "path": path}))


def test_writes_and_edits_there_are_refused_even_when_approved(workspace: Path):
    asker = RecordingAsker(PermissionDecision.ALLOW_ONCE)
    box = toolbox(workspace, ask_permission=asker, auto_approve=False)
    config = workspace / STATE / "config.toml"
    assert_refused(
        box.run("write_file", {"path": f"{STATE}/config.toml", "content": "yes = true\n"})
    )
    assert_refused(box.run("write_file", {"path": f"{STATE}/memory/new.json", "content": "{}"}))
    edit = {"path": f"{STATE}/config.toml", "old_string": "claude-x", "new_string": "y"}
    assert_refused(box.run("edit_file", edit))
    assert asker.requests == []  # refused before anyone is asked
    assert config.read_text() == 'model = "claude-x"\n'
    assert not (workspace / STATE / "memory" / "new.json").exists()


def test_a_link_into_the_state_folder_is_refused(workspace: Path):
    (workspace / "project" / "log.jsonl").symlink_to(
        workspace / STATE / "transcripts" / "20261206-010101-abcdef.jsonl"
    )
    (workspace / "project" / "state").symlink_to(workspace / STATE)
    box = toolbox(workspace)
    assert_refused(box.run("read_file", {"path": "project/log.jsonl"}))
    assert_refused(box.run("list_dir", {"path": "project/state/transcripts"}))
    assert_refused(box.run("grep", {"pattern": "hunter2", "path": "project/state"}))


def test_a_state_folder_reached_by_a_link_as_agent_cli_home_is_refused(tmp_path: Path):
    """AGENT_CLI_HOME names a link to the folder: the folder is what is off limits."""
    root = tmp_path / "ws"
    real = root / "real-state"
    paths = resolve_state_paths({"AGENT_CLI_HOME": str(real)})
    (paths.transcripts / "x.jsonl").write_text(SECRET_LINE)
    (tmp_path / "home-link").symlink_to(real)
    box = make_toolbox(root, state_folders=(tmp_path / "home-link",))
    assert_refused(box.run("read_file", {"path": "real-state/transcripts/x.jsonl"}))


def test_another_name_of_the_same_folder_is_refused_by_its_identity(workspace: Path):
    """Where two names reach one folder that no link joins (another case on a
    case-insensitive disk, a bind mount), the folder's device and inode decide. Here the
    state folder is known only by a name through `/proc/self/root`, which reads as another
    path but is the same folder."""
    alias = Path(f"/proc/self/root{workspace / STATE}")
    if not alias.is_dir():
        pytest.skip("no /proc/self/root here")
    folders = StateFolders()
    folders.folders = (alias,)  # as given, unresolved: only its identity can match
    box = make_toolbox(workspace)
    box._context.workspace.state_folders = folders
    assert_refused(box.run("read_file", {"path": f"{STATE}/history"}))
    assert_refused(box.run("write_file", {"path": f"{STATE}/memory/x.json", "content": "{}"}))
    content = box.run("grep", {"pattern": "hunter2"}).content
    assert "hunter2secretpw" not in content and f"[{STATE}/ was not searched" in content
    assert (
        "agent-cli/  [agent-cli's own state folder"
        in box.run("list_dir", {"path": ".local/share"}).content
    )


def test_grep_of_the_workspace_skips_the_state_folder_and_says_so(workspace: Path):
    content = toolbox(workspace).run("grep", {"pattern": "hunter2"}).content
    assert "hunter2secretpw" not in content
    assert "project/notes.txt:1: hunter2 is a famous password" in content
    assert f"[{STATE}/ was not searched: agent-cli's own state folder" in content
    assert content.startswith("1 match in 1 file under .")


def test_grep_with_a_glob_into_the_state_folder_finds_nothing_there(workspace: Path):
    box = toolbox(workspace)
    content = box.run("grep", {"pattern": "hunter2", "glob": f"{STATE}/**"}).content
    assert "hunter2secretpw" not in content
    assert content.startswith("No matches under . (0 files searched).")
    assert "was not searched: agent-cli's own state folder" in content


def test_list_dir_marks_the_state_folder_and_lists_nothing_of_it(workspace: Path):
    content = toolbox(workspace).run("list_dir", {"path": ".local/share"}).content
    assert "agent-cli/  [agent-cli's own state folder (transcripts, memory, artifacts)" in content
    assert "transcripts" not in content.replace("(transcripts, memory", "")


def test_without_state_folders_the_tools_read_everything_as_before(workspace: Path):
    outcome = make_toolbox(workspace).run("read_file", {"path": f"{STATE}/history"})
    assert not outcome.is_error


def test_the_platform_folders_are_all_off_limits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Without AGENT_CLI_HOME, the data, state and config folders platformdirs names."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "ws" / "data"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "ws" / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "ws" / "config"))
    paths = resolve_state_paths({})
    paths.config_file.parent.mkdir(parents=True)
    paths.config_file.write_text("yes = true\n")
    box = make_toolbox(tmp_path / "ws", state_folders=paths.own_folders())
    assert_refused(box.run("read_file", {"path": "config/agent-cli/config.toml"}))
    assert_refused(box.run("read_file", {"path": "state/agent-cli/history"}))
    assert_refused(box.run("list_dir", {"path": "data/agent-cli/transcripts"}))
    assert not box.run("list_dir", {"path": "config"}).is_error
