"""Approvals say when git's files could make git run programs.

The outside tester's case: the model asked, as an ordinary edit, to add
`fsmonitor = touch FSMONITOR_RAN; false` to `.git/config`, and nothing said what that
could do; after `p` for `git status`, the next `git status` ran it unasked. Now the edit's
header warns, a `git status` asked again says why, and the line after `p` says the answer
holds only while git's files stay as they are.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from agent_cli.repl.approval_question import GIT_FILES_KEPT, describe_always
from agent_cli.repl.approval_view import build_approval_view
from agent_cli.tools.approval import build_diff_approval
from agent_cli.tools.approval_scope import AlwaysScope, ScopeKind, command_target, file_target
from agent_cli.tools.permissions import GitFilesChanged, PermissionRequest

GIT_STATUS = AlwaysScope(ScopeKind.COMMAND_PREFIX, "git status", "git status", "git status")
OLD, NEW = "[core]\n\tbare = false\n", "[core]\n\tfsmonitor = touch X; false\n\tbare = false\n"


def printed(renderables: list, width: int = 100) -> str:
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    for renderable in renderables:
        console.print(renderable, overflow="fold")
    return " ".join(console.export_text().replace("\n  ↳ ", " ").split())


def edit_of(shown: str, writes_git_file: bool = True) -> PermissionRequest:
    """An edit of `shown`, which the gate found to be (or not to be) a file git reads."""
    approval = build_diff_approval(OLD, NEW, shown)
    target = file_target(Path("/ws") / shown, shown)
    return PermissionRequest(
        "edit_file",
        f"edit {shown}: replace 1 line with 2 lines",
        approval,
        target,
        writes_git_file=writes_git_file,
    )


@pytest.mark.parametrize(
    "shown", [".git/config", "docs/.gitattributes", ".gitmodules", ".githooks/pre-commit"]
)
def test_an_edit_of_a_file_git_reads_warns_that_it_can_make_git_run_programs(shown):
    view = build_approval_view(edit_of(shown), 100, 30)
    text = printed([view.header])
    assert (
        f"warning: git reads {shown}, and what it says can make git commands run programs "
        "(core.fsmonitor, core.pager, hooks, diff and filter drivers), even git status or "
        "git diff. Answer n unless you expect this change there."
    ) in text


def test_an_edit_of_another_file_has_no_such_warning():
    view = build_approval_view(edit_of("src/config", writes_git_file=False), 100, 30)
    assert "warning" not in printed([view.header])


def test_an_edit_an_always_answer_let_through_warns_without_advice():
    view = build_approval_view(edit_of(".git/config"), 100, 30, unasked_by="always for .git/config")
    text = printed([view.header])
    assert "warning: git reads .git/config" in text and "Answer n" not in text


def test_a_git_command_asked_again_says_that_gits_files_changed_and_which():
    changed = GitFilesChanged(GIT_STATUS, (".git/config", "a/.gitattributes", "b", "c"))
    request = PermissionRequest(
        "bash", "git status", target=command_target("git status"), git_changed=changed
    )
    text = printed([build_approval_view(request, 100, 30).header])
    assert (
        'warning: asked again although you answered always "git status …": git\'s '
        "configuration changed since (.git/config, a/.gitattributes, b and 1 more), and it "
        "can make git run programs (core.fsmonitor, core.pager, hooks, diff and filter "
        "drivers). Answer n unless you know what changed there."
    ) in text


def test_the_line_after_an_always_answer_for_git_says_it_holds_while_the_files_do():
    assert GIT_FILES_KEPT in describe_always(GIT_STATUS).plain
    cat = AlwaysScope(ScopeKind.COMMAND_PREFIX, "cat notes", "cat notes", "cat notes")
    assert GIT_FILES_KEPT not in describe_always(cat).plain
