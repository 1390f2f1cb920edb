"""The seam between the session and any model provider.

Contract: `stream(request)` yields `TextDelta` and `RetryNotice` values while the answer
arrives (and a provider that knows it, `UsageSoFar` once the API begins to answer) and
ends with exactly one `ModelResponse`. On failure it raises a
`ProviderError` subclass (after its own bounded retries) and has yielded no
`ModelResponse`, so the caller can discard everything of that request. KeyboardInterrupt
propagates unchanged. Providers never print.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from agent_cli.events import (
    ModelRequest,
    ModelResponse,
    RetryNotice,
    TextDelta,
    Usage,
    UsageSoFar,
)

if TYPE_CHECKING:
    from agent_cli.provider.summary_reuse import CachedPrefix

ProviderEvent = TextDelta | UsageSoFar | RetryNotice | ModelResponse

# Old conversation (prompt-view messages) -> summary text. Injected into L4.
Summarizer = Callable[[list[dict[str, Any]]], str]


class ProviderSummarizer(Protocol):
    """What `Provider.build_summarizer` gives the session: a `Summarizer` that also
    reports what its requests cost, may reuse the session's cached prefix and tells of
    its requests' retries."""

    @property
    def reported_usage(self) -> Sequence[Usage]:
        """The usage the API reported for each summary request so far (none offline)."""
        ...

    def use_cached_prefix(self, prefix: CachedPrefix | None) -> None:
        """Offer what the last request wrote to the prompt cache (`summary_reuse`); a
        summarizer that sends no request ignores it."""
        ...

    def watch_retries(self, watcher: Callable[[RetryNotice], None] | None) -> None:
        """Tell `watcher` of each retry of a summary request as it comes, on the thread
        that asked for the summary; a summarizer that sends no request never calls it."""
        ...

    def __call__(self, messages: list[dict[str, Any]]) -> str: ...


class PlainSummarizer:
    """A plain `Summarizer` function as a `ProviderSummarizer`: it sends no request, so
    it reports no usage and has no use for a cached prefix (the offline model's)."""

    def __init__(self, summarize: Summarizer) -> None:
        self._summarize = summarize

    @property
    def reported_usage(self) -> Sequence[Usage]:
        return ()

    def use_cached_prefix(self, prefix: CachedPrefix | None) -> None:
        """Nothing to reuse: no request is sent."""

    def watch_retries(self, watcher: Callable[[RetryNotice], None] | None) -> None:
        """Nothing to tell: no request is sent, so none is retried."""

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        return self._summarize(messages)


class Provider(Protocol):
    name: str  # "anthropic" or "offline"
    model: str  # settable: `/model` points the provider at another model

    @property
    def context_window(self) -> int:
        """Tokens the current model accepts (see `agent_cli.models`)."""
        ...

    def prepare(self) -> None:
        """Build what the first request needs (a client, the SDK) now, on any thread and
        more than once; the REPL calls it while the user types. A failure is left for the
        first request to meet and report."""
        ...

    def stream(self, request: ModelRequest) -> Iterator[ProviderEvent]:
        """Stream one request; see the module contract."""
        ...

    def build_summarizer(self, focus: str | None = None) -> ProviderSummarizer | None:
        """A summarizer for L4 on this provider; `focus` steers what it keeps. None: this
        provider offers none, and L4 is skipped (`skipped_no_summarizer`)."""
        ...

    def list_models(self, timeout_seconds: float) -> list[dict[str, Any]] | None:
        """The models this provider's Models API lists (`{"id", "display_name",
        "lifecycle"}` each), or None when it has no such API. A failure raises
        `ProviderRequestFailed` with its kind."""
        ...
