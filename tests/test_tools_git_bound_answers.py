""" "Always" for a git command holds only while git's config, hooks and attributes are unchanged.

The outside tester's case: `p` for `git status`; the model then edits `.git/config`,
adding `fsmonitor = touch FSMONITOR_RAN; false`; the next `git status` ran unasked and git
ran that program. These tests run the real toolbox, real bash and the real git in a
temporary repository; `FSMONITOR_RAN` must never appear unless the user allowed it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from tools_support import make_toolbox

from agent_cli.tools import PermissionDecision, PermissionRequest
from agent_cli.tools.approval_scope import command_target
from agent_cli.tools.permissions import PermissionGate

ONCE = PermissionDecision.ALLOW_ONCE
ALWAYS = PermissionDecision.ALLOW_ALWAYS
PREFIX = PermissionDecision.ALLOW_PREFIX
DENY = PermissionDecision.DENY
FSMONITOR = "[core]\n\tfsmonitor = touch FSMONITOR_RAN; false\n"


class ScriptedAsker:
    """Gives the scripted answers in order (DENY once they run out); keeps the requests."""

    def __init__(self, *answers: PermissionDecision) -> None:
        self.answers = list(answers)
        self.requests: list[PermissionRequest] = []

    def __call__(self, request: PermissionRequest) -> PermissionDecision:
        self.requests.append(request)
        return self.answers.pop(0) if self.answers else DENY


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "notes.txt").write_text("draft\n")
    return root


def asked_about(asker: ScriptedAsker) -> list[str]:
    return [request.description for request in asker.requests]


def test_an_fsmonitor_edited_into_git_config_asks_again_and_says_why(repo):
    asker = ScriptedAsker(PREFIX, ONCE)  # p for git status, y for the edit, then n
    toolbox = make_toolbox(repo, auto_approve=False, ask_permission=asker)
    assert not toolbox.run("bash", {"command": "git status"}).is_error
    edit = {"path": ".git/config", "old_string": "[core]\n", "new_string": FSMONITOR}
    assert not toolbox.run("edit_file", edit).is_error
    outcome = toolbox.run("bash", {"command": "git status"})
    assert outcome.content == "Permission denied by the user: bash was not run."
    assert asked_about(asker)[-1] == "git status"
    changed = asker.requests[-1].git_changed
    assert changed is not None and changed.files == (".git/config",)
    assert changed.scope.shown == "git status"
    assert not (repo / "FSMONITOR_RAN").exists()


def test_unchanged_files_keep_the_answer_even_after_git_rewrote_its_index(repo):
    asker = ScriptedAsker(PREFIX)
    toolbox = make_toolbox(repo, auto_approve=False, ask_permission=asker)
    for command in ("git status", "git status", "git status notes.txt"):
        assert not toolbox.run("bash", {"command": command}).is_error
    assert asked_about(asker) == ["git status"]


def test_a_change_by_another_program_asks_again_too(repo):
    asker = ScriptedAsker(PREFIX)
    toolbox = make_toolbox(repo, auto_approve=False, ask_permission=asker)
    toolbox.run("bash", {"command": "git diff"})
    (repo / "docs").mkdir()
    (repo / "docs/.gitattributes").write_text("*.txt diff=evil\n")
    toolbox.run("bash", {"command": "git diff notes.txt"})
    assert asked_about(asker) == ["git diff", "git diff notes.txt"]
    changed = asker.requests[-1].git_changed
    assert changed is not None and changed.files == ("docs/.gitattributes",)


def test_a_hook_written_by_a_command_asks_again(repo):
    asker = ScriptedAsker(PREFIX, ONCE)
    toolbox = make_toolbox(repo, auto_approve=False, ask_permission=asker)
    toolbox.run("bash", {"command": "git status"})
    hook = ".git/hooks/post-index-change"
    toolbox.run("bash", {"command": f"printf '#!/bin/sh\\ntouch HOOK_RAN\\n' > {hook}"})
    toolbox.run("bash", {"command": "git status"})
    assert asked_about(asker)[-1] == "git status"
    assert not (repo / "HOOK_RAN").exists()


def test_an_answer_given_again_after_the_change_holds_for_the_files_as_they_are_now(repo):
    asker = ScriptedAsker(PREFIX, PREFIX)
    toolbox = make_toolbox(repo, auto_approve=False, ask_permission=asker)
    toolbox.run("bash", {"command": "git log"})
    (repo / ".gitattributes").write_text("*.txt text\n")
    toolbox.run("bash", {"command": "git log"})
    toolbox.run("bash", {"command": "git log notes.txt"})
    assert asked_about(asker) == ["git log", "git log"]
    assert len(toolbox.always_allowed()) == 1  # the same answer, its files as now


def test_an_exact_answer_for_a_git_command_is_bound_too(repo):
    asker = ScriptedAsker(ALWAYS)
    toolbox = make_toolbox(repo, auto_approve=False, ask_permission=asker)
    toolbox.run("bash", {"command": "git status --short"})
    with (repo / ".git/config").open("a") as config:
        config.write("[core]\n\tpager = touch PAGER_RAN\n")
    toolbox.run("bash", {"command": "git status --short"})
    assert asked_about(asker) == ["git status --short", "git status --short"]


def test_a_prefix_for_another_program_is_not_bound_to_gits_files(repo):
    asker = ScriptedAsker(PREFIX)
    toolbox = make_toolbox(repo, auto_approve=False, ask_permission=asker)
    toolbox.run("bash", {"command": "cat notes"})
    (repo / ".gitattributes").write_text("*.txt diff=x\n")
    toolbox.run("bash", {"command": "cat notes notes.txt"})
    assert asked_about(asker) == ["cat notes"]


def test_the_users_global_config_is_watched(tmp_path, repo):
    """The gate reads the user's files from the environment it is given."""
    home = tmp_path / "home"
    home.mkdir()
    asker = ScriptedAsker(PREFIX)
    gate = PermissionGate(asker, auto_approve=False, environ={"HOME": str(home)})
    request = PermissionRequest("bash", "git status", target=command_target("git status", repo))
    assert gate.is_allowed(request) and gate.is_allowed(request)
    (home / ".gitconfig").write_text("[core]\n\tfsmonitor = touch X\n")
    assert not gate.is_allowed(request)
    changed = asker.requests[-1].git_changed
    assert changed is not None and changed.files == (str(home / ".gitconfig"),)


