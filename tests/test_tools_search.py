"""list_dir and grep over a real directory tree."""

from __future__ import annotations

from pathlib import Path

import pytest
from tools_support import FakeArtifactStore, make_toolbox

from agent_cli.tools.context import ToolContext, ToolLimits
from agent_cli.tools.search_tools import prepare_grep
from agent_cli.tools.workspace import Workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "core.py").write_text("def main():\n    # TODO: tidy\n    return 1\n")
    (root / "pkg" / "util.py").write_text("TODO = 'not a comment'\n")
    (root / "README.md").write_text("# Title\nTODO: write docs\n")
    return root


# --- list_dir ----------------------------------------------------------------------------


def test_list_dir_shows_directories_first_then_files_with_sizes(workspace: Path):
    outcome = make_toolbox(workspace).run("list_dir", {})
    assert not outcome.is_error
    assert outcome.content.splitlines() == [
        "Directory: . (1 directory, 1 file)",
        "pkg/",
        "README.md  (25 B)",
    ]
    assert outcome.summary == "2 entries"


def test_list_dir_of_a_subdirectory_names_it(workspace: Path):
    outcome = make_toolbox(workspace).run("list_dir", {"path": "pkg"})
    assert outcome.content.splitlines()[0] == "Directory: pkg (0 directories, 2 files)"


def test_list_dir_shows_where_a_symlink_points(workspace: Path, tmp_path: Path):
    (workspace / "alias.py").symlink_to("pkg/core.py")
    (workspace / "escape").symlink_to(tmp_path)
    lines = make_toolbox(workspace).run("list_dir", {}).content.splitlines()
    assert "alias.py -> pkg/core.py" in lines
    assert f"escape -> {tmp_path} (outside the workspace)" in lines


def test_list_dir_of_a_missing_directory_is_an_error(workspace: Path):
    outcome = make_toolbox(workspace).run("list_dir", {"path": "nowhere"})
    assert outcome.is_error
    assert "No such directory" in outcome.content and "nowhere" not in outcome.content


def test_list_dir_of_a_file_points_to_read_file(workspace: Path):
    outcome = make_toolbox(workspace).run("list_dir", {"path": "README.md"})
    assert outcome.is_error
    assert "read_file" in outcome.content


def test_list_dir_caps_the_number_of_entries(workspace: Path):
    crowded = workspace / "crowded"
    crowded.mkdir()
    for index in range(1005):
        (crowded / f"f{index:04}.txt").write_bytes(b"")
    toolbox = make_toolbox(workspace, artifact_threshold_bytes=1_000_000)
    lines = toolbox.run("list_dir", {"path": "crowded"}).content.splitlines()
    assert len(lines) == 1 + 1000 + 1
    assert lines[-1] == "[5 more entries not shown]"


# --- grep --------------------------------------------------------------------------------


def test_grep_lists_every_match_with_path_and_line_number(workspace: Path):
    outcome = make_toolbox(workspace).run("grep", {"pattern": "TODO"})
    assert not outcome.is_error
    assert outcome.content.splitlines() == [
        "3 matches in 3 files under .",
        "README.md:2: TODO: write docs",
        "pkg/core.py:2:     # TODO: tidy",
        "pkg/util.py:1: TODO = 'not a comment'",
    ]
    assert outcome.summary == "3 matches in 3 files"


def test_grep_uses_regular_expressions(workspace: Path):
    outcome = make_toolbox(workspace).run("grep", {"pattern": r"#\s*TODO:\s+\w+"})
    assert outcome.content.splitlines()[1:] == ["pkg/core.py:2:     # TODO: tidy"]


def test_grep_filters_files_by_glob(workspace: Path):
    outcome = make_toolbox(workspace).run("grep", {"pattern": "TODO", "glob": "*.py"})
    assert "README.md" not in outcome.content
    assert outcome.content.splitlines()[0] == "2 matches in 2 files under ."


def test_grep_can_search_a_single_file(workspace: Path):
    outcome = make_toolbox(workspace).run("grep", {"pattern": "TODO", "path": "pkg/util.py"})
    assert outcome.content.splitlines()[1:] == ["pkg/util.py:1: TODO = 'not a comment'"]


