"""Wiring: provider choice, permission answers, and the real session behind piped input."""

from __future__ import annotations

import io
import json

import pytest
from repl_fakes import make_console
from rich.console import Console

from agent_cli.repl.approval_question import build_question
from agent_cli.repl.config import Settings
from agent_cli.repl.main import main
from agent_cli.repl.wiring import (
    build_interactive_asker,
    build_refusing_asker,
    choose_provider_name,
    is_offline_fallback,
)
from agent_cli.tools.approval import build_command_approval
from agent_cli.tools.approval_scope import command_target
from agent_cli.tools.permissions import PermissionDecision, PermissionRequest

COMMAND = "rm -rf build\n\x1b[2Jand more"
REQUEST = PermissionRequest(
    "bash", COMMAND, build_command_approval(COMMAND), command_target(COMMAND)
)


def test_the_provider_is_anthropic_with_a_key_and_offline_without():
    assert choose_provider_name(Settings(), {"ANTHROPIC_API_KEY": "k"}) == "anthropic"
    assert choose_provider_name(Settings(), {"ANTHROPIC_API_KEY": "  "}) == "offline"
    assert choose_provider_name(Settings(provider="offline"), {"ANTHROPIC_API_KEY": "k"}) == (
        "offline"
    )


def test_offline_counts_as_a_fallback_only_when_nobody_chose_it():
    assert is_offline_fallback(Settings(), {})
    assert not is_offline_fallback(Settings(provider="offline"), {})
    assert not is_offline_fallback(Settings(), {"ANTHROPIC_API_KEY": "k"})


def scripted_ask(*answers):
    queue = list(answers)

    def ask(question: str) -> str:
        answer = queue.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    return ask


def test_the_asker_shows_the_whole_request_and_asks_again_until_understood():
    console = make_console()
    asker = build_interactive_asker(scripted_ask("maybe", "a"), console)
    assert asker(REQUEST) is PermissionDecision.ALLOW_ALWAYS
    shown = console.export_text()
    assert "permission needed for bash" in shown and "rm -rf build" in shown
    assert "and more" in shown and "\x1b" not in shown
    assert "answer y, a or n" in shown
    assert "allowed without asking for the rest of this session: this exact command" in shown


def test_ctrl_d_at_the_permission_question_denies():
    asker = build_interactive_asker(scripted_ask(EOFError()), make_console())
    assert asker(REQUEST) is PermissionDecision.DENY


def test_ctrl_c_at_the_permission_question_reaches_the_session():
    asker = build_interactive_asker(scripted_ask(KeyboardInterrupt()), make_console())
    with pytest.raises(KeyboardInterrupt):
        asker(REQUEST)


def test_the_refusing_asker_denies_and_says_why():
    console = make_console()
    asker = build_refusing_asker(console, "no terminal")
    assert asker(REQUEST) is PermissionDecision.DENY_UNASKED  # nobody was asked
    assert "bash was not run: no terminal. Run again with --yes" in console.export_text()
    assert asker.refused == ["bash"]


def test_piped_input_drives_a_real_offline_session(isolated_home, tmp_path):
    (tmp_path / "notes.md").write_text("# Notes\n", encoding="utf-8")
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(
        ["--workspace", str(tmp_path), "--soft-threshold", "2000", "--hard-limit", "6000"],
        stdin=io.StringIO(
            "read notes.md\n" * 4 + "/remember notes have one heading\n/stats --json\n"
        ),
        stdout=stdout,
        stderr=stderr,
        env={"AGENT_CLI_HOME": str(isolated_home)},
    )
    shown = stdout.getvalue()
    assert code == 0, stderr.getvalue()
    assert "offline demo model (no API key found)" in shown
    assert "[compact] L2 drop repeated file reads" in shown
    assert "[compact] total:" in shown
    assert "remembered F1" in shown
    stats_json = shown[shown.index('{\n  "cache_read_share"') : shown.rindex("}") + 1]
    stats = json.loads(stats_json)
    assert stats["soft_threshold"] == 2000 and stats["compactions"]
    transcripts = list((isolated_home / "transcripts").glob("*.jsonl"))
    assert len(transcripts) == 1 and f"transcript: {transcripts[0]}" in shown


