"""A file-size limit (`ulimit -f`, EFBIG) reached by an artifact or the memory file says
that this run keeps the limit and how to go on, not "try again" (session 30's left item).

The transcript's EFBIG has said so since fix30e. An artifact (a large message stored
whole, a large answer, a large part of a turn) and the memory file said "Raise the
file-size limit (ulimit -f), then send it again" or "then run the command again", which
cannot work: the limit holds for the process started under it. A `/remember` in the REPL
met the same about its transcript record ("then /resume <id>"). Nothing is half-written:
both files are written to a temporary file and renamed, which a refusal removes.

In process, `LimitedFile` stands in for the kernel's limit under the artifact store; end
to end, a real RLIMIT_FSIZE on a real piped REPL whose memory file is over the limit.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

from faults_support import notices, turn_end
from session_support import ScriptedProvider, drain, make_session, workspace_with
from test_faults_file_size_limit import LimitedFile

from agent_cli.errors import ArtifactWriteFailed, HeldResultsLost, TranscriptWriteFailed
from agent_cli.events import Notice
from agent_cli.repl.error_text import describe_error, notice_text

RESTART = "This run keeps that limit: quit, raise it (ulimit -f) in the shell that starts agent-cli"
SESSION = "20261207-120000-abc123"


def test_a_large_message_whose_artifact_meets_the_limit_says_to_restart_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    limited = LimitedFile()
    session = make_session(
        workspace_with(tmp_path), ScriptedProvider(), artifact_fs=limited, message_limit=0
    )
    assert turn_end(drain(session.run_turn("first"))).outcome == "ok"
    transcript_before = Path(session.transcript_path).read_bytes()
    limited.limit = 4_000  # the artifact of the message below takes 4,000 bytes, then EFBIG

    events = drain(session.run_turn("a long paste " * 40_000))

    assert turn_end(events).outcome == "failed"
    [notice] = notices(events, "message_not_stored")
    said = notice_text(notice)
    assert "file-size limit" in said and "EFBIG" in said and RESTART in said, said
    assert f"go on with `agent-cli --resume {session.session_id}` to send it" in said
    assert "then send it again" not in said and "Free disk space" not in said
    assert len(said) <= 400  # what a notice shows
    results = Path(os.environ["AGENT_CLI_HOME"]) / session.session_id / "tool-results"
    assert results.is_dir() and list(results.iterdir()) == []  # no artifact, whole or partial
    assert Path(session.transcript_path).read_bytes() == transcript_before  # nothing recorded
    limited.limit = None
    assert turn_end(drain(session.run_turn("a long paste " * 40_000))).outcome == "ok"


def test_an_artifact_or_an_answer_refused_by_the_limit_says_to_restart_not_to_try_again() -> None:
    refused = ArtifactWriteFailed("assistant", "EFBIG", SESSION)
    for code in ("transcript_write_failed", "answer_not_kept"):
        said = notice_text(Notice("error", code, error=refused))
        assert RESTART in said and f"`agent-cli --resume {SESSION}`" in said, said
        assert "try again" not in said and "limit (ulimit -f), then" not in said
        assert len(said) <= 400
    full = notice_text(Notice("error", "answer_not_kept", error=ArtifactWriteFailed("a", "ENOSPC")))
    assert "Free disk space, then send the request again" in full  # other causes as before


def test_a_repl_command_whose_transcript_record_meets_the_limit_names_no_repl_command() -> None:
    said = describe_error(TranscriptWriteFailed(SESSION, "EFBIG"))
    assert RESTART in said and f"go on with `agent-cli --resume {SESSION}`" in said, said
    assert "/resume" not in said.replace("--resume", "")
    new = describe_error(TranscriptWriteFailed(SESSION, "EFBIG", session_kept=False))
    assert RESTART in new and "run agent-cli again" in new and "/new" not in new


def test_results_lost_at_the_limit_say_to_restart_not_to_raise_it_before_going_on() -> None:
    """Session 31's left item: "Raise the file-size limit (ulimit -f) before going on",
    said as a session closes (at exit, `/new`, `/resume`): raising it in the shell does
    nothing for this run, and going on in it meets the limit again."""
    said = describe_error(HeldResultsLost(SESSION, 2, "EFBIG"))
    assert "2 tool result(s)" in said and "file-size limit" in said, said
    assert RESTART in said and f"go on with `agent-cli --resume {SESSION}`" in said, said
    assert "before going on" not in said and "/resume" not in said.replace("--resume", "")
    full = describe_error(HeldResultsLost(SESSION, 2, "ENOSPC"))
    assert "Free disk space before going on" in full  # other causes as before


def run_repl(workspace: Path, home: Path, lines: str, limit: int | None = None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["AGENT_CLI_HOME"] = str(home)

    def set_limit() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [sys.executable, "-m", "agent_cli", "--provider", "offline"],
        cwd=workspace,
        env=env,
        input=lines,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=set_limit,
        check=False,
    )


def test_remember_under_a_real_limit_the_memory_file_passes_says_to_restart_and_keeps_the_file(
    tmp_path: Path,
) -> None:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    facts = "".join(f"/remember fact {n}: {'the build needs make ' * 8}\n" for n in range(30))
    assert run_repl(workspace, home, facts).returncode == 0
    [memory] = (home / "memory").glob("*.json")
    before = memory.read_bytes()
    assert len(before) > 8_000  # bigger than the limit below; a new session's transcript is not

    limited = run_repl(workspace, home, "/remember one more fact\n", limit=6_000)

    said = " ".join(limited.stdout.split())
    assert "could not save the durable memory file" in said, said
    assert "file-size limit" in said and RESTART in said
    assert "run the command again after `agent-cli --continue`" in said
    assert "then run the command again" not in said
    assert memory.read_bytes() == before  # the old file, whole
    assert sorted(p.name for p in (home / "memory").iterdir() if ".tmp-" in p.name) == []
