"""The files that can make git run programs: which are read, and what counts as a change.

Real repositories made by the real `git` in a temporary folder; the user's files come
from a `HOME` of the test's own.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent_cli.tools.git_program_files import (
    changed_files,
    is_git_program_file,
    read_git_program_files,
    runs_git,
)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root.resolve()


def environ_of(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}


def change_after(start: Path, home: Path, change) -> tuple[str, ...]:
    """The files named changed by `change()` between two readings from `start`."""
    before = read_git_program_files(start, environ_of(home))
    change()
    return changed_files(before, read_git_program_files(start, environ_of(home)), start)


def append(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        handle.write(text)


def test_nothing_changed_reads_the_same_twice(repo, home):
    assert change_after(repo, home, lambda: None) == ()


def test_an_fsmonitor_added_to_the_repositorys_config_is_a_change(repo, home):
    changed = change_after(
        repo, home, lambda: append(repo / ".git/config", "[core]\n\tfsmonitor = touch X\n")
    )
    assert changed == (".git/config",)


@pytest.mark.parametrize(
    "name",
    [".git/info/attributes", ".gitattributes", "deep/er/.gitattributes", ".gitmodules"],
)
def test_attributes_anywhere_below_the_start_are_watched(repo, home, name):
    assert change_after(repo, home, lambda: append(repo / name, "*.txt diff=x\n")) == (name,)


def test_a_new_hook_and_a_changed_hook_are_changes(repo, home):
    hook = repo / ".git/hooks/post-index-change"
    assert change_after(repo, home, lambda: append(hook, "#!/bin/sh\n")) == (
        ".git/hooks/post-index-change",
    )
    assert change_after(repo, home, lambda: append(hook, "touch RAN\n")) == (
        ".git/hooks/post-index-change",
    )


def test_the_users_global_config_and_attributes_are_watched(repo, home):
    changed = change_after(
        repo,
        home,
        lambda: (
            append(home / ".gitconfig", "[core]\n\tpager = touch P\n"),
            append(home / ".config/git/attributes", "* diff=x\n"),
        ),
    )
    assert changed == (str(home / ".config/git/attributes"), str(home / ".gitconfig"))


def test_a_file_included_by_the_config_is_followed_and_watched(repo, home):
    append(repo / ".git/config", "[include]\n\tpath = ../more.cfg\n")
    append(repo / "more.cfg", "[include]\n\tpath = ~/deeper.cfg\n")
    assert change_after(
        repo, home, lambda: append(home / "deeper.cfg", "[core]\n\tfsmonitor = x\n")
    ) == (str(home / "deeper.cfg"),)


def test_a_hooks_path_named_by_the_config_is_watched(repo, home):
    append(repo / ".git/config", f"[core]\n\thooksPath = {repo / 'githooks'}\n")
    (repo / "githooks").mkdir()
    changed = change_after(
        repo, home, lambda: append(repo / "githooks/post-index-change", "touch RAN\n")
    )
    assert "githooks/post-index-change" in changed


def test_a_start_below_the_top_watches_the_repository_around_it(repo, home):
    start = repo / "src"
    start.mkdir()
    changed = change_after(
        start,
        home,
        lambda: (
            append(repo / ".git/config", "[core]\n\tfsmonitor = x\n"),
            append(repo / ".gitattributes", "* diff=x\n"),
        ),
    )
    assert changed == (str(repo / ".git/config"), str(repo / ".gitattributes"))


def test_a_repository_made_where_there_was_none_is_a_change(tmp_path, home):
    start = tmp_path / "plain"
    start.mkdir()
    changed = change_after(
        start.resolve(),
        home,
        lambda: subprocess.run(["git", "init", "-q", str(start)], check=True),
    )
    assert ".git/config" in changed


def test_a_nested_repository_and_a_linked_worktree_are_watched(repo, home):
    subprocess.run(["git", "init", "-q", str(repo / "vendor/lib")], check=True)
    other = repo.parent / "elsewhere"
    other.mkdir()
    (repo / "wt").mkdir()
    (repo / "wt/.git").write_text(f"gitdir: {other}\n")
    changed = change_after(
        repo,
        home,
        lambda: (
            append(repo / "vendor/lib/.git/config", "[core]\n\tfsmonitor = x\n"),
            append(other / "config", "[core]\n\tpager = x\n"),
        ),
    )
    assert changed == (str(other / "config"), "vendor/lib/.git/config")


def test_the_walk_skips_dependencies_and_stops_at_its_bound(repo, home, monkeypatch):
    """A check runs before every git command an "always" answer covers: it never walks
    `node_modules` or an environment, and it stops after `MAX_WALKED_FOLDERS` folders,
    nearest first (a deeper attribute file is a known gap, a nearer one is watched)."""
    import agent_cli.tools.git_program_files as watched

    subprocess.run(["git", "init", "-q", str(repo / "node_modules/pkg")], check=True)
    for name in ("node_modules/pkg/.git/config", ".venv/lib/.gitattributes"):
        assert change_after(repo, home, lambda name=name: append(repo / name, "x\n")) == ()
    monkeypatch.setattr(watched, "MAX_WALKED_FOLDERS", 3)
    near, deep = "a/.gitattributes", "a/b/c/d/.gitattributes"
    assert change_after(repo, home, lambda: append(repo / near, "*.txt diff=x\n")) == (near,)
    assert change_after(repo, home, lambda: append(repo / deep, "*.txt diff=x\n")) == ()


def test_a_submodules_git_folder_is_watched(repo, home):
    module = repo / ".git/modules/libs/one"
    module.mkdir(parents=True)
    (module / "HEAD").write_text("ref: refs/heads/main\n")
    assert change_after(
        repo, home, lambda: append(module / "config", "[core]\n\tfsmonitor = x\n")
    ) == (".git/modules/libs/one/config",)


@pytest.mark.parametrize("mode", [0o755, 0o744, 0o654])
def test_making_an_ignored_hook_executable_is_a_change(repo, home, mode):
    """git runs a hook only when it is executable: `chmod +x` on one it ignored makes it
    run, though not a byte of it changed."""
    hook = repo / ".git/hooks/post-index-change"
    append(hook, "#!/bin/sh\ntouch RAN\n")
    hook.chmod(0o644)
    assert change_after(repo, home, lambda: hook.chmod(mode)) == (".git/hooks/post-index-change",)
    assert change_after(repo, home, lambda: hook.chmod(0o600)) == (".git/hooks/post-index-change",)


def test_a_fifo_in_a_hooks_place_is_read_without_waiting(repo, home):
    os.mkfifo(repo / ".git/hooks/post-index-change")
    files = dict(read_git_program_files(repo, environ_of(home)).digests)
    assert files[str(repo / ".git/hooks/post-index-change")].startswith("not a file")


def test_without_a_start_only_the_users_files_are_read(home):
    files = dict(read_git_program_files(None, environ_of(home)).digests)
    assert set(files) == {
        str(home / ".gitconfig"),
        str(home / ".config/git/config"),
        str(home / ".config/git/attributes"),
        "/etc/gitattributes",
    }


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git status", True),
        ("git diff HEAD~1", True),
        ("cd sub && git log", True),
        ("/usr/bin/git show", True),
        ("GIT_PAGER=cat git log", True),
        ("\\git status", True),
        ("g\\it status", True),
        ("'g'it status", True),
        ('"g"it status', True),
        ("g''it status", True),
        ("$'\\x67it' status", True),
        ("/usr/bin/g\\it log", True),
        ("cd sub&&g\\it log", True),
        ("bash -c 'g\\it status'", True),
        ("bash -c \"sh -c 'g\\\\it status'\"", True),
        ("echo 'x; \\git status", True),
        ("gitk", False),
        ("'gi t' status", False),
        ("cat .gitignore", False),
        ("npm test", False),
    ],
)
def test_runs_git_finds_git_as_a_word(command, expected):
    assert runs_git(command) is expected


@pytest.mark.parametrize(
    ("shown", "expected"),
    [
        (".git/config", True),
        (".git/hooks/pre-commit", True),
        ("vendor/lib/.git/config", True),
        (".GIT/config", True),
        (".gitattributes", True),
        ("docs/.gitattributes", True),
        (".gitmodules", True),
        (".gitignore", False),
        ("src/git.py", False),
        (".github/workflows/ci.yml", False),
        (".git", True),  # a `gitdir:` file names the git folder
    ],
)
def test_is_git_program_file(repo, home, shown, expected):
    assert is_git_program_file(repo / shown, environ_of(home)) is expected


def test_the_users_files_are_git_program_files(repo, home):
    for path in (home / ".gitconfig", home / ".config/git/attributes"):
        assert is_git_program_file(path, environ_of(home))
