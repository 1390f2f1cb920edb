"""Telling whoever watches that the session is about to ask for a summary.

Contract: `WatchedSummarizer(summarizer, watcher)` behaves as the `ProviderSummarizer` it
wraps (same summary, same failures, same reported usage, cached-prefix offer and retry
watcher), except that `watcher()` is called just before each summary is asked for, so
the REPL can show that the session is waiting on a summary (its spinner) rather than
sitting still. The watcher shows; it must not raise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_cli.events import RetryNotice, Usage
    from agent_cli.provider.base import ProviderSummarizer
    from agent_cli.provider.summary_reuse import CachedPrefix


class WatchedSummarizer:
    """A `ProviderSummarizer` that announces each summary it asks for; see the contract."""

    def __init__(self, summarizer: ProviderSummarizer, watcher: Callable[[], None]) -> None:
        self._summarizer = summarizer
        self._watcher = watcher

    @property
    def reported_usage(self) -> Sequence[Usage]:
        return self._summarizer.reported_usage

    def use_cached_prefix(self, prefix: CachedPrefix | None) -> None:
        self._summarizer.use_cached_prefix(prefix)

    def watch_retries(self, watcher: Callable[[RetryNotice], None] | None) -> None:
        self._summarizer.watch_retries(watcher)

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        self._watcher()
        return self._summarizer(messages)
