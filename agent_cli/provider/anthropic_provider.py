"""The Anthropic provider: the official SDK, streaming, with our own bounded retries.

Contract (see `agent_cli.provider.base`): `stream(request)` builds the wire request
(`build_wire_request`, which may raise `WireFormatError` before anything is sent),
streams it with `client.messages.stream`, yields `TextDelta`s as text arrives and ends
with one `ModelResponse`. Busy or broken attempts (429, 529, 5xx, a mid-stream
`overloaded_error`/`api_error`, dropped connections, timeouts, a malformed stream) are
retried with bounded backoff that honours retry-after; a `RetryNotice` precedes each
retry and voids the text streamed so far. When retries run out, or at once for errors
that would only repeat (400, 401, 403, 404, 413), `ProviderRequestFailed` is raised and
no `ModelResponse` was yielded.

This is the only module that imports `anthropic`, and only inside functions: the import
takes seconds (measured about 3 s warm, over 20 s on a cold cache, on the build box), and
the offline provider and the tests of everything else never pay it. The SDK's own
retries are turned off because it never retries an error that arrives mid-stream.
The API key is kept private and redacted from every error detail.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Generator, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn
from urllib.parse import urlsplit

from agent_cli.errors import ConfigError, MissingApiKey, ProviderRequestFailed
from agent_cli.events import ModelRequest, ModelResponse, RetryNotice, TextDelta
from agent_cli.models import DEFAULT_MODEL, lookup_model
from agent_cli.provider.base import ProviderEvent, Summarizer
from agent_cli.provider.retry import backoff_delay, parse_retry_after, retry_limit
from agent_cli.provider.stream_assembly import StreamFault, StreamTracker, build_model_response
from agent_cli.provider.wire import build_wire_request

DEFAULT_MAX_RETRIES = 4
MISSING_KEY_HINT = "set ANTHROPIC_API_KEY or use --provider offline"
MAX_DETAIL_CHARS = 500

# HTTP status -> failure kind. Anything else >= 500 is "server_error" (retried).
STATUS_KINDS: Mapping[int, str] = {
    400: "bad_request",
    401: "auth",
    403: "permission",
    404: "not_found",
    408: "timeout",
    409: "conflict",
    413: "request_too_large",
    429: "rate_limited",
    500: "api_error",
    502: "unavailable",
    503: "unavailable",
    504: "unavailable",
    529: "overloaded",
}
# Error type of an `event: error` that arrives mid-stream (HTTP status 200) -> kind.
ERROR_TYPE_KINDS: Mapping[str, str] = {
    "overloaded_error": "overloaded",
    "api_error": "api_error",
    "rate_limit_error": "rate_limited",
    "invalid_request_error": "bad_request",
    "authentication_error": "auth",
    "permission_error": "permission",
    "not_found_error": "not_found",
    "request_too_large": "request_too_large",
    "timeout_error": "timeout",
}


def load_provider_settings(env: Mapping[str, str]) -> tuple[str, str | None, str]:
    """(api_key, base_url, model) from ANTHROPIC_API_KEY, _BASE_URL and _MODEL.

    Raises `MissingApiKey` when no key is set, before any request is attempted, and
    `ConfigError` naming ANTHROPIC_BASE_URL when it is set but is not a usable URL (the
    HTTP client would otherwise fail on the first request with a traceback).
    """
    api_key = (env.get("ANTHROPIC_API_KEY") or "").strip()
    if not api_key:
        raise MissingApiKey(MISSING_KEY_HINT)
    base_url = check_base_url((env.get("ANTHROPIC_BASE_URL") or "").strip() or None)
    model = (env.get("ANTHROPIC_MODEL") or "").strip() or DEFAULT_MODEL
    return api_key, base_url, model


def check_base_url(url: str | None) -> str | None:
    """`url` unchanged when it is an http(s) URL with a host and a numeric port (if any);
    otherwise `ConfigError("ANTHROPIC_BASE_URL", ...)` saying what is wrong."""
    if url is None:
        return None
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- reading it validates it (ValueError when not a number)
    except ValueError as error:
        return _bad_base_url(f"it is not a valid URL ({error})")
    if parts.scheme not in ("http", "https"):
        return _bad_base_url("it must start with http:// or https://")
    if not parts.hostname or any(ch.isspace() or ord(ch) < 32 for ch in url):
        return _bad_base_url("it has no host name, or holds spaces or control characters")
    return url


def _bad_base_url(reason: str) -> NoReturn:
    raise ConfigError(
        "ANTHROPIC_BASE_URL",
        f"{reason}; set it to a URL such as https://api.anthropic.com, or unset it",
        source="environment",
    )


@dataclass(frozen=True)
class Failure:
    """One failed attempt, classified: what kind, which status, how long the server asks."""

    kind: str
    status: int | None = None
    retry_after: float | None = None
    detail: str = ""


class AnthropicProvider:
    """Claude through the official SDK; see the module contract.

    `timeout_seconds` bounds each wait for the server (connect, each read);
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

    @property
    def context_window(self) -> int:
        """The window given at construction, else the model table's for the current model
        (so `/model` changes it too; an unknown model gets the table's safe default)."""
        return self._context_window or lookup_model(self.model).context_window

    def __repr__(self) -> str:
        return f"AnthropicProvider(model={self.model!r}, base_url={self.base_url!r})"

    def build_summarizer(self, focus: str | None = None) -> Summarizer:
        """The model summarizer of `agent_cli.provider.summarizers`, running on this provider."""
        from agent_cli.provider.summarizers import build_model_summarizer

        return build_model_summarizer(
            self, focus=focus, timeout_seconds=self.summarizer_timeout_seconds
        )

    def stream(self, request: ModelRequest) -> Iterator[ProviderEvent]:
        """Stream one request, retrying busy or broken attempts; see the module contract."""
        wire = build_wire_request(request, self.model)
        attempt = 0
        while True:
            attempt += 1
            try:
                response = yield from self._stream_attempt(wire)
            except Exception as err:
                failure = self._classify(err)
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
                    ) from None
                delay = backoff_delay(attempt, failure.retry_after, jitter=self._jitter)
                yield RetryNotice(attempt=attempt, delay_seconds=delay, kind=failure.kind)
                self._sleep(delay)
                continue
            yield response
            return

    def list_models(self, timeout_seconds: float = 5.0) -> list[dict[str, Any]]:
        """The first page of the Models API: `{"id", "display_name", "lifecycle"}` each.
        One try, short timeout; a failure raises `ProviderRequestFailed` (e.g. an endpoint
        that does not offer the Models API answers 404)."""
        try:
            page = self._ensure_client().models.list(limit=100, timeout=timeout_seconds)
            return [
                {
                    "id": entry.id,
                    "display_name": getattr(entry, "display_name", None),
                    "lifecycle": getattr(entry, "lifecycle", None),
                }
                for entry in page.data
            ]
        except Exception as err:
            failure = self._classify(err)
            if failure is None:
                raise
            raise ProviderRequestFailed(
                failure.kind, status=failure.status, detail=failure.detail
            ) from None

    def _stream_attempt(self, wire: dict[str, Any]) -> Generator[TextDelta, None, ModelResponse]:
        """One try: yield text deltas, return (not yield) the finished response."""
        tracker = StreamTracker()
        client = self._ensure_client()
        with client.messages.stream(**wire, timeout=self._attempt_timeout()) as stream:
            for event in _read_events(stream):
                text = tracker.observe(event)
                if text:
                    yield TextDelta(text)
            final = stream.get_final_message()
        return build_model_response(final, tracker)

    def _ensure_client(self) -> Any:
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

    def _classify(self, err: Exception) -> Failure | None:
        """Classify an attempt's error with the key redacted; None if it is not a failure."""
        failure = classify_failure(err)
        if failure is None:
            return None
        if is_model_not_found(failure, getattr(err, "type", None), self.model):
            failure = Failure("model_not_found", failure.status, None, failure.detail)
        return Failure(
            failure.kind,
            failure.status,
            failure.retry_after,
            redact_secret(failure.detail, self._api_key),
        )


