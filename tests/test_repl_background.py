"""Slow work on worker threads, so the prompt need not wait: the gauge, the session opening."""

from __future__ import annotations

import threading

import pytest

from agent_cli.repl.background import BackgroundMeasure, DeferredWork


def test_the_value_is_there_after_wait_and_on_done_ran():
    release = threading.Event()
    done: list[str] = []

    def measure():
        release.wait()
        return 42

    watch = BackgroundMeasure(measure, on_done=lambda: done.append("done"))
    assert watch.value is None  # still measuring: the prompt shows a placeholder
    release.set()
    assert watch.wait() == 42
    assert done == ["done"]


def test_an_error_while_measuring_is_kept_not_raised():
    def broken():
        raise RuntimeError("tokenizer missing")

    done: list[bool] = []
    watch = BackgroundMeasure(broken, on_done=lambda: done.append(True))
    assert watch.wait() is None
    assert isinstance(watch.error, RuntimeError)
    assert done == [True]


def test_wait_stops_the_repeats_while_servers_still_start():
    """The prompt returned: the main thread needs the session back, whatever `again`
    says; no measurement runs after `wait()`."""
    calls: list[int] = []
    watch = BackgroundMeasure(lambda: calls.append(1) or len(calls), again=lambda: True)
    while not calls:
        pass
    assert watch.wait() == len(calls)
    settled = len(calls)
    threading.Event().wait(0.7)  # longer than the interval
    assert len(calls) == settled


def test_repeats_end_once_the_servers_are_up_and_the_last_figure_is_shown():
    figures = iter([100, 200, 300])
    starting = iter([True, True, False])
    measured: list[int] = []
    shown: list[int] = []
    ended = threading.Event()

    def measure():
        measured.append(next(figures))
        return measured[-1]

    def on_done():  # (on the worker thread: what the toolbar would read now)
        shown.append(measured[-1])
        if measured[-1] == 300:
            ended.set()

    watch = BackgroundMeasure(measure, on_done=on_done, again=lambda: next(starting), interval=0)
    assert ended.wait(10)
    assert watch.wait() == 300
    assert shown == [100, 200, 300]


# --- DeferredWork: the session opening, started once the first prompt frame is drawn ------


def test_deferred_work_never_started_runs_where_its_result_is_asked():
    threads: list[str] = []
    work = DeferredWork(lambda: threads.append(threading.current_thread().name) or 7)
    assert work.result() == 7
    assert threads == [threading.current_thread().name]


def test_deferred_work_runs_on_a_worker_once_started_and_tells_when_done():
    release = threading.Event()
    told: list[str] = []
    work = DeferredWork(lambda: release.wait(10) and threading.current_thread().name)
    work.when_done(lambda: told.append("done"))
    work.start()
    work.start()  # a second start does nothing
    assert told == []
    release.set()
    assert work.result() == "agent-cli-start"
    assert told == ["done"]


def test_deferred_work_raises_its_error_from_result_and_still_tells_when_done():
    def broken():
        raise ValueError("bad config")

    told: list[bool] = []
    work = DeferredWork(broken)
    work.when_done(lambda: told.append(True))
    work.start()
    with pytest.raises(ValueError, match="bad config"):
        work.result()
    assert told == [True]


def test_a_callback_asked_for_after_the_end_runs_at_once_and_a_cancelled_one_never():
    release = threading.Event()
    told: list[str] = []
    work = DeferredWork(lambda: release.wait(10))
    cancel = work.when_done(lambda: told.append("cancelled"))
    cancel()
    work.start()
    release.set()
    work.result()
    work.when_done(lambda: told.append("late"))
    assert told == ["late"]
