"""End to end: a FIFO in the data folder gets one clear line, never a hang (issue 21.7)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from e2e_support import build_env, run_piped

from agent_cli.store.memory import MemoryStore

pytestmark = pytest.mark.e2e


def test_a_fifo_memory_file_is_said_once_and_the_one_shot_run_still_answers(
    home: Path, workspace: Path
) -> None:
    memory = MemoryStore(home / "memory")
    memory.root.mkdir(parents=True, mode=0o700)
    fifo = memory.path_for(workspace)
    os.mkfifo(fifo, 0o600)

    run = run_piped(["-p", "list ."], cwd=workspace, env=build_env(home))

    assert run.returncode == 0, run.stderr
    assert "README.md" in run.stdout
    said = run.stdout + run.stderr
    assert "memory file" in said and "not a regular file" in said, said
    assert fifo.is_fifo()


def test_deleting_a_session_whose_transcript_is_a_fifo_says_so_in_one_line(
    home: Path, workspace: Path
) -> None:
    fifo = home / "transcripts" / "20200101-000000-abcdef.jsonl"
    fifo.parent.mkdir(parents=True, mode=0o700)
    os.mkfifo(fifo, 0o600)

    run = run_piped(
        [], cwd=workspace, env=build_env(home),
        stdin_text="/sessions delete 20200101-000000-abcdef\n",
    )  # fmt: skip

    assert run.returncode == 0, run.stderr
    assert (
        f"not deleted: 20200101-000000-abcdef: {fifo} is a FIFO (named pipe), not a regular "
        "file; agent-cli did not open it. Move it out of the way and try again"
    ) in run.stdout
    assert fifo.is_fifo()


def test_resuming_a_session_whose_transcript_is_a_fifo_names_the_fifo_not_a_missing_session(
    home: Path, workspace: Path
) -> None:
    fifo = home / "transcripts" / "20200101-000000-abcdef.jsonl"
    fifo.parent.mkdir(parents=True, mode=0o700)
    os.mkfifo(fifo, 0o600)

    run = run_piped(
        ["--resume", "20200101-000000-abcdef", "-p", "hello"], cwd=workspace, env=build_env(home)
    )

    assert run.returncode == 1, run.stderr
    assert f"{fifo} is a FIFO (named pipe), not a regular file" in run.stderr, run.stderr
    assert "no session" not in run.stderr
    assert fifo.is_fifo()