def _read_events(stream: Any) -> Iterator[Any]:
    """The SDK's events; anything it fails to parse becomes a `stream_malformed` fault."""
    iterator = iter(stream)
    while True:
        try:
            event = next(iterator)
        except StopIteration:
            return
        except (ValueError, RuntimeError, IndexError, KeyError, TypeError) as err:
            raise StreamFault("stream_malformed") from err
        yield event


def classify_failure(err: BaseException) -> Failure | None:
    """The failure an SDK or transport error stands for; None for anything else (a bug)."""
    import anthropic
    import httpx2  # the SDK's transport; mid-stream read errors arrive unwrapped

    if isinstance(err, StreamFault):
        return Failure(err.kind)
    if isinstance(err, anthropic.APIStatusError):
        return _classify_status_error(err)
    if isinstance(err, anthropic.APITimeoutError | httpx2.TimeoutException):
        return Failure("timeout")
    if isinstance(err, anthropic.APIConnectionError | httpx2.TransportError):
        return Failure("connection")
    return None


def _classify_status_error(err: Any) -> Failure:
    status = int(err.status_code)
    detail = str(err.api_message or "")[:MAX_DETAIL_CHARS]
    if status == 200:  # an `event: error` inside a stream that had started fine
        kind = ERROR_TYPE_KINDS.get(str(err.type), "stream_error")
        return Failure(kind, status=None, detail=detail)
    kind = STATUS_KINDS.get(status) or ("server_error" if status >= 500 else f"http_{status}")
    return Failure(
        kind, status=status, retry_after=parse_retry_after(err.response.headers), detail=detail
    )


def is_model_not_found(failure: Failure, error_type: object, model: str) -> bool:
    """A 404 `not_found_error` about the model (the API says `model: <id>`), as opposed
    to a 404 for a wrong path, which a bad ANTHROPIC_BASE_URL gives."""
    if failure.status != 404 or error_type != "not_found_error":
        return False
    detail = failure.detail.lower()
    return detail.startswith("model") or (bool(model) and model.lower() in detail)


def redact_secret(text: str, secret: str) -> str:
    """`text` with every occurrence of `secret` replaced, so no error can carry the key."""
    return text.replace(secret, "[redacted]") if secret else text
