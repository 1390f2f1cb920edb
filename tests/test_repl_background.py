"""The gauge is measured on a worker thread so the prompt need not wait for it."""

from __future__ import annotations

import threading

from agent_cli.repl.background import BackgroundMeasure


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
