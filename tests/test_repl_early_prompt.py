"""The first prompt is up while the session opens: what is typed meanwhile is kept.

Driven through a pipe, like test_repl_prompt: `show_while(work)` shows the prompt while
`work` (standing in for the session opening) is held back by an event, and the next
`read_line` must carry on exactly with what the user did.
"""

from __future__ import annotations

import threading
import time

import pytest

from agent_cli.repl.background import DeferredWork
from agent_cli.repl.prompt import PromptReader

WAIT_SECONDS = 10.0


class HeldWork:
    """Work that runs only once `release` is set, and records when it started."""

    def __init__(self, reader: PromptReader) -> None:
        self.release = threading.Event()
        self.frames_drawn_at_start: int | None = None
        self._reader = reader
        self.deferred = DeferredWork(self._run)

    def _run(self) -> str:
        self.frames_drawn_at_start = self._reader._session.app.render_counter
        assert self.release.wait(WAIT_SECONDS), "the test never released the work"
        return "opened"


def history_lines(tmp_path) -> list[str]:
    text = (tmp_path / "history").read_text(encoding="utf-8")
    return [line[1:] for line in text.splitlines() if line.startswith("+")]


def test_a_line_sent_before_the_work_ended_comes_from_the_next_read_once(pipe_reader, tmp_path):
    pipe, reader = pipe_reader
    work = HeldWork(reader)
    pipe.send_text("hello\r")
    reader.show_while(work.deferred)  # returns at Enter: it never waits for the work
    assert not work.release.is_set()
    work.release.set()
    assert work.deferred.result() == "opened"
    assert reader.read_line() == "hello"
    assert history_lines(tmp_path) == ["hello"]


def test_the_work_starts_only_once_the_first_frame_is_drawn(pipe_reader):
    pipe, reader = pipe_reader
    work = HeldWork(reader)
    pipe.send_text("x\r")
    reader.show_while(work.deferred)
    work.release.set()
    work.deferred.result()
    assert work.frames_drawn_at_start is not None and work.frames_drawn_at_start >= 1


def test_keys_typed_after_the_early_line_go_to_the_prompt_after_it(pipe_reader):
    pipe, reader = pipe_reader
    work = HeldWork(reader)
    pipe.send_text("one\rtwo")
    reader.show_while(work.deferred)
    work.release.set()
    work.deferred.result()
    assert reader.read_line() == "one"
    pipe.send_text("\r")
    assert reader.read_line() == "two"


def test_text_typed_while_the_work_runs_stays_in_the_line_when_it_ends(pipe_reader):
    pipe, reader = pipe_reader
    app = reader._session.app

    def open_once_typed() -> str:
        deadline = time.monotonic() + WAIT_SECONDS
        while app.current_buffer.text != "hel":  # the user is still typing
            assert time.monotonic() < deadline, "the typed text never reached the prompt"
            time.sleep(0.01)
        return "opened"

    work = DeferredWork(open_once_typed)
    pipe.send_text("hel")
    reader.show_while(work)  # returns when the work ended, the line still open
    assert work.result() == "opened"
    pipe.send_text("lo\r")
    assert reader.read_line() == "hello"


def test_ctrl_c_before_the_work_ended_still_interrupts_that_line(pipe_reader):
    pipe, reader = pipe_reader
    work = HeldWork(reader)
    pipe.send_text("half typed\x03")
    reader.show_while(work.deferred)
    work.release.set()
    work.deferred.result()
    with pytest.raises(KeyboardInterrupt):
        reader.read_line()
    pipe.send_text("fresh\r")
    assert reader.read_line() == "fresh"


def test_ctrl_d_before_the_work_ended_still_ends_input(pipe_reader, tmp_path):
    pipe, reader = pipe_reader
    work = HeldWork(reader)
    pipe.send_text("\x04")
    reader.show_while(work.deferred)
    work.release.set()
    work.deferred.result()
    with pytest.raises(EOFError):
        reader.read_line()


def test_a_failed_work_ends_the_early_prompt_and_its_error_is_raised_by_result(pipe_reader):
    _, reader = pipe_reader

    def broken() -> str:
        raise OSError("no space left")

    work = DeferredWork(broken)
    reader.show_while(work)  # nothing typed: only the work ending takes the prompt down
    with pytest.raises(OSError, match="no space left"):
        work.result()