def commit_notes(repo: Path) -> None:
    subprocess.run(["git", "-C", str(repo), "add", "notes.txt"], check=True)
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "i"],
        check=True,
    )


def test_a_hook_changed_in_a_relative_hooks_path_asks_again(repo):
    """The tester's case: `core.hooksPath = .githooks` is `ws/.githooks` to git (the worktree
    top), not `ws/.git/.githooks`; the edit of its hook warns, and `git status` is asked
    again, so the changed hook does not run unasked."""
    subprocess.run(["git", "-C", str(repo), "config", "core.hooksPath", ".githooks"], check=True)
    (repo / ".githooks").mkdir()
    hook = repo / ".githooks/post-index-change"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    commit_notes(repo)
    asker = ScriptedAsker(PREFIX, ONCE)  # p for git status, y for the edit, then n
    toolbox = make_toolbox(repo, auto_approve=False, ask_permission=asker)
    assert not toolbox.run("bash", {"command": "git status"}).is_error
    edit = {"path": ".githooks/post-index-change", "old_string": "exit 0", "new_string": "touch R"}
    assert not toolbox.run("edit_file", edit).is_error
    assert asker.requests[-1].writes_git_file
    os.utime(repo / "notes.txt", (5, 5))  # git status rewrites the index: the hook would run
    toolbox.run("bash", {"command": "git status"})
    assert asked_about(asker)[-1] == "git status"
    changed = asker.requests[-1].git_changed
    assert changed is not None and changed.files == (".githooks/post-index-change",)
    assert not (repo / "R").exists()


def test_an_ignored_hook_made_executable_asks_again(repo):
    """The tester's case: git skips a hook that is not executable; `chmod +x` changes no
    byte of it, and git then runs it."""
    commit_notes(repo)
    hook = repo / ".git/hooks/post-index-change"
    hook.write_text("#!/bin/sh\ntouch HOOK_RAN\n")
    hook.chmod(0o644)
    asker = ScriptedAsker(PREFIX)
    toolbox = make_toolbox(repo, auto_approve=False, ask_permission=asker)
    os.utime(repo / "notes.txt", (1, 1))
    assert not toolbox.run("bash", {"command": "git status"}).is_error
    hook.chmod(0o755)
    os.utime(repo / "notes.txt", (2, 2))
    toolbox.run("bash", {"command": "git status"})
    assert asked_about(asker) == ["git status", "git status"]
    assert not (repo / "HOOK_RAN").exists()


@pytest.mark.parametrize(
    "command", ["\\git status", "g\\it status", "'g'it status", '"g"it status']
)
def test_git_spelled_with_quotes_is_bound_to_gits_files(repo, command):
    """bash runs git for each of these spellings: an answer for one holds only while git's
    files do, like one for `git status`."""
    asker = ScriptedAsker(ALWAYS)
    toolbox = make_toolbox(repo, auto_approve=False, ask_permission=asker)
    assert not toolbox.run("bash", {"command": command}).is_error
    with (repo / ".git/config").open("a") as config:
        config.write(FSMONITOR)
    toolbox.run("bash", {"command": command})
    assert asked_about(asker) == [command, command]
    assert not (repo / "FSMONITOR_RAN").exists()


def test_an_edit_of_an_ordinary_file_is_not_marked_as_one_git_reads(repo):
    asker = ScriptedAsker(ONCE)
    toolbox = make_toolbox(repo, auto_approve=False, ask_permission=asker)
    toolbox.run("edit_file", {"path": "notes.txt", "old_string": "draft", "new_string": "x"})
    assert asked_about(asker) and not asker.requests[-1].writes_git_file