def test_the_question_breaks_between_words_on_a_narrow_screen():
    """At 40 columns `allow? [y] once · [a] always this exact command · [n] no:` takes
    two rows, broken at a space, never inside a word (issue 23 item 16)."""
    asked: list[str] = []

    def ask(question: str) -> str:
        asked.append(question)
        return "y"

    console = Console(file=io.StringIO(), width=40, force_terminal=True)
    build_interactive_asker(ask, console)(REQUEST)
    rows = asked[0].split("\n")
    assert len(rows) > 1 and all(len(row) <= 40 for row in rows), rows
    assert " ".join(rows).split() == build_question(REQUEST).split()


TALL_COMMAND = "touch SHOULD_NOT_RUN\n" + "\n".join(f"echo line {n}" for n in range(300))
TALL_REQUEST = PermissionRequest(
    "bash", TALL_COMMAND, build_command_approval(TALL_COMMAND), command_target(TALL_COMMAND)
)


class StoppedWhilePrinting(Console):
    """A console whose `print` raises `stop` once it has printed `after` more lines past
    the moment `arm()` was called (None: from the start): a key or signal that lands
    while a view is printing."""

    def __init__(self, stop: BaseException, armed: bool = False) -> None:
        super().__init__(file=io.StringIO(), width=100, height=30, record=True)
        self.stop, self.armed, self.printed = stop, armed, 0

    def arm(self) -> None:
        self.armed = True

    def print(self, *objects, **options) -> None:  # type: ignore[override]
        if self.armed:
            self.printed += 1
            if self.printed > 20:
                self.armed = False
                raise self.stop
        super().print(*objects, **options)


def view_then(console: StoppedWhilePrinting):
    """The answer `v`, after which the listing prints (and is stopped part way)."""

    def ask(question: str) -> str:
        console.arm()
        return "v"

    return ask


def test_ctrl_c_while_the_full_listing_prints_is_ctrl_c_at_the_question():
    """The command never started: the session must say "not run", not "interrupted"."""
    from agent_cli.errors import PermissionQuestionInterrupted

    console = StoppedWhilePrinting(KeyboardInterrupt())
    asker = build_interactive_asker(view_then(console), console)
    with pytest.raises(KeyboardInterrupt) as raised:  # a plain one would end pytest itself
        asker(TALL_REQUEST)
    assert isinstance(raised.value, PermissionQuestionInterrupted)
    assert raised.value.tool == "bash"
    assert "echo line 40" not in console.export_text()  # stopped inside the listing


def test_ctrl_c_while_the_first_view_prints_is_ctrl_c_at_the_question():
    from agent_cli.errors import PermissionQuestionInterrupted

    console = StoppedWhilePrinting(KeyboardInterrupt(), armed=True)
    asker = build_interactive_asker(scripted_ask("y"), console)
    with pytest.raises(KeyboardInterrupt) as raised:
        asker(TALL_REQUEST)
    assert isinstance(raised.value, PermissionQuestionInterrupted)


def test_a_termination_signal_while_the_listing_prints_is_one_at_the_question():
    from agent_cli.errors import PermissionQuestionTerminated, TerminationRequested

    console = StoppedWhilePrinting(TerminationRequested(15))
    asker = build_interactive_asker(view_then(console), console)
    with pytest.raises(TerminationRequested) as raised:
        asker(TALL_REQUEST)
    assert isinstance(raised.value, PermissionQuestionTerminated)
    assert raised.value.signal_number == 15 and raised.value.tool == "bash"


def test_ctrl_c_during_the_listing_is_recorded_as_not_run_by_a_real_session(tmp_path):
    """The whole path: the real session and toolbox record the call as not run, and
    the command did not run."""
    from session_support import ScriptedProvider, drain, make_session, tool_use

    from agent_cli.session.turn import ASKING_INTERRUPTED_TEXT

    workspace = tmp_path / "ws"
    workspace.mkdir()
    console = StoppedWhilePrinting(KeyboardInterrupt())
    provider = ScriptedProvider([[tool_use("toolu_1", "bash", command=TALL_COMMAND)]])
    session = make_session(
        workspace,
        provider,
        auto_approve=False,
        ask_permission=build_interactive_asker(view_then(console), console),
    )
    events = drain(session.run_turn("go"))
    assert [e.code for e in events if getattr(e, "code", None)] == ["permission_cancelled"]
    result = session.view[-1]["content"][0]
    assert result["content"] == ASKING_INTERRUPTED_TEXT
    assert not (workspace / "SHOULD_NOT_RUN").exists()
