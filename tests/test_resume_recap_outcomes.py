"""The "where you left off" recap says which calls ran, and which were denied or never ran.

It said `used write_file, bash` of two calls the user had answered `n` to (deploy.conf did
not exist), and the same after a kill at the permission question. The real session,
toolbox and transcript; the REPL's own start-up (`main`, piped input, offline model) prints
the recap of the session it resumes.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from session_support import ScriptedProvider, drain, make_session, tool_use

from agent_cli.events import ModelResponse, Usage
from agent_cli.provider.offline import OfflineProvider
from agent_cli.repl.main import main
from agent_cli.repl.session_views import _CALL_WORDS, build_exchanges_view, describe_calls
from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.session import call_outcome
from agent_cli.session.call_outcome import (
    ASKED,
    DENIED,
    NOT_RUN,
    OUTCOMES,
    RAN,
    REFUSED,
    STOPPED,
    UNKNOWN,
    read_call_outcome,
)
from agent_cli.session.catalog import Call
from agent_cli.tools import PermissionDecision, PermissionRequest

ALLOW = PermissionDecision.ALLOW_ONCE
DENY = PermissionDecision.DENY
DEPLOY_CALLS = [
    tool_use("t1", "write_file", path="deploy.conf", content="prod=true\n"),
    tool_use("t2", "bash", command="echo deploying > deployed.txt"),
]


class ProcessDied(SystemExit):
    """Where the process would have been killed."""


class Asker:
    """Gives `answers` in order; at the question numbered `die_at` the process dies."""

    def __init__(self, *answers: PermissionDecision, die_at: int | None = None) -> None:
        self.answers, self.die_at, self.asked = list(answers), die_at, 0

    def __call__(self, request: PermissionRequest) -> PermissionDecision:
        self.asked += 1
        if self.asked == self.die_at:
            raise ProcessDied("killed at the permission question")
        return self.answers.pop(0)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def deploy_session(workspace: Path, asker: Asker) -> str:
    """A session whose request "deploy it" made `DEPLOY_CALLS`, answered by `asker`."""
    provider = ScriptedProvider([DEPLOY_CALLS, [{"type": "text", "text": "OK."}]])
    session = make_session(workspace, provider, auto_approve=False, ask_permission=asker)
    try:
        drain(session.run_turn("deploy it"))
    finally:
        session.close()
    return session.session_id


def resumed_recap(workspace: Path) -> str:
    """What `agent-cli --continue` in `workspace` prints (the REPL's start-up, piped)."""
    stdout, stderr = io.StringIO(), io.StringIO()
    env = {"AGENT_CLI_HOME": os.environ["AGENT_CLI_HOME"]}
    argv = ["--continue", "--workspace", str(workspace), "--provider", "offline"]
    code = main(argv, stdin=io.StringIO(""), stdout=stdout, stderr=stderr, env=env)
    assert code == 0, stderr.getvalue()
    shown = " ".join(stdout.getvalue().split())
    return shown.split("── where you left off ──", 1)[1].split("──", 1)[0]


def recap_calls(workspace: Path, session_id: str) -> list[Any]:
    resumed = make_session(workspace, OfflineProvider(), resume=session_id)
    try:
        return list(resumed.recent_exchanges()[-1].calls)
    finally:
        resumed.close()


def test_calls_the_user_denied_are_not_said_to_be_used(workspace: Path):
    session_id = deploy_session(workspace, Asker(DENY, DENY))
    assert recap_calls(workspace, session_id) == [("write_file", DENIED), ("bash", DENIED)]
    recap = resumed_recap(workspace)
    assert "you: deploy it denied write_file, bash OK." in recap
    assert "used" not in recap
    assert not (workspace / "deploy.conf").exists()


def test_a_call_that_ran_is_told_from_one_denied(workspace: Path):
    deploy_session(workspace, Asker(DENY, ALLOW))
    assert "used bash; denied write_file" in resumed_recap(workspace)
    assert (workspace / "deployed.txt").exists() and not (workspace / "deploy.conf").exists()


def test_a_kill_at_the_question_is_asked_and_not_run(workspace: Path):
    with pytest.raises(ProcessDied):
        deploy_session(workspace, Asker(die_at=1))
    assert "asked write_file, not run; bash not run" in resumed_recap(workspace)
    assert not (workspace / "deploy.conf").exists()


def test_a_kill_while_a_call_ran_says_it_may_have_run(workspace: Path):
    provider = ScriptedProvider([[tool_use("t1", "bash", command="echo hi")]])
    session = make_session(workspace, provider, auto_approve=True)

    def die_once_started(chunk: bytes) -> None:
        if chunk == b"":  # the toolbox's "it runs now"
            raise ProcessDied("killed while the tool ran")

    session.watch_tool_output(die_once_started)
    with pytest.raises(ProcessDied):
        drain(session.run_turn("say hi"))
    session.close()
    assert "bash may have run (no result recorded)" in resumed_recap(workspace)


# Every text agent-cli writes as the result of a call that did not run, or did not
# finish, filled in as it writes it (`call_outcome` reads them back).
WRITTEN = {
    "denied, asked": ("Permission denied by the user: bash was not run.", DENIED),
    "denied, recorded late": (call_outcome.DENIED_TEXT, DENIED),
    "killed at the question": (call_outcome.AT_QUESTION_TEXT, ASKED),
    "Ctrl-C at the question": (call_outcome.ASKING_INTERRUPTED_TEXT, ASKED),
    "signal at the question": (call_outcome.TERMINATED_ASKING_TEXT.format(signal="SIGHUP"), ASKED),
    "after the question": (call_outcome.AFTER_QUESTION_TEXT, NOT_RUN),
    "after Ctrl-C": (call_outcome.NOT_RUN_TOOL_TEXT, NOT_RUN),
    "Ctrl-C while prepared": (call_outcome.NOT_STARTED_TEXT, NOT_RUN),
    "cut answer": (call_outcome.CUT_TOOL_TEXT, NOT_RUN),
    "stop reason": (call_outcome.STOPPED_TOOL_TEXT.format(reason="refusal"), NOT_RUN),
    "unrecorded start": (call_outcome.UNRECORDED_TEXT, NOT_RUN),
    "nobody to ask": (call_outcome.UNASKED_TEXT.format(name="bash"), NOT_RUN),
    "Ctrl-C while it ran": (call_outcome.INTERRUPTED_TOOL_TEXT, STOPPED),
    "signal while it ran": (call_outcome.TERMINATED_TOOL_TEXT.format(signal="SIGTERM"), STOPPED),
    "tool stopped": (call_outcome.INTERRUPTED_TEXT.format(tool_name="grep"), STOPPED),
    "command stopped": (call_outcome.INTERRUPTED_HEADER + "\nline one\nline two", STOPPED),
    "command stopped by a signal": (
        call_outcome.TERMINATED_HEADER.format(signal="SIGHUP") + "\ntick 1\n",
        STOPPED,
    ),
    "resumed unrecorded": (call_outcome.RESUMED_TOOL_TEXT, UNKNOWN),
    "timed out": (call_outcome.TIMED_OUT_HEADER.format(seconds="2") + "\nstart\n", STOPPED),
    "output cap": (call_outcome.OUTPUT_CAP_HEADER.format(cap="1.0 MB") + "\ny\ny\n", STOPPED),
    "stale write": (call_outcome.STALE_TEXT.format(shown="notes.md"), REFUSED),
    "stale, unreadable": (
        call_outcome.STALE_UNREADABLE_TEXT.format(shown="a.bin", why="it holds NUL bytes"),
        REFUSED,
    ),
    "made meanwhile": (call_outcome.APPEARED_TEXT.format(shown="a", size="3 B"), REFUSED),
    "deleted meanwhile": (call_outcome.DELETED_TEXT.format(shown="a"), REFUSED),
    "changed meanwhile": (call_outcome.CHANGED_TEXT.format(shown="a"), REFUSED),
    "path moved": (call_outcome.MOVED_TARGET_TEXT, REFUSED),
    "a folder": (call_outcome.DIRECTORY_TEXT.format(shown="src"), REFUSED),
    "over a secret": (call_outcome.SECRET_OVERWRITE_TEXT.format(shown=".env"), REFUSED),
    "empty old text": (call_outcome.EMPTY_OLD_TEXT, REFUSED),
    "nothing to change": (call_outcome.SAME_TEXT, REFUSED),
    "old text not found": (call_outcome.NOT_FOUND_TEXT.format(shown="notes.md"), REFUSED),
    "old text in 3 places": (call_outcome.MANY_PLACES_TEXT.format(count=3, shown="m.py"), REFUSED),
}


@pytest.mark.parametrize(("text", "outcome"), WRITTEN.values(), ids=WRITTEN.keys())
def test_each_result_agent_cli_writes_for_an_unrun_call_is_read_back(text: str, outcome: str):
    assert read_call_outcome({"type": "tool_result", "content": text, "is_error": True}) == outcome
    as_blocks = [{"type": "text", "text": text}]
    assert read_call_outcome({"content": as_blocks, "is_error": True}) == outcome


@pytest.mark.parametrize(
    "result",
    [
        {"content": "Permission denied by the user: bash was not run."},  # not an error
        {"content": "exit code 1\nPermission denied by the user: x was not run.", "is_error": True},
        {"content": "Not run: something a tool printed", "is_error": True},
        {"content": "alpha"},
    ],
    ids=["not an error", "quoted inside output", "like but not ours", "plain output"],
)
def test_any_other_result_is_a_call_that_ran(result: dict[str, Any]):
    assert read_call_outcome(result) == RAN


def test_a_call_without_a_result_may_have_run():
    assert read_call_outcome(None) == UNKNOWN


def test_the_recap_has_words_for_every_outcome_and_says_used_only_of_calls_that_ran():
    assert set(_CALL_WORDS) == set(OUTCOMES)
    calls = [Call(f"tool_{outcome}", outcome) for outcome in OUTCOMES]
    said = describe_calls(calls)
    assert re.findall(r"\bused\b", said) == ["used"] and "used tool_ran;" in said
    for outcome in OUTCOMES:
        assert f"tool_{outcome}" in said


def test_the_recap_view_words_each_exchange_from_its_calls():
    from rich.console import Console

    from agent_cli.session.catalog import Exchange

    console = Console(file=io.StringIO(), width=100, color_system=None)
    calls = (Call("bash", RAN), Call("write_file", DENIED))
    console.print(build_exchanges_view([Exchange("deploy it", "OK.", calls)]))
    assert "  used bash; denied write_file" in console.file.getvalue()  # type: ignore[attr-defined]


def test_a_request_pruned_from_the_view_keeps_its_own_calls_and_answer(workspace: Path):
    """Found: compaction (L3) kept request A's message and dropped request B's, and the
    recap read from the view filed B's calls and answer under A (`you: REQUEST A ... used
    bash, bash / B: counted everything.`). It is read from the transcript now."""
    steps: list[Any] = [[{"type": "text", "text": "A: nothing to write."}]]
    steps += [[tool_use(f"b{n}", "bash", command=f"seq {n} 1200")] for n in range(6)]
    steps.append([{"type": "text", "text": "B: counted everything."}])
    session = make_session(
        workspace, ScriptedProvider(steps), soft=4_000, hard=9_000, keep_recent=4
    )
    try:
        drain(session.run_turn("REQUEST A: say hi"))
        drain(session.run_turn("REQUEST B: count things"))
        typed = [m["content"] for m in session.view if isinstance(m["content"], str)]
    finally:
        session.close()
    assert typed[0] == "REQUEST A: say hi" and "REQUEST B: count things" not in typed  # the case
    recap = resumed_recap(workspace)
    assert "you: REQUEST A: say hi A: nothing to write. you: REQUEST B: count things" in recap
    assert "count things used bash, bash, bash, bash, bash, bash B: counted everything." in recap


def test_the_recap_hides_a_value_named_secret_since_it_was_recorded(workspace: Path):
    seed = "seed-Zq7Rk2mXv9LpW4tYc8NbH3"
    provider = ScriptedProvider([[{"type": "text", "text": f"The seed is {seed}."}]])
    session = make_session(workspace, provider)
    drain(session.run_turn("what is the seed?"))
    session.close()
    environment = {"SIGNING_SEED": seed, "AGENT_CLI_SECRET_NAMES": "SIGNING_SEED"}
    resumed = make_session(
        workspace, OfflineProvider(), resume=session.session_id, environment=environment
    )
    try:
        (exchange,) = resumed.recent_exchanges()
    finally:
        resumed.close()
    assert exchange.request == "what is the seed?"
    assert seed not in exchange.answer and REDACTED_MARK in exchange.answer


def test_calls_their_tool_refused_say_nothing_was_written(workspace: Path):
    """Found: a write_file refused as stale ("…nothing was written") and an edit_file whose
    old text was not found were recapped as `used write_file, edit_file`."""
    notes = workspace / "notes.md"
    notes.write_text("line 1\nline 2\n")

    def user_edits_then_model_writes(request: Any) -> Iterator[Any]:
        notes.write_text("line 1\nline 2\nUSER LINE\n")  # the user's editor, meanwhile
        calls = [
            tool_use("w1", "write_file", path="notes.md", content="line 1\nmodel line\n"),
            tool_use("e1", "edit_file", path="notes.md", old_string="no such", new_string="x"),
        ]
        yield ModelResponse({"role": "assistant", "content": calls}, "tool_use", Usage(0, 0))

    steps = [
        [tool_use("r1", "read_file", path="notes.md")],
        user_edits_then_model_writes,
        [{"type": "text", "text": "Done."}],
    ]
    session = make_session(workspace, ScriptedProvider(steps))
    drain(session.run_turn("add a line to notes.md"))
    session.close()
    recap = resumed_recap(workspace)
    assert "used read_file; write_file, edit_file refused (nothing written) Done." in recap
    assert notes.read_text() == "line 1\nline 2\nUSER LINE\n"


def test_commands_ended_by_their_timeout_or_output_cap_say_stopped(workspace: Path):
    """Found: a command its timeout ended ("Timed out after 2 s; …") was recapped as `used
    bash`; the output cap ends one the same way (its result spilled to an artifact here)."""
    steps = [
        [tool_use("b1", "bash", command="echo start; sleep 30", timeout_seconds=1)],
        [tool_use("b2", "bash", command="yes", timeout_seconds=60)],
        [{"type": "text", "text": "Both were cut short."}],
    ]
    session = make_session(workspace, ScriptedProvider(steps))
    drain(session.run_turn("run the jobs"))
    session.close()
    assert "you: run the jobs bash, bash stopped before finishing Both" in resumed_recap(workspace)
