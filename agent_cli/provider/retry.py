"""Backoff policy for provider retries: pure functions, no clock and no sleeping.

Contract: `backoff_delay(attempt, retry_after)` is how long to wait before retry number
`attempt` (1-based). A server's retry-after wins (it knows its own load), capped so a
bad header cannot park the session for hours; otherwise the delay doubles from `base`
up to `cap`, shortened by up to a quarter by `jitter` so many clients do not retry in
lockstep. `jitter` returns a number in [0, 1); tests pass a constant.
`retry_limit(kind, max_retries)` says how many retries a failure kind deserves.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

RETRY_AFTER_CAP_SECONDS = 60.0

# Failures worth trying again: the server was busy or the connection broke, so the same
# request may well succeed. Everything else (bad request, auth, ...) fails the same way.
RETRYABLE_KINDS = frozenset(
    {
        "rate_limited",
        "overloaded",
        "api_error",
        "server_error",
        "unavailable",
        "timeout",
        "connection",
        "stream_incomplete",
        "stream_malformed",
        "conflict",
    }
)

# A malformed stream is more likely a broken proxy than bad luck: one retry is enough.
KIND_RETRY_LIMITS: Mapping[str, int] = {"stream_malformed": 1}


def is_retryable(kind: str) -> bool:
    """True when a failure of this kind may succeed if the same request is sent again."""
    return kind in RETRYABLE_KINDS


def retry_limit(kind: str, max_retries: int) -> int:
    """How many retries (not counting the first try) a failure of `kind` is allowed."""
    if not is_retryable(kind):
        return 0
    return min(max_retries, KIND_RETRY_LIMITS.get(kind, max_retries))


def backoff_delay(
    attempt: int,
    retry_after: float | None = None,
    *,
    base: float = 0.5,
    cap: float = 8.0,
    jitter: Callable[[], float] = random.random,
) -> float:
    """Seconds to wait before retry `attempt` (1 for the first retry)."""
    if retry_after is not None and retry_after >= 0:
        return min(retry_after, RETRY_AFTER_CAP_SECONDS)
    exponential = min(cap, base * 2 ** max(0, attempt - 1))
    return float(exponential * (1.0 - 0.25 * min(max(jitter(), 0.0), 1.0)))


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from `retry-after-ms` or `retry-after` (numeric forms only), else None."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            seconds = float(raw) * scale
        except ValueError:
            continue
        if seconds >= 0:
            return seconds
    return None
