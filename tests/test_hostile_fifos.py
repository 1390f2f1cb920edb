"""A FIFO (or another non-file) where a store keeps a file never hangs agent-cli (issue 21.7).

Every store opens its files non-blocking and refuses what `fstat` says is not a regular
file. Each case runs the real store against a real FIFO on disk; the call runs on a
worker thread so that a regression fails the test (and the FIFO is then released so the
thread can end) instead of hanging the suite.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_cli.errors import (
    ConfigError,
    MemoryFileDamaged,
    SessionNotFound,
    StoreFileNotRegular,
)
from agent_cli.store.artifacts import ArtifactStore
from agent_cli.store.memory import MemoryStore
from agent_cli.store.transcript import TranscriptStore

SID = "20261203-101010-abcdef"
BOUND_SECONDS = 15.0  # how long a call that should not wait at all may take, at most


def outcome_of(action: Callable[[], Any], fifo: Path) -> Any:
    """What `action()` returned or raised; fails if it was still waiting after the bound."""
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["value"] = action()
        except BaseException as raised:  # noqa: BLE001 - handed to the test as the outcome
            result["value"] = raised

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(BOUND_SECONDS)
    if worker.is_alive():
        release(fifo)
        pytest.fail(f"the call waited on the FIFO {fifo.name}")
    return result["value"]


def release(fifo: Path) -> None:
    """Open the FIFO's writing end and close it, so a reader blocked on it gets EOF."""
    with contextlib.suppress(OSError):
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def make_fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path, 0o600)
    return path


@pytest.fixture()
def transcripts(tmp_path: Path) -> TranscriptStore:
    return TranscriptStore(tmp_path / "transcripts")


def test_deleting_a_session_whose_transcript_is_a_fifo_refuses_it_and_leaves_it(transcripts):
    fifo = make_fifo(transcripts.path_for(SID))
    refused = outcome_of(lambda: transcripts.delete(SID), fifo)
    assert isinstance(refused, StoreFileNotRegular)
    assert (refused.path, refused.kind) == (str(fifo), "fifo")
    assert fifo.is_fifo()


def test_replaying_or_resuming_a_fifo_transcript_is_refused_at_once(transcripts):
    fifo = make_fifo(transcripts.path_for(SID))
    assert isinstance(outcome_of(lambda: transcripts.replay(SID), fifo), StoreFileNotRegular)
    opened = outcome_of(lambda: transcripts.open_writer(SID), fifo)
    assert isinstance(opened, StoreFileNotRegular) and opened.kind == "fifo"


def test_a_folder_in_place_of_a_transcript_is_refused_too_and_a_link_is_no_session(
    transcripts, tmp_path
):
    transcripts.path_for(SID).mkdir(parents=True)
    with pytest.raises(StoreFileNotRegular) as refused:
        transcripts.replay(SID)
    assert refused.value.kind == "directory"
    other = "20261203-101010-000000"
    transcripts.path_for(other).symlink_to(tmp_path)
    with pytest.raises(SessionNotFound):
        transcripts.delete(other)


def test_a_fifo_transcript_is_not_listed_and_the_listing_does_not_wait_on_it(transcripts):
    fifo = make_fifo(transcripts.path_for(SID))
    assert outcome_of(transcripts.list_sessions, fifo) == []


def test_a_fifo_memory_file_is_reported_at_once_and_nothing_is_copied(tmp_path):
    store = MemoryStore(tmp_path / "memory")
    fifo = make_fifo(store.path_for(tmp_path))
    damaged = outcome_of(lambda: store.load(tmp_path), fifo)
    assert isinstance(damaged, MemoryFileDamaged)
    assert (damaged.reason, damaged.kept_at) == ("not_a_file", None)
    assert sorted(p.name for p in store.root.iterdir()) == [fifo.name]


def test_a_fifo_memory_lock_file_refuses_the_change_and_writes_nothing(tmp_path):
    store = MemoryStore(tmp_path / "memory")
    path = store.path_for(tmp_path)
    fifo = make_fifo(path.with_name(path.name + ".lock"))
    refused = outcome_of(lambda: store.update(tmp_path, lambda state: state), fifo)
    assert isinstance(refused, StoreFileNotRegular) and refused.kind == "fifo"
    assert not path.exists()


def test_a_fifo_where_an_artifact_goes_is_replaced_by_the_artifact_not_read(tmp_path):
    store = ArtifactStore(tmp_path)
    folder = store.put(SID, b"first").path.parent
    expected = folder / f"{hashlib.sha256(b'output').hexdigest()[:32]}.txt"
    fifo = make_fifo(expected)
    ref = outcome_of(lambda: store.put(SID, b"output"), fifo)
    assert ref.path == expected and expected.is_file()
    assert store.read_range(ref.pointer) == b"output"


def test_a_fifo_config_file_is_a_config_error_not_a_hang(tmp_path):
    from agent_cli.repl.config import load_config_file

    fifo = make_fifo(tmp_path / "config.toml")
    refused = outcome_of(lambda: load_config_file(fifo), fifo)
    assert isinstance(refused, ConfigError)
    assert "not a regular file (fifo)" in refused.reason


def test_a_linked_config_file_is_still_read(tmp_path):
    from agent_cli.repl.config import load_config_file

    real = tmp_path / "dotfiles" / "config.toml"
    real.parent.mkdir()
    real.write_text("keep_recent = 9\n", encoding="utf-8")
    (tmp_path / "config.toml").symlink_to(real)
    assert load_config_file(tmp_path / "config.toml") == {"keep_recent": 9}


def test_a_fifo_history_file_leaves_the_prompt_working_without_saved_history(tmp_path):
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from agent_cli.repl.commands import command_summaries
    from agent_cli.repl.prompt import PromptReader
    from agent_cli.store.fsutil import ensure_private_file

    fifo = make_fifo(tmp_path / "history")
    assert outcome_of(lambda: ensure_private_file(fifo), fifo) is None
    with create_pipe_input() as pipe:
        reader = PromptReader(
            fifo, command_summaries, terminal_input=pipe, terminal_output=DummyOutput()
        )
        pipe.send_text("hello\r")
        assert outcome_of(reader.read_line, fifo) == "hello"
    assert fifo.is_fifo()


def test_a_fifo_that_has_a_writer_is_still_refused_not_read(transcripts):
    """O_NONBLOCK alone would return at once here; the fstat check is what refuses it."""
    fifo = make_fifo(transcripts.path_for(SID))
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    try:
        os.write(writer, b'{"not": "a record"}\n')
        assert isinstance(outcome_of(lambda: transcripts.replay(SID), fifo), StoreFileNotRegular)
    finally:
        os.close(writer)
        os.close(reader)


def test_remembering_over_a_fifo_memory_file_is_refused_in_one_line_and_the_fifo_stays(tmp_path):
    from agent_cli.repl.error_text import describe_error

    store = MemoryStore(tmp_path / "memory")
    fifo = make_fifo(store.path_for(tmp_path))
    refused = outcome_of(lambda: store.update(tmp_path, lambda state: state), fifo)
    assert isinstance(refused, MemoryFileDamaged)
    assert describe_error(refused) == (
        f"the durable memory file {fifo} is not a regular file; agent-cli left it alone. "
        "Move it out of the way to save durable facts again"
    )
    assert fifo.is_fifo()
