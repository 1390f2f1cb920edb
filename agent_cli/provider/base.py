"""The seam between the session and any model provider.

Contract: `stream(request)` yields `TextDelta` and `RetryNotice` values while the answer
arrives and ends with exactly one `ModelResponse`. On failure it raises a
`ProviderError` subclass (after its own bounded retries) and has yielded no
`ModelResponse`, so the caller can discard everything of that request. KeyboardInterrupt
propagates unchanged. Providers never print.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol

from agent_cli.events import ModelRequest, ModelResponse, RetryNotice, TextDelta

ProviderEvent = TextDelta | RetryNotice | ModelResponse

# Old conversation (prompt-view messages) -> summary text. Injected into L4.
Summarizer = Callable[[list[dict[str, Any]]], str]


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

    def build_summarizer(self, focus: str | None = None) -> Summarizer:
        """A summarizer for L4 on this provider; `focus` steers what it keeps."""
        ...
