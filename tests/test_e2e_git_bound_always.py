""" "Always" for `git status` does not survive an edit of git's config, in a real terminal.

The outside tester's case (tmux, the fake API playing the model through the real SDK):
`p` for `git status`; the model edits `.git/config` adding
`fsmonitor = touch FSMONITOR_RAN; false`, asked as an ordinary edit, and the user says y;
the next `git status` ran unasked and git ran that program. Now the edit's header warns,
the next `git status` is asked again saying why, and after `n` nothing ran.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_support import count_prompts
from fake_anthropic import Reply, text_block, tool_use_block
from scene_support import Scene, open_scene

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-git-bound-0123456789"
QUESTION = "allow? [y] once"
FSMONITOR = "[core]\n\tfsmonitor = touch FSMONITOR_RAN; false\n"


@pytest.fixture()
def scene(tmp_path: Path, terminals) -> Iterator[Scene]:
    with open_scene(tmp_path, terminals, API_KEY, {"notes.txt": "draft\n"}) as opened:
        subprocess.run(["git", "init", "-q", str(opened.workspace)], check=True)
        yield opened


def turn_with_call(scene: Scene, call_id: str, name: str, arguments: dict, done: str) -> None:
    scene.server.enqueue(
        Reply([tool_use_block(call_id, name, arguments)], stop_reason="tool_use"),
        Reply([text_block(done)]),
    )
    scene.repl.send(f"please do {call_id}")


def wait_for_question(scene: Scene, mark: str) -> str:
    terminal = scene.repl.terminal
    return terminal.wait_for(
        lambda screen: mark in screen and QUESTION in screen.rstrip().splitlines()[-1],
        "the permission question",
        source=terminal.visible,
    )


def answer_and_wait(scene: Scene, reply: str, done: str) -> str:
    terminal = scene.repl.terminal
    before = count_prompts(terminal.screen())
    scene.repl.send(reply)
    return terminal.wait_for(
        lambda screen: count_prompts(screen) > before and done in screen,
        "the end of the turn",
        timeout=30,
    )


def flat(screen: str) -> str:
    return " ".join(screen.replace("\n  ↳ ", " ").split())


def test_an_fsmonitor_edited_into_git_config_makes_git_status_asked_again(scene):
    turn_with_call(scene, "toolu_1", "bash", {"command": "git status"}, "First done.")
    wait_for_question(scene, "git status")
    after_first = answer_and_wait(scene, "p", "First done.")
    assert "while git's configuration, hooks and attributes stay as they are now" in flat(
        after_first
    )
    edit = {"path": ".git/config", "old_string": "[core]\n", "new_string": FSMONITOR}
    turn_with_call(scene, "toolu_2", "edit_file", edit, "Second done.")
    asked_edit = wait_for_question(scene, "fsmonitor")
    assert "warning: git reads .git/config, and what it says can make git commands run" in flat(
        asked_edit
    )
    answer_and_wait(scene, "y", "Second done.")
    assert "fsmonitor = touch FSMONITOR_RAN" in (scene.workspace / ".git/config").read_text()
    turn_with_call(scene, "toolu_3", "bash", {"command": "git status"}, "Third done.")
    asked_again = wait_for_question(scene, "asked again")
    assert (
        'warning: asked again although you answered always "git status …": git\'s '
        "configuration changed since (.git/config), and it can make git run programs"
    ) in flat(asked_again)
    answer_and_wait(scene, "n", "Third done.")
    assert not (scene.workspace / "FSMONITOR_RAN").exists()


def test_a_hook_in_a_relative_hooks_path_warns_when_edited_and_asks_git_status_again(scene):
    """The tester's case: `core.hooksPath = .githooks` (husky's kind) is the worktree's
    `.githooks` to git; its edit carried no warning and `git status` then ran unasked."""
    workspace = scene.workspace
    subprocess.run(
        ["git", "-C", str(workspace), "config", "core.hooksPath", ".githooks"], check=True
    )
    (workspace / ".githooks").mkdir()
    hook = workspace / ".githooks/post-index-change"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    turn_with_call(scene, "toolu_1", "bash", {"command": "git status"}, "First done.")
    wait_for_question(scene, "git status")
    answer_and_wait(scene, "p", "First done.")
    edit = {"path": ".githooks/post-index-change", "old_string": "exit 0", "new_string": "touch R"}
    turn_with_call(scene, "toolu_2", "edit_file", edit, "Second done.")
    asked_edit = wait_for_question(scene, "touch R")
    assert "warning: git reads .githooks/post-index-change, and what it says can make" in flat(
        asked_edit
    )
    answer_and_wait(scene, "y", "Second done.")
    turn_with_call(scene, "toolu_3", "bash", {"command": "git status"}, "Third done.")
    asked_again = wait_for_question(scene, "asked again")
    assert "git's configuration changed since (.githooks/post-index-change)" in flat(asked_again)
    answer_and_wait(scene, "n", "Third done.")
    assert not (workspace / "R").exists()
