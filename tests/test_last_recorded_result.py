"""`/last` of a resumed session shows the newest result its transcript recorded.

It said "no tool has run in this session yet" after `--continue`, though the last run's
command (stopped by a signal or Ctrl-C, its output so far kept) was in the transcript; and
after `/new` or `/resume` it showed the other session's last call.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from repl_fakes import FakeBackend, FakeSession, make_console
from session_support import ScriptedProvider, drain, make_session, tool_use, workspace_with

from agent_cli.events import ToolFinished, ToolStarted
from agent_cli.repl.loop import Repl
from agent_cli.secret_forms import SecretForms
from agent_cli.session.last_result import read_last_tool_result
from agent_cli.tools.shell import TERMINATED_HEADER

POINTER = "artifact:s-1:" + "ab12" * 8 + ".txt:" + "ab12" * 16


def message(role: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "message", "payload": {"message": {"role": role, "content": list(blocks)}}}


def call(call_id: str, name: str = "bash") -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": {}}


def result(call_id: str, text: str, is_error: bool = False) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": text}
    return {**block, "is_error": True} if is_error else block


STOPPED = TERMINATED_HEADER.format(signal="SIGTERM") + "\ntick 1\ntick 2\n"


def test_the_newest_call_that_ran_is_read_back_with_its_output():
    records = [
        message("user", {"type": "text", "text": "go"}),
        message("assistant", call("t1")),
        message("user", result("t1", "Exit code: 0\nfirst\n")),
        message("assistant", call("t2")),
        message("user", result("t2", STOPPED, is_error=True)),
    ]
    finished = read_last_tool_result(records, "s-1")
    assert finished is not None
    assert (finished.tool_use_id, finished.name, finished.is_error) == ("t2", "bash", True)
    assert finished.output == STOPPED
    assert finished.size_bytes == len(STOPPED.encode())


def test_calls_that_never_ran_are_passed_over():
    not_run = "Not run: the turn was interrupted before this tool started."
    records = [
        message("assistant", call("t1"), call("t2")),
        message("user", result("t1", "Exit code: 3\nboom\n"), result("t2", not_run, True)),
    ]
    finished = read_last_tool_result(records, "s-1")
    assert finished is not None and finished.tool_use_id == "t1"
    assert finished.summary.startswith("exit 3, ")  # so /last calls it failed, as live


def test_a_stored_output_names_its_artifact_and_its_whole_size():
    preview = (
        "Exit code: 0\n[Output was 3,213 bytes; this is a head/tail preview.]\nrow 001\n"
        f"row 400\n[Full output: {POINTER}]"
    )
    records = [message("assistant", call("t1")), message("user", result("t1", preview))]
    finished = read_last_tool_result(records, "s-1")
    assert finished is not None
    assert (finished.artifact_pointer, finished.size_bytes) == (POINTER, 3213)


def test_an_output_ending_like_a_stored_one_names_no_other_sessions_artifact():
    # a small output of a command whose last line is shaped as the stored-output line
    for named in (POINTER.replace(":s-1:", ":s-2:"), "artifact:s-1:abc.txt:nothex"):
        text = f"Exit code: 0\nhello\n[Full output: {named}]"
        records = [message("assistant", call("t1")), message("user", result("t1", text))]
        finished = read_last_tool_result(records, "s-1")
        assert finished is not None and finished.artifact_pointer is None
        assert finished.output == text  # shown as the output it was


def test_a_secret_known_now_is_redacted_in_what_is_read_back():
    secret = "9f3c2a7b41d8e6f0a5c3b2d1e4f7a8c6"
    records = [
        message("assistant", call("t1")),
        message("user", result("t1", f"Exit code: 0\nTOKEN={secret}\n")),
    ]
    finished = read_last_tool_result(records, "s-1", SecretForms.from_values([secret]))
    assert finished is not None and secret not in finished.output
    assert "TOKEN=" in finished.output


def test_a_transcript_without_calls_has_no_last_result():
    assert read_last_tool_result([message("user", {"type": "text", "text": "hi"})], "s-1") is None


def test_a_real_resumed_session_gives_its_last_recorded_result(tmp_path: Path):
    workspace = workspace_with(tmp_path, {"notes.txt": "the build uses make\n"})
    provider = ScriptedProvider([[tool_use("t1", "read_file", path="notes.txt")]])
    session = make_session(workspace, provider)
    drain(session.run_turn("read notes.txt"))
    session.close()
    resumed = make_session(workspace, ScriptedProvider(), resume=session.session_id)
    finished = resumed.last_recorded_tool_result()
    assert finished is not None and finished.name == "read_file"
    assert "the build uses make" in finished.output


# --- the REPL: this run's last call first, the session's recorded one before it -------------


def make_repl(session: FakeSession, backend: FakeBackend) -> Repl:
    return Repl(
        session=session,
        backend=backend.factory(None, None),
        reader=None,  # type: ignore[arg-type]
        console=make_console(width=120),
        live=False,
        offline_fallback=True,
    )


def last_shown(repl: Repl) -> str:
    repl.console.export_text(clear=True)
    repl.handle_line("/last")
    return repl.console.export_text(clear=True)


RECORDED = ToolFinished("t0", "bash", True, "150 B", 150, None, STOPPED)


def test_last_in_a_resumed_session_shows_the_recorded_result_until_a_call_runs():
    session = FakeSession(recorded_tool_result=RECORDED)
    repl = make_repl(session, FakeBackend(known={session.session_id: session}))
    assert "tick 2" in last_shown(repl)
    finished = dataclasses.replace(RECORDED, tool_use_id="t1", output="Exit code: 0\nnew run\n")
    repl.render_events(iter([ToolStarted("t1", "bash", {"command": "x"}), finished]))
    shown = last_shown(repl)
    assert "new run" in shown and "tick 2" not in shown


def test_last_after_switching_sessions_is_never_the_other_sessions_call():
    first, other = FakeSession(session_id="s-first"), FakeSession(session_id="s-other")
    repl = make_repl(first, FakeBackend(known={"s-first": first, "s-other": other}))
    finished = dataclasses.replace(RECORDED, output="Exit code: 0\nfirst session's\n")
    repl.render_events(iter([ToolStarted("t0", "bash", {"command": "x"}), finished]))
    repl.handle_line("/resume s-other")
    shown = last_shown(repl)
    assert "first session's" not in shown and "no tool has run" in shown
