"""The files git's configuration names are watched where git really reads them.

The outside tester's case: `core.hooksPath = .githooks` (husky's `.husky/_` alike) was
taken from the config file's folder (`ws/.git/.githooks`) while git runs hooks from the
worktree top (`ws/.githooks`), so a changed hook there ran after `p` for `git status`.
Each test first lets the installed git show where it reads the file (a hook or a textconv
driver that leaves a mark), then checks that exactly that file is watched.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent_cli.tools.git_config_names import read_config_names
from agent_cli.tools.git_program_files import (
    changed_files,
    is_git_program_file,
    read_git_program_files,
)

HOOK = "#!/bin/sh\necho {mark} >> {log}\n"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder.resolve()


@pytest.fixture
def repo(tmp_path: Path, home: Path) -> Path:
    root = (tmp_path / "ws").resolve()
    git(root.parent, home, "init", "-q", str(root))
    (root / "sub").mkdir()
    (root / "sub/f.txt").write_text("a\n")
    git(root, home, "add", "sub/f.txt")
    return root


def environ_of(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.environ["PATH"]}


def git(cwd: Path, home: Path, *arguments: str) -> str:
    done = subprocess.run(
        ["git", *arguments], cwd=cwd, env=environ_of(home), check=True, capture_output=True
    )
    return done.stdout.decode()


def write_hook(path: Path, mark: str, log: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HOOK.format(mark=mark, log=log))
    path.chmod(0o755)


def change_after(start: Path, home: Path, change) -> tuple[str, ...]:
    before = read_git_program_files(start, environ_of(home))
    change()
    return changed_files(before, read_git_program_files(start, environ_of(home)), start)


def test_a_relative_hooks_path_is_read_from_the_worktree_top_as_git_runs_it(repo, home):
    log = repo.parent / "hooks.log"
    git(repo, home, "config", "core.hooksPath", ".githooks")
    write_hook(repo / ".githooks/post-index-change", "top", log)
    write_hook(repo / ".git/.githooks/post-index-change", "config-folder", log)
    write_hook(repo / "sub/.githooks/post-index-change", "cwd", log)
    os.utime(repo / "sub/f.txt", (5, 5))
    git(repo / "sub", home, "status")  # writes the index: git runs post-index-change
    assert log.read_text() == "top\n"
    changed = change_after(
        repo / "sub",
        home,
        lambda: (repo / ".githooks/post-index-change").write_text("#!/bin/sh\ntouch RAN\n"),
    )
    assert changed == (str(repo / ".githooks/post-index-change"),)
    assert is_git_program_file(repo / ".githooks/post-index-change", environ_of(home))
    assert is_git_program_file(repo / ".githooks/pre-commit", environ_of(home))  # a new one
    assert not is_git_program_file(repo / "sub/.githooks/post-index-change", environ_of(home))


def test_a_relative_attributes_file_is_read_from_the_worktree_top_as_git_reads_it(repo, home):
    git(repo, home, "config", "core.attributesFile", "attrs")
    (repo / "attrs").write_text("*.txt diff=top\n")
    (repo / "sub/attrs").write_text("*.txt diff=cwd\n")
    (repo / ".git/attrs").write_text("*.txt diff=config-folder\n")
    assert git(repo / "sub", home, "check-attr", "diff", "f.txt") == "f.txt: diff: top\n"
    changed = change_after(
        repo / "sub", home, lambda: (repo / "attrs").write_text("*.txt diff=evil\n")
    )
    assert changed == (str(repo / "attrs"),)
    assert is_git_program_file(repo / "attrs", environ_of(home))
    assert not is_git_program_file(repo / "sub/attrs", environ_of(home))


def test_an_included_file_is_read_from_the_including_files_folder_as_git_reads_it(repo, home):
    git(repo, home, "config", "include.path", "more.cfg")
    (repo / ".git/more.cfg").write_text("[alias]\n\twho = !echo config-folder\n")
    (repo / "more.cfg").write_text("[alias]\n\twho = !echo top\n")
    assert git(repo / "sub", home, "who") == "config-folder\n"
    changed = change_after(
        repo, home, lambda: (repo / ".git/more.cfg").write_text("[core]\n\tpager = x\n")
    )
    assert changed == (".git/more.cfg",)


def test_a_hooks_path_in_the_users_config_is_read_from_each_worktree_top(repo, home):
    (home / ".gitconfig").write_text("[core]\n\thooksPath = ~/hooks\n[include]\n\tpath = h.cfg\n")
    (home / "h.cfg").write_text("[core]\n\thooksPath = .husky/_\n")
    log = repo.parent / "hooks.log"
    write_hook(repo / ".husky/_/post-index-change", "husky", log)
    os.utime(repo / "sub/f.txt", (7, 7))
    git(repo / "sub", home, "status")
    assert log.read_text() == "husky\n"
    changed = change_after(
        repo, home, lambda: (repo / ".husky/_/post-index-change").write_text("touch X\n")
    )
    assert changed == (".husky/_/post-index-change",)


def test_a_configured_path_is_placed_as_written_from_home_or_from_each_base(tmp_path):
    config = tmp_path / "config"
    config.write_text(
        "[core]\n\thooksPath = hooks\n\tattributesFile = ~/attrs\n"
        '[includeIf "gitdir:x"]\n\tpath = "/etc/more.cfg" # a comment\n'
    )
    names = read_config_names([config], [tmp_path / "a", tmp_path / "b"], tmp_path / "h")
    assert names.configs == (config, Path("/etc/more.cfg"))
    assert names.hooks_folders == (tmp_path / "a/hooks", tmp_path / "b/hooks")
    assert names.attribute_files == (tmp_path / "h/attrs",)
