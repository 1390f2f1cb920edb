""" "Always" covers what was shown: the exact command, a prefix of plain words, or one file.

Approving `echo one` with "always" once let `echo two; rm -f tall.txt` run unasked,
because the answer was remembered for the whole tool. These tests run the real toolbox
and real bash in a temporary workspace; `tall.txt` must survive every command that was
not itself approved.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tools_support import make_toolbox

from agent_cli.tools import PermissionDecision, PermissionRequest
from agent_cli.tools.approval_scope import (
    ScopeKind,
    command_prefix,
    command_target,
    offered_scopes,
)

ALWAYS = PermissionDecision.ALLOW_ALWAYS
PREFIX = PermissionDecision.ALLOW_PREFIX
DENY = PermissionDecision.DENY


class ScriptedAsker:
    """Gives the scripted answers in order (DENY once they run out); keeps the requests."""

    def __init__(self, *answers: PermissionDecision) -> None:
        self.answers = list(answers)
        self.requests: list[PermissionRequest] = []

    def __call__(self, request: PermissionRequest) -> PermissionDecision:
        self.requests.append(request)
        return self.answers.pop(0) if self.answers else DENY

    @property
    def asked(self) -> list[str]:
        return [request.description for request in self.requests]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "tall.txt").write_text("keep me\n")
    (root / "notes.txt").write_text("draft\n")
    return root


def run(toolbox, command: str):
    return toolbox.run("bash", {"command": command})


def test_always_for_echo_one_does_not_let_echo_two_and_rm_run_unasked(workspace: Path):
    asker = ScriptedAsker(ALWAYS)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    assert "one" in run(toolbox, "echo one").content
    outcome = run(toolbox, "echo two; rm -f tall.txt")
    assert outcome.is_error and "Permission denied" in outcome.content
    assert (workspace / "tall.txt").exists()
    assert "one" in run(toolbox, "echo one").content  # the exact command: not asked again
    assert asker.asked == ["echo one", "echo two; rm -f tall.txt"]


def test_always_for_an_exact_command_is_character_for_character(workspace: Path):
    asker = ScriptedAsker(ALWAYS)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    run(toolbox, "echo one")
    for variant in ("echo one ", " echo one", "echo one two", "echo  one", "echo one\n"):
        assert run(toolbox, variant).is_error, repr(variant)
    assert len(asker.requests) == 6


HOSTILE_AFTER_PREFIX = [
    "printf hello; rm -f tall.txt",
    "printf hello;rm -f tall.txt",
    "printf hello && rm -f tall.txt",
    "printf hello || rm -f tall.txt",
    "printf hello | rm -f tall.txt",
    "printf hello & rm -f tall.txt",
    "printf hello `rm -f tall.txt`",
    "printf hello $(rm -f tall.txt)",
    "printf hello ${x:=$(rm -f tall.txt)}",
    "printf hello $[1+1]",
    "printf hello > tall.txt",
    "printf hello >> tall.txt",
    "printf hello < tall.txt > tall.txt",
    "printf hello <(rm -f tall.txt)",
    "printf hello\nrm -f tall.txt",
    "printf hello\rrm -f tall.txt",
    "printf hello \\\nrm -f tall.txt",
    "printf hello ';' ; rm -f tall.txt",
    "printf hellorm; rm -f tall.txt",
    "printf hellox",
    "printf  hello2>tall.txt",
    "rm -f tall.txt; printf hello",
    "FOO=1 printf hello",
]


@pytest.mark.parametrize("command", HOSTILE_AFTER_PREFIX)
def test_a_prefix_rule_never_covers_a_second_command_a_redirect_or_a_substitution(
    workspace: Path, command: str
):
    asker = ScriptedAsker(PREFIX)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    assert not run(toolbox, "printf hello").is_error
    assert run(toolbox, command).is_error  # asked, and denied
    assert asker.asked == ["printf hello", command]
    assert (workspace / "tall.txt").read_text() == "keep me\n"


def test_a_prefix_rule_covers_the_prefix_with_plain_arguments(workspace: Path):
    asker = ScriptedAsker(PREFIX)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    assert not run(toolbox, "printf hello").is_error
    for command in ("printf hello", "printf hello ' %s!' world", "  printf\thello   -- x"):
        assert not run(toolbox, command).is_error, command
    assert asker.asked == ["printf hello"]


def test_always_for_a_file_covers_writes_and_edits_of_that_file_only(workspace: Path):
    asker = ScriptedAsker(ALWAYS)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    assert not toolbox.run("write_file", {"path": "notes.txt", "content": "v1\n"}).is_error
    edit = {"path": "./notes.txt", "old_string": "v1", "new_string": "v2"}
    assert not toolbox.run("edit_file", edit).is_error
    assert (workspace / "notes.txt").read_text() == "v2\n"
    assert toolbox.run("write_file", {"path": "tall.txt", "content": "gone\n"}).is_error
    assert run(toolbox, "rm -f notes.txt").is_error
    assert (workspace / "tall.txt").read_text() == "keep me\n"
    assert (workspace / "notes.txt").exists()
    assert asker.asked == [
        "overwrite notes.txt with 1 line",
        "overwrite tall.txt with 1 line",
        "rm -f notes.txt",
    ]


def test_a_file_rule_follows_the_file_not_its_name_when_a_link_is_retargeted(workspace: Path):
    (workspace / "link.txt").symlink_to("notes.txt")
    asker = ScriptedAsker(ALWAYS)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    toolbox.run("write_file", {"path": "link.txt", "content": "v1\n"})
    (workspace / "link.txt").unlink()
    (workspace / "link.txt").symlink_to("tall.txt")
    assert toolbox.run("write_file", {"path": "link.txt", "content": "gone\n"}).is_error
    assert (workspace / "tall.txt").read_text() == "keep me\n"
    assert len(asker.requests) == 2


def test_a_prefix_answer_where_none_was_offered_allows_once_and_remembers_nothing(
    workspace: Path,
):
    asker = ScriptedAsker(PREFIX)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    assert not run(toolbox, "echo a; echo b").is_error
    assert run(toolbox, "echo a; echo b").is_error
    assert len(asker.requests) == 2


def test_the_requests_offer_what_always_would_cover(workspace: Path):
    asker = ScriptedAsker()
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    run(toolbox, "npm test -- --watch")
    run(toolbox, "echo two; rm -f tall.txt")
    toolbox.run("write_file", {"path": "notes.txt", "content": "x"})
    plain, compound, write = (request.always_scopes() for request in asker.requests)
    assert [(s.kind, s.shown) for s in plain] == [
        (ScopeKind.EXACT_COMMAND, "npm test -- --watch"),
        (ScopeKind.COMMAND_PREFIX, "npm test"),
    ]
    assert [(s.kind, s.shown) for s in compound] == [
        (ScopeKind.EXACT_COMMAND, "echo two; rm -f tall.txt")
    ]
    assert [(s.kind, s.shown) for s in write] == [(ScopeKind.FILE, "notes.txt")]
    assert write[0].value == str(workspace / "notes.txt")


@pytest.mark.parametrize(
    ("command", "prefix"),
    [
        ("npm test", "npm test"),
        ("npm test -- --watch", "npm test"),
        ("git status --short", "git status"),
        ("./run.sh check --fast", "./run.sh check"),
        ("npm run test:unit --bail", "npm run test:unit"),
        ("docker compose up -d web", "docker compose up"),
        ("echo one", "echo one"),
        ("ls -la", None),  # an option is no subcommand
        ("pytest tests/test_x.py", None),  # nor is a path
        ("make", None),
        ("echo two; rm -f tall.txt", None),
        ("git status\nrm -rf ~", None),
        ("sudo rm -rf build", None),  # programs that run their arguments as a command
        ("/usr/bin/env python x", None),
        ("bash deploy", None),
        ("xargs rm", None),
        (". script", None),
        ("eval echo", None),
        ("timeout kill", None),
        ("coproc rm", None),
        ("tool " + "s" * 60, None),  # too long to show whole in the question
    ],
)
def test_the_prefix_offered_is_a_program_and_its_subcommand_words(command, prefix):
    assert command_prefix(command) == prefix
    scopes = offered_scopes(command_target(command))
    assert [s.shown for s in scopes if s.kind is ScopeKind.COMMAND_PREFIX] == (
        [prefix] if prefix else []
    )
