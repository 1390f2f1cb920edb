""" "Always" for a git command holds only while git's config, hooks and attributes are unchanged.

The outside tester's case: `p` for `git status`; the model then edits `.git/config`,
adding `fsmonitor = touch FSMONITOR_RAN; false`; the next `git status` ran unasked and git
ran that program. These tests run the real toolbox, real bash and the real git in a
temporary repository; `FSMONITOR_RAN` must never appear unless the user allowed it.
"""

from __future__ import annotations

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
