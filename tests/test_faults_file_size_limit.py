"""A file-size limit (`ulimit -f`) reached by the transcript is said as one, not as a full
disk, and a `-p` run whose turn it stopped exits non-zero.

Found: a record crossing the limit arrives as a short write first (the kernel takes what
fits), and was reported "the disk took only part of a write, short_write ... Free disk
space" with 78 GB free; every later turn failed the same way.

In process, `LimitedFile` stands in for the kernel's limit (a write takes what fits below
it, the next one fails with EFBIG); end to end, the real limit (RLIMIT_FSIZE) is set on a
real `agent-cli -p` process.
"""

from __future__ import annotations

import errno
import io
import os
import resource
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from faults_support import notices, turn_end
from repl_fakes import FakeBackend
from session_support import ScriptedProvider, drain, make_session, workspace_with

from agent_cli.errors import TranscriptWriteFailed
from agent_cli.repl.error_text import notice_text
from agent_cli.repl.main import main
from agent_cli.store.fsutil import FileOps


class LimitedFile(FileOps):
    """Real file operations under a file-size limit of `limit` bytes, as the kernel keeps
    it: a write past the limit takes what fits (a short write); at the limit it fails with
    EFBIG. None: no limit."""

    def __init__(self) -> None:
        self.limit: int | None = None

    def write(self, fd: int, data: bytes) -> int:
        if self.limit is None:
            return os.write(fd, data)
        room = self.limit - os.fstat(fd).st_size
        if room <= 0:
            raise OSError(errno.EFBIG, os.strerror(errno.EFBIG))
        return os.write(fd, data[:room])


def test_a_transcript_at_a_file_size_limit_is_said_as_the_limit_not_a_full_disk(
    tmp_path: Path,
) -> None:
    limited = LimitedFile()
    workspace = workspace_with(tmp_path)
    session = make_session(workspace, ScriptedProvider(), transcript_fs=limited)
    assert turn_end(drain(session.run_turn("first"))).outcome == "ok"
    limited.limit = os.path.getsize(session.transcript_path) + 40  # part of a record fits

    events = drain(session.run_turn("second " * 50))

    assert turn_end(events).outcome == "failed"
    [notice] = notices(events, "transcript_write_failed")
    said = notice_text(notice)
    assert "file-size limit" in said and "EFBIG" in said and "ulimit -f" in said
    assert f"agent-cli --resume {session.session_id}" in said  # a restart: this run keeps it
    assert "short_write" not in said and "Free disk space" not in said
    limited.limit = None
    assert turn_end(drain(session.run_turn("third"))).outcome == "ok"  # nothing half-written


def run_agent(workspace: Path, home: Path, *args: str, limit: int | None = None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["AGENT_CLI_HOME"] = str(home)

    def set_limit() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [sys.executable, "-m", "agent_cli", "--provider", "offline", *args],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        preexec_fn=set_limit,
        check=False,
    )


def test_a_one_shot_under_a_real_file_size_limit_says_so_and_exits_one(tmp_path: Path) -> None:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    first = run_agent(workspace, home, "-p", "hello")
    assert first.returncode == 0, first.stderr
    [transcript] = (home / "transcripts").glob("*.jsonl")
    size = transcript.stat().st_size

    limited = run_agent(workspace, home, "--continue", "-p", "again " * 40, limit=size + 60)

    assert limited.returncode == 1, limited.stderr
    assert "file-size limit" in limited.stderr and "EFBIG" in limited.stderr
    assert "short_write" not in limited.stderr and "Free disk space" not in limited.stderr
    assert f"agent-cli --resume {transcript.stem}" in limited.stderr
    assert "/resume" not in limited.stderr
    assert transcript.stat().st_size == size  # nothing half-written past the last record


@pytest.mark.parametrize("kept", [True, False], ids=["a session to resume", "none was kept"])
def test_a_transcript_failure_at_start_names_the_command_line_not_a_repl_command(
    tmp_path: Path, kept: bool
) -> None:
    def refuse(_n: int):
        raise TranscriptWriteFailed("20261207-090803-4df0fa", "ENOSPC", session_kept=kept)

    stderr = io.StringIO()
    paths = SimpleNamespace(config_file=tmp_path / "config.toml", history_file=tmp_path / "h")
    backend = FakeBackend(new_session=refuse)
    code = main(
        ["-p", "x"],
        backend_factory=backend.factory,
        paths=paths,
        stdin=io.StringIO(""),
        stdout=io.StringIO(),
        stderr=stderr,
        env={},
    )
    said = " ".join(stderr.getvalue().split())
    assert code == 1
    assert "/resume" not in said and "ENOSPC" in said
    if kept:
        assert "then `agent-cli --resume 20261207-090803-4df0fa`" in said
    else:
        assert "--resume" not in said and "run agent-cli again" in said