def test_grep_skips_vcs_environment_and_dependency_directories(workspace: Path):
    for skipped in (".git", ".venv", "node_modules"):
        (workspace / skipped).mkdir()
        (workspace / skipped / "hidden.txt").write_text("TODO in a skipped place\n")
    outcome = make_toolbox(workspace).run("grep", {"pattern": "skipped place"})
    assert outcome.content.startswith("No matches under .")


def test_grep_skips_binary_files_and_says_so(workspace: Path):
    (workspace / "image.bin").write_bytes(b"TODO\x00\x01\x02")
    outcome = make_toolbox(workspace).run("grep", {"pattern": "TODO"})
    assert "image.bin" not in outcome.content
    assert "[1 binary or unreadable files skipped]" in outcome.content


def test_grep_stops_at_the_match_cap_and_says_how_to_narrow(workspace: Path):
    (workspace / "many.txt").write_text("hit\n" * 500)
    toolbox = make_toolbox(workspace, artifact_threshold_bytes=1_000_000)
    outcome = toolbox.run("grep", {"pattern": "^hit$"})
    lines = outcome.content.splitlines()
    assert len([line for line in lines if line.startswith("many.txt:")]) == 200
    assert "stopped at the cap of 200" in lines[0]
    assert "narrow the pattern" in lines[0]
    assert outcome.summary == "200+ matches in 1 file"


def test_grep_with_an_invalid_regex_explains_the_syntax_error(workspace: Path):
    outcome = make_toolbox(workspace).run("grep", {"pattern": "foo("})
    assert outcome.is_error
    assert "The pattern is not a valid regular expression" in outcome.content
    assert "foo(" not in outcome.content
    assert "unclosed group" in outcome.content
    assert "backslash" in outcome.content


def test_grep_without_matches_says_how_many_files_it_searched(workspace: Path):
    outcome = make_toolbox(workspace).run("grep", {"pattern": "zzz"})
    assert not outcome.is_error
    assert outcome.content == "No matches under . (3 files searched)."


def test_grep_in_a_missing_path_is_an_error(workspace: Path):
    outcome = make_toolbox(workspace).run("grep", {"pattern": "x", "path": "gone"})
    assert outcome.is_error
    assert "No file or directory has that path" in outcome.content
    assert "gone" not in outcome.content  # the path is not repeated: `tools.echo`


def test_grep_shortens_very_long_matching_lines(workspace: Path):
    (workspace / "wide.txt").write_text("needle" + "x" * 1000 + "\n")
    outcome = make_toolbox(workspace).run("grep", {"pattern": "needle"})
    match = outcome.content.splitlines()[1]
    assert match.endswith(" [...]")
    assert len(match) < 400


def test_grep_counts_agree_in_number(tmp_path):
    (tmp_path / "one.txt").write_text("needle\nhay\n", encoding="utf-8")
    outcome = make_toolbox(tmp_path).run("grep", {"pattern": "needle"})
    assert outcome.summary == "1 match in 1 file"
    assert outcome.content.splitlines()[0] == "1 match in 1 file under ."


class RootCheckCountingWorkspace(Workspace):
    """The real workspace, counting how often the root folder is checked."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.root_checks = 0

    def require_same_root(self) -> None:
        self.root_checks += 1
        super().require_same_root()


def test_grep_checks_the_workspace_root_once_per_call_not_once_per_matched_file(
    workspace: Path,
):
    for number in range(12):
        (workspace / "pkg" / f"m{number}.py").write_text(f"# TODO: item {number}\n")
    counted = RootCheckCountingWorkspace(workspace)
    context = ToolContext(workspace=counted, artifacts=FakeArtifactStore(), limits=ToolLimits())
    result = prepare_grep(context, {"pattern": "TODO"}).execute()
    assert "15 matches in 15 files" in result.header
    assert "pkg/m11.py:1: # TODO: item 11" in result.body
    assert counted.root_checks == 1
