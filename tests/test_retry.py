"""The retry policy: which failures are retried, how long to wait, what headers mean."""

from __future__ import annotations

import pytest

from agent_cli.provider.retry import (
    RETRY_AFTER_CAP_SECONDS,
    backoff_delay,
    is_retryable,
    parse_retry_after,
    retry_limit,
)


def no_jitter() -> float:
    return 0.0


def test_backoff_doubles_from_the_base_up_to_the_cap():
    delays = [backoff_delay(attempt, jitter=no_jitter) for attempt in range(1, 8)]
    assert delays == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]


def test_jitter_shortens_a_delay_by_at_most_a_quarter():
    assert backoff_delay(3, jitter=lambda: 0.999999) == pytest.approx(1.5, abs=1e-5)
    assert backoff_delay(3, jitter=lambda: 7.0) == 1.5  # out-of-range jitter is clamped


def test_the_servers_retry_after_wins_over_the_backoff_but_is_capped():
    assert backoff_delay(1, retry_after=3.0, jitter=no_jitter) == 3.0
    assert backoff_delay(5, retry_after=0.0, jitter=no_jitter) == 0.0
    assert backoff_delay(1, retry_after=3600.0) == RETRY_AFTER_CAP_SECONDS


def test_retry_after_headers_are_read_in_seconds_with_ms_preferred():
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after-ms": "soon", "retry-after": "1.5"}) == 1.5
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None
    assert parse_retry_after({"retry-after": "-1"}) is None
    assert parse_retry_after({}) is None


@pytest.mark.parametrize(
    "kind",
    [
        "rate_limited",
        "overloaded",
        "api_error",
        "unavailable",
        "timeout",
        "connection",
        "stream_incomplete",
    ],
)
def test_busy_and_broken_attempts_are_retried_up_to_the_limit(kind):
    assert is_retryable(kind)
    assert retry_limit(kind, 4) == 4


@pytest.mark.parametrize(
    "kind", ["bad_request", "auth", "permission", "not_found", "request_too_large", "stream_error"]
)
def test_failures_that_would_repeat_are_never_retried(kind):
    assert not is_retryable(kind)
    assert retry_limit(kind, 4) == 0


def test_a_malformed_stream_gets_one_retry_at_most():
    assert retry_limit("stream_malformed", 4) == 1
    assert retry_limit("stream_malformed", 0) == 0
