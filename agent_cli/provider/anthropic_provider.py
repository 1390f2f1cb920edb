"""The Anthropic provider: the official SDK, streaming, with our own bounded retries.

Contract (see `agent_cli.provider.base`): `stream(request)` builds the wire request
(a `WireBuilder`: what `build_wire_request` builds, at the cost of the turns added since
the last request; it may raise `WireFormatError` before anything is sent),
streams it with `client.messages.create(stream=True)` (the raw events, assembled by
`stream_assembly`), yields the usage `message_start` reports (`UsageSoFar`) and
`TextDelta`s as text arrives, and ends with one `ModelResponse`. Busy or broken attempts
(429, 529, 5xx, a mid-stream `overloaded_error`/`api_error`, dropped connections,
timeouts, a malformed or incomplete stream) are
retried with bounded backoff that honours retry-after; a `RetryNotice` precedes each
retry and voids the text streamed so far. When retries run out, or at once for errors
that would only repeat (400, 401, 403, 404, 405, 413), `ProviderRequestFailed` is raised,
carrying the URL the request went to and the content type that came back, and no
`ModelResponse` was yielded. Its detail is the API's message; only a 404 or 405 that is
no API's ("wrong_endpoint") and a broken stream whose content type named no event stream
(a one-off gateway page, or an endpoint that is no Messages API) carry the server's
words instead, short, the key redacted before they are cut (`shown_detail`).

This module and its `anthropic_*` siblings are the only ones that import `anthropic`, and
only inside functions: the import takes seconds (measured about 3 s warm, over 20 s on a
cold cache, on the build box), and the offline provider and the tests of everything else
never pay it. The SDK's own
retries are turned off because it never retries an error that arrives mid-stream.
The API key is kept private and redacted from every error detail.

Error translation lives in `anthropic_errors`, reading the environment in
`anthropic_settings`, stream reading and warm-up in `anthropic_stream`, the bounded
Models API fetch in `anthropic_models` (all in `agent_cli.provider`); import their names
from there.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import replace
from typing import Any

from agent_cli.errors import MissingApiKey, ModelsPageUnusable, ProviderRequestFailed
from agent_cli.events import ModelRequest, ModelResponse, RetryNotice, TextDelta, UsageSoFar
from agent_cli.models import DEFAULT_MODEL, lookup_model
from agent_cli.provider.anthropic_errors import (
    Failure,
    classify_failure,
    name_messages_failure,
    redact_secret,
    refused_tool,
    shown_detail,
)
from agent_cli.provider.anthropic_models import fetch_models_page
from agent_cli.provider.anthropic_settings import (
    MISSING_KEY_HINT,
)
from agent_cli.provider.anthropic_stream import (
    FOREIGN_FAULT_KINDS,
    ForeignBody,
    read_events,
    warm_up_stream_parsing,
    watch_foreign_body,
)
from agent_cli.provider.base import ProviderEvent, ProviderSummarizer
from agent_cli.provider.models_page import read_models_page
from agent_cli.provider.retry import backoff_delay, retry_limit
from agent_cli.provider.stream_assembly import StreamFault, StreamTracker, build_model_response
from agent_cli.provider.wire import WireBuilder

DEFAULT_MAX_RETRIES = 4


class AnthropicProvider:
    """Claude through the official SDK; see the module contract.

    `timeout_seconds` bounds each wait for the server (connect, each read) and the time
    an answer's stream may go without an event (pings do not count: `stream_watchdog`);
    `attempt_timeout`, when given, is asked before every attempt for that attempt's bound
    instead, so a test can give a short one only to the attempt that meets a stall.
    """

    name = "anthropic"

    def __init__(
        self,
        api_key: str,
        model: str = DEFAULT_MODEL,
        base_url: str | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        sleep: Callable[[float], None] = time.sleep,
        timeout_seconds: float = 600.0,
        context_window: int | None = None,
        jitter: Callable[[], float] = random.random,
        summarizer_timeout_seconds: float = 120.0,
        attempt_timeout: Callable[[], float] | None = None,
    ) -> None:
        if not api_key or not api_key.strip():
            raise MissingApiKey(MISSING_KEY_HINT)
        self.model = model
        self._context_window = context_window
        self.base_url = base_url
        self.max_retries = max_retries
        self.timeout_seconds = timeout_seconds
        self.summarizer_timeout_seconds = summarizer_timeout_seconds
        # Asked before each attempt for that attempt's timeout; by default the fixed one.
        # A test can then give only the attempt that meets a stalled server a short one.
        self._attempt_timeout = attempt_timeout or (lambda: self.timeout_seconds)
        self._api_key = api_key
        self._sleep = sleep
        self._jitter = jitter
        self._client: Any = None
        self._client_lock = threading.Lock()
        self._warmed_up = False
        self._wire = WireBuilder()  # builds each request from the closed turns of the last

    @property
    def context_window(self) -> int:
        """The window given at construction, else the model table's for the current model
        (so `/model` changes it too; an unknown model gets the table's safe default)."""
        return self._context_window or lookup_model(self.model).context_window

    def __repr__(self) -> str:
        return f"AnthropicProvider(model={self.model!r}, base_url={self.base_url!r})"

    def build_summarizer(self, focus: str | None = None) -> ProviderSummarizer:
        """The model summarizer of `agent_cli.provider.summarizers`, running on this provider."""
        from agent_cli.provider.summarizers import build_model_summarizer

        return build_model_summarizer(
            self, focus=focus, timeout_seconds=self.summarizer_timeout_seconds
        )

    def stream(self, request: ModelRequest) -> Iterator[ProviderEvent]:
        """Stream one request, retrying busy or broken attempts; see the module contract."""
        wire = self._wire.build(request, self.model)
        attempt = 0
        while True:
            attempt += 1
            try:
                response = yield from self._stream_attempt(wire)
            except Exception as err:
                failure = self._classify(err, messages=True)
                if failure is None:
                    raise
                if attempt > retry_limit(failure.kind, self.max_retries):
                    # `from None`: the SDK error's text may echo a server body verbatim, and
                    # nothing that could carry the key may ride along in a traceback.
                    raise ProviderRequestFailed(
                        failure.kind,
                        status=failure.status,
                        attempts=attempt,
                        detail=failure.detail,
                        model=self.model,
                        tool=refused_tool(failure, wire.get("tools")),
                        url=failure.url or None,
                        content_type=failure.content_type or None,
                    ) from None
                delay = backoff_delay(attempt, failure.retry_after, jitter=self._jitter)
                yield RetryNotice(attempt=attempt, delay_seconds=delay, kind=failure.kind)
                self._sleep(delay)
                continue
            yield response
            return

    def list_models(self, timeout_seconds: float = 5.0) -> list[dict[str, Any]]:
        """The usable entries among the first 100 of the Models API's first page, as
        `{"id", "display_name", "lifecycle"}` (`models_page`). One try, bounded in bytes
        and time (`anthropic_models`). Any failure raises `ProviderRequestFailed`: an error
        status by its kind (an endpoint without the Models API answers 404), an answer
        that is no model list as "malformed_answer", "no_models" or "too_large", and
        anything else as "failed", so `/model` can always fall back to the table."""
        try:
            body, complete = fetch_models_page(self._ensure_client(), timeout_seconds)
            return read_models_page(body, complete)
        except ModelsPageUnusable as unusable:
            raise ProviderRequestFailed(unusable.reason) from None
        except Exception as err:
            failure = self._classify(err)
            if failure is None:  # an answer the SDK or its transport could not take
                raise ProviderRequestFailed("failed") from None
            raise ProviderRequestFailed(
                failure.kind, status=failure.status, detail=failure.detail, url=failure.url or None
            ) from None

    def _stream_attempt(
        self, wire: dict[str, Any]
    ) -> Generator[TextDelta | UsageSoFar, None, ModelResponse]:
        """One try: yield the usage `message_start` reports and text deltas, return (not
        yield) the finished response."""
        tracker = StreamTracker()
        client = self._ensure_client()
        timeout = self._attempt_timeout()
        # The raw event stream, assembled by `stream_assembly`, not the SDK's `stream()`
        # helper: its accumulator re-parses a tool input at every piece (see there).
        foreign: ForeignBody | None = None
        try:
            with client.messages.create(**wire, stream=True, timeout=timeout) as stream:
                foreign = watch_foreign_body(stream.response)
                # pings reset each read's timeout: the same bound, on time without an event
                for event in read_events(stream, idle_limit=timeout):
                    text = tracker.observe(event)
                    if text:
                        yield TextDelta(text)
                    elif getattr(event, "type", None) == "message_start":
                        yield UsageSoFar(tracker.build_usage())
            return build_model_response(tracker)
        except StreamFault as fault:
            if foreign is None or fault.kind not in FOREIGN_FAULT_KINDS:
                raise
            raise foreign.fault(fault.kind) from fault

    def prepare(self) -> None:
        """Import the SDK, build the client and let the SDK build its stream event models
        now, so the first request does not wait for them (the REPL calls this on a worker thread
        once the prompt is drawn). Safe from any thread and more than once: the client is
        built exactly once, and a request that comes meanwhile waits for all of it (the
        models are not built by two threads at once)."""
        with self._client_lock:
            self._build_client_if_needed()
            if not self._warmed_up:
                warm_up_stream_parsing()
                self._warmed_up = True

    def _ensure_client(self) -> Any:
        with self._client_lock:
            return self._build_client_if_needed()

    def _build_client_if_needed(self) -> Any:
        """The client, built on first use; the caller holds `_client_lock`."""
        if self._client is None:
            import anthropic

            # SDK 2.x sends the key as a Bearer token; the Messages API documents the
            # x-api-key header, which some compatible endpoints require: send both.
            self._client = anthropic.Anthropic(
                api_key=self._api_key,
                base_url=self.base_url,
                max_retries=0,
                timeout=self.timeout_seconds,
                default_headers={"x-api-key": self._api_key},
            )
        return self._client

    def _classify(self, err: Exception, *, messages: bool = False) -> Failure | None:
        """Classify an attempt's error with the key redacted; None if it is not a failure.
        `messages`: the error of a Messages request, whose 404s and 405s say more
        (`name_messages_failure`)."""
        failure = classify_failure(err)
        if failure is None:
            return None
        if messages:
            failure = name_messages_failure(failure, err, self.model)
        return replace(
            failure,
            detail=shown_detail(failure, self._api_key),
            url=redact_secret(failure.url, self._api_key),
        )
