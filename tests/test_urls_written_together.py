"""Closing brackets after a URL (review of fix29c): a value ending in many `)` made the
bracket strip quadratic (a 3.8 MB `.env` stalled start-up 91 s)."""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

from agent_cli.tools.url_credentials import url_credentials


def _calls_made(value: str) -> int:
    """How many Python and built-in functions `url_credentials(value)` calls."""
    calls = 0

    def count(_frame: FrameType, event: str, _arg: Any) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        list(url_credentials(value))
    finally:
        sys.setprofile(None)
    return calls


def test_closing_brackets_after_a_url_cost_no_work_per_bracket() -> None:
    """A `.env` line ending in 32,000 `)` (a cloned repository's) stalled start-up: each
    stripped bracket counted the whole URL again. The work done is now the same however
    many there are (counted in calls, not time)."""
    _calls_made("see https://example.com/x" + ")" * 10)  # `urlsplit` caches the URL it found
    few = _calls_made("see https://example.com/x" + ")" * 1_000)
    many = _calls_made("see https://example.com/x" + ")" * 4_000)
    assert many == few
