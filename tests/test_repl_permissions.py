"""`stats` names the "always" answers in force, and `/permissions` lists them and takes
them back: after `[p] always "rm out …"` stats still said everything was asked for, and
nothing could take an answer back short of `/new`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_repl_commands import FakeContext, run
from tools_support import make_toolbox

from agent_cli.errors import CommandUsageError
from agent_cli.repl.commands import COMMANDS
from agent_cli.tools import PermissionDecision, PermissionRequest
from agent_cli.tools.approval_scope import (
    AlwaysScope,
    ScopeKind,
    command_target,
    offered_scopes,
)


def prefix_of(command: str) -> AlwaysScope:
    return next(
        s for s in offered_scopes(command_target(command)) if s.kind is ScopeKind.COMMAND_PREFIX
    )


EXACT = AlwaysScope(ScopeKind.EXACT_COMMAND, "rm -rf build", "rm -rf build")
FILE = AlwaysScope(ScopeKind.FILE, "/ws/notes.md", "notes.md")
MCP = AlwaysScope(ScopeKind.MCP_TOOL, "mcp__files__write", "files write")


def said(context: FakeContext) -> str:
    """What was shown, as one line: the stats panel's borders and wraps taken out."""
    return " ".join(context.shown.replace("│", " ").split())


def test_stats_names_every_always_answer_in_force():
    context = FakeContext()
    context.session.always_scopes[:] = [prefix_of("rm out"), EXACT, FILE, MCP]
    run(context, "stats")
    text = said(context)
    assert "are asked for" in text and 'except what 4 "always" answers' in text
    assert '1. commands "rm out …" with plain words after it (approved for rm out)' in text
    assert "2. the exact command rm -rf build" in text
    assert "3. writes and edits of notes.md" in text
    assert "4. calls of the MCP tool files write" in text
    assert "/permissions takes them back" in text


def test_stats_json_lists_the_always_answers():
    context = FakeContext()
    context.session.always_scopes[:] = [EXACT]
    run(context, "stats --json")
    data = json.loads(context.plain.getvalue())
    assert data["extra"]["always_allowed"] == [
        {"kind": "exact_command", "covers": "the exact command rm -rf build"}
    ]
    assert "1. the exact command rm -rf build" in data["extra"]["approvals"]


def test_stats_without_always_answers_says_everything_is_asked():
    context = FakeContext()
    run(context, "stats")
    assert "on: writes, commands and MCP calls are asked for" in said(context)
    assert "except" not in said(context)


def test_permissions_lists_them_numbered_and_says_how_to_take_them_back():
    context = FakeContext()
    context.session.always_scopes[:] = [EXACT, FILE]
    run(context, "/permissions")
    text = said(context)
    assert "1. the exact command rm -rf build 2. writes and edits of notes.md" in text
    assert "/permissions revoke <number> takes one back, /permissions reset takes all back" in text


def test_permissions_with_none_and_with_approvals_off():
    context = FakeContext()
    run(context, "/permissions")
    assert 'No "always" answers in this session' in said(context)
    off = FakeContext(approvals_off_by="--yes")
    run(off, "/permissions")
    assert "Approvals are off for this run" in said(off)


def test_permissions_revoke_takes_back_the_numbered_one_and_reset_all():
    context = FakeContext()
    context.session.always_scopes[:] = [EXACT, FILE, MCP]
    run(context, "/permissions revoke 2")
    assert context.session.always_scopes == [EXACT, MCP]
    assert "Taken back: writes and edits of notes.md; asked about again." in said(context)
    run(context, "/permissions reset")
    assert context.session.always_scopes == []
    assert 'Taken back: all 2 "always" answers' in said(context)


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ("revoke 3", "no_such_answer"),
        ("revoke 0", "no_such_answer"),
        ("revoke x", "no_such_answer"),
        ("revoke " + "9" * 5000, "no_such_answer"),
        ("revoke", "missing_argument"),
        ("drop 1", "unknown_argument"),
        ("reset now", "unknown_argument"),
    ],
)
def test_permissions_refuses_what_it_cannot_take_back(args: str, reason: str):
    context = FakeContext()
    context.session.always_scopes[:] = [EXACT, FILE]
    with pytest.raises(CommandUsageError) as raised:
        run(context, f"/permissions {args}")
    assert raised.value.reason == reason
    assert context.session.always_scopes == [EXACT, FILE]


def test_permissions_is_in_help():
    context = FakeContext()
    run(context, "/help")
    assert "/permissions [revoke <number> | reset]" in context.shown
    assert "/permissions" in COMMANDS


class Asker:
    def __init__(self, *answers: PermissionDecision) -> None:
        self.answers = list(answers)
        self.asked: list[str] = []

    def __call__(self, request: PermissionRequest) -> PermissionDecision:
        self.asked.append(request.description)
        return self.answers.pop(0) if self.answers else PermissionDecision.DENY


def test_a_taken_back_answer_is_asked_about_again_with_the_real_toolbox(tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    asker = Asker(PermissionDecision.ALLOW_PREFIX, PermissionDecision.ALLOW_ALWAYS)
    toolbox = make_toolbox(root, auto_approve=False, ask_permission=asker)
    toolbox.run("bash", {"command": "echo one"})
    toolbox.run("write_file", {"path": "notes.md", "content": "x\n"})
    assert [s.kind for s in toolbox.always_allowed()] == [
        ScopeKind.COMMAND_PREFIX,
        ScopeKind.FILE,
    ]
    assert not toolbox.run("bash", {"command": "echo one two"}).is_error  # covered
    assert toolbox.revoke_always(toolbox.always_allowed()[0]) == 1
    assert toolbox.run("bash", {"command": "echo one two"}).is_error  # asked, denied
    assert asker.asked[-1] == "echo one two"
    assert toolbox.revoke_always(None) == 1 and toolbox.always_allowed() == ()
    assert toolbox.run("write_file", {"path": "notes.md", "content": "y\n"}).is_error
    assert (root / "notes.md").read_text() == "x\n"
