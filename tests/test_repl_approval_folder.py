"""A call that runs in another folder than the one agent-cli was started in says where.

After `--resume` from folder B of a session started in A, the session's tools go on in A
(said once at start-up); the permission question for `rm -rf build` did not say where it
ran, and the user's A/build was deleted while they stood in B. The real session, toolbox
and transcript, the REPL's own asker on a recording console.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from session_support import ScriptedProvider, drain, make_session, tool_use

from agent_cli.repl.wiring import build_interactive_asker, folder_elsewhere
from agent_cli.tools import PermissionRequest
from agent_cli.tools.approval_scope import AlwaysScope, ScopeKind


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """Folder A (where the session was started) and B (where it is resumed), each with a
    build folder."""
    a, b = tmp_path / "projectA", tmp_path / "projectB"
    for folder in (a, b):
        (folder / "build").mkdir(parents=True)
    return a.resolve(), b.resolve()


def started_in(folder: Path) -> str:
    """A session started in `folder`: one request, answered; its id."""
    session = make_session(folder, ScriptedProvider([[{"type": "text", "text": "hi"}]]))
    drain(session.run_turn("hello from A"))
    session.close()
    return session.session_id


def asked_in(
    workspace: Path, started: str, calls: list[dict[str, Any]], resume: str | None = None
) -> str:
    """What the REPL's question showed (one line) for `calls`, in a session opened in
    `workspace` (resuming `resume`) by an agent-cli started in `started`; every answer n."""
    console = Console(file=io.StringIO(), width=100, height=40, color_system=None)
    asker = build_interactive_asker(lambda question: "n", console, started_in=started)
    provider = ScriptedProvider([calls, [{"type": "text", "text": "done"}]])
    session = make_session(
        workspace, provider, auto_approve=False, ask_permission=asker, resume=resume
    )
    drain(session.run_turn("clean the build folder"))
    session.close()
    return one_line(console)


def one_line(console: Console) -> str:
    """What `console` showed, as one line: rows joined, the header's row marks taken out."""
    shown = console.file.getvalue().replace("\n  ↳ ", " ")  # type: ignore[attr-defined]
    return " ".join(shown.split())


def test_a_command_of_a_session_resumed_from_elsewhere_names_its_folder(folders):
    a, b = folders
    session_id = started_in(a)
    shown = asked_in(b, str(b), [tool_use("t1", "bash", command="rm -rf build")], session_id)
    assert f"permission needed for bash in {a}: run this command (1 line)" in shown
    assert (a / "build").is_dir() and (b / "build").is_dir()


def test_writes_and_edits_name_the_folder_too(folders):
    a, b = folders
    (a / "notes.txt").write_text("old\n")
    calls = [
        tool_use("t1", "write_file", path="new.txt", content="x\n"),
        tool_use("t2", "edit_file", path="notes.txt", old_string="old", new_string="new"),
    ]
    shown = asked_in(b, str(b), calls, started_in(a))
    assert f"permission needed for write_file in {a}: create new.txt" in shown
    assert f"permission needed for edit_file in {a}: edit notes.txt" in shown


def test_a_call_in_the_folder_agent_cli_was_started_in_names_none(folders):
    a, _ = folders
    shown = asked_in(a, str(a), [tool_use("t1", "bash", command="rm -rf build")])
    assert "permission needed for bash: run this command (1 line)" in shown
    assert f" in {a}" not in shown


def test_a_deleted_start_folder_names_the_folder_of_every_call(folders):
    a, _ = folders
    shown = asked_in(a, "", [tool_use("t1", "bash", command="rm -rf build")])
    assert f"permission needed for bash in {a}: run this command" in shown


@pytest.mark.parametrize(
    ("folder", "started", "named"),
    [
        ("/w/a", "/w/b", "/w/a"),
        ("/w/a", "/w/a", None),
        ("/w/a", "/w/a/", None),
        ("/w/a", "", "/w/a"),
        ("/w/a", None, None),
        (None, "/w/b", None),
    ],
)
def test_the_folder_is_named_only_when_it_is_not_the_start_folder(folder, started, named):
    request = PermissionRequest("bash", "ls", folder=folder)
    assert folder_elsewhere(request, started) == named


def test_a_call_an_always_answer_lets_through_names_its_folder_as_well():
    console = Console(file=io.StringIO(), width=100, height=40, color_system=None)
    asker = build_interactive_asker(lambda question: "n", console, started_in="/w/b")
    scope = AlwaysScope(ScopeKind.EXACT_COMMAND, "make", "make")
    asker.show_unasked(PermissionRequest("bash", "make", folder="/w/a"), scope)  # type: ignore[attr-defined]
    assert "bash in /w/a not asked (always this exact command): run this command" in one_line(
        console
    )
