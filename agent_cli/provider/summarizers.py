"""The L4 summarizer that asks a model (the one that needs none is `extractive_summary`).

Contract: the builder returns a `Summarizer` function (old prompt-view messages -> text).
It cannot see the durable state: its only input is the messages L4 hands it.

`build_model_summarizer(provider, focus)` sends one request: the system prompt is the
shipped `summary` prompt (plus the focus, when given); the single user message holds the
previous summary, if the first message is one, and a bounded rendering of the messages
since (`summary_input`, within a quarter of the provider's window unless
`max_input_chars` is given). Where that rendering had to leave messages out, the summary
ends with a note naming them by pointer, and a previous summary's notes are carried
into the new one whichever request wrote it (`summary_input.with_left_out_notes`). It waits at most `timeout_seconds` for the answer, in a daemon
worker thread so a hung provider can never hold up the session or the process exit.
It raises `SummarizerFailed` ("timeout", "provider_error" carrying the request's
`ProviderRequestFailed`, "no_response"); L4 treats that as failure and leaves the view
unchanged. The provider's retries are told, as they come, to whoever `watch_retries`
names, on the thread that asked for the summary (the REPL shows them as it shows an
ordinary request's).

Only a reply that is a summary is one (`read_summary_text`): one that calls a tool
("called_tool"), stops for any reason but `end_turn` ("stopped_early": cut at
max_tokens, paused, refused) or holds no substantive text ("no_text": fewer than
`MIN_SUMMARY_LETTERS` letters and digits) fails with that reason, its text unused.

When the session offers its cached prefix (`use_cached_prefix`), the request reuses it
instead (same system prompt, tools and messages, the instructions last) where that is
estimated to cost less: see `summary_reuse` for the figures and the rule. It must keep
the tools (changing them would throw the cache away), so the model may answer it with
a tool call; a reply to it that is not a summary is followed by the bounded request,
which offers no tools. Timeouts and provider errors are not retried that way.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from agent_cli.errors import ProviderRequestFailed, SummarizerFailed, TerminationRequested
from agent_cli.events import (
    CACHE_NOTHING,
    ModelRequest,
    ModelResponse,
    RetryNotice,
    TextDelta,
    Usage,
    UsageSoFar,
)
from agent_cli.models import lookup_model
from agent_cli.prompts import load_prompt
from agent_cli.provider.base import Provider, ProviderEvent
from agent_cli.provider.summary_input import (
    DEFAULT_MAX_INPUT_CHARS,
    build_summary_input,
    left_out_note,
    summary_input_chars,
    with_left_out_notes,
)
from agent_cli.provider.summary_reuse import CachedPrefix, choose_summary_request

__all__ = [
    "DEFAULT_SUMMARY_MAX_TOKENS",
    "MIN_SUMMARY_LETTERS",
    "ModelSummarizer",
    "build_model_summarizer",
    "build_summary_request",
    "read_summary_text",
    "render_summary_system_prompt",
    "summary_request",
]

DEFAULT_SUMMARY_MAX_TOKENS = 2_048
# A reply with fewer letters and digits than this summarizes nothing ("OK.", "Done.",
# "..."): even a one-line summary of a view large enough to compact names the goal and
# a file or a result. Counting letters, not words, serves Chinese text as well.
MIN_SUMMARY_LETTERS = 10
# Reasons a reply was not a summary; after the reusing request, these send the bounded one.
NOT_A_SUMMARY = ("called_tool", "stopped_early", "no_text")
# failures that leave an answer the API may have begun: its usage so far was billed
BROKEN_OFF = ("timeout", "provider_error", "no_response")


def build_model_summarizer(
    provider: Provider,
    focus: str | None = None,
    timeout_seconds: float = 60.0,
    max_input_chars: int | None = None,
    max_tokens: int = DEFAULT_SUMMARY_MAX_TOKENS,
) -> ModelSummarizer:
    """A summarizer that asks `provider` for a handoff summary; see the module contract.
    `max_input_chars` None: `summary_input_chars` of the provider's window at each call
    (`/model` may change it)."""
    system = render_summary_system_prompt(focus)
    return ModelSummarizer(provider, system, timeout_seconds, max_input_chars, max_tokens)


class ModelSummarizer:
    """The callable `build_model_summarizer` returns. `reported_usage` collects the usage
    the API reported for each summary request: they cost tokens too, and the session
    counts them in its totals."""

    def __init__(
        self,
        provider: Provider,
        system: str,
        timeout_seconds: float,
        max_input_chars: int | None,
        max_tokens: int,
    ) -> None:
        self._provider = provider
        self._system = system
        self._timeout_seconds = timeout_seconds
        self._max_input_chars = max_input_chars
        self._max_tokens = max_tokens
        self._cached_prefix: CachedPrefix | None = None
        self._retry_watcher: Callable[[RetryNotice], None] | None = None
        self.reported_usage: list[Usage] = []

    def use_cached_prefix(self, prefix: CachedPrefix | None) -> None:
        """Let the next summary requests reuse what the session's cache holds, when that
        is cheaper than the bounded request (`summary_reuse`)."""
        self._cached_prefix = prefix

    def watch_retries(self, watcher: Callable[[RetryNotice], None] | None) -> None:
        """Tell `watcher` of each retry of a summary request as it comes, on the thread
        that asked for the summary; None stops."""
        self._retry_watcher = watcher

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        window = self._provider.context_window
        given = build_summary_input(messages, self._max_input_chars or summary_input_chars(window))
        bounded = summary_request(given.text, self._system, self._max_tokens)
        prices = lookup_model(self._provider.model).prices  # the model now in use (`/model`)
        request = choose_summary_request(bounded, self._cached_prefix, messages, window, prices)
        if request is not bounded:  # the whole view: nothing left out
            try:
                return with_left_out_notes(self._ask(request), given.previous_notes)
            except SummarizerFailed as failure:
                if failure.reason not in NOT_A_SUMMARY:
                    raise
        notes = given.previous_notes
        if given.left_out is not None:
            notes = (*notes, left_out_note(given.left_out))
        return with_left_out_notes(self._ask(bounded), notes)

    def _ask(self, request: ModelRequest) -> str:
        """The summary the reply to `request` holds; `SummarizerFailed` otherwise. Every
        attempt the API began was billed: one given up (a retry, a timeout, Ctrl-C, a
        termination signal, a failed stream) puts its usage so far into `reported_usage`
        too."""
        seen = StreamSeen()
        try:
            response = run_request_with_timeout(
                self._provider, request, self._timeout_seconds, seen, self._retry_watcher
            )
        except (SummarizerFailed, KeyboardInterrupt, TerminationRequested) as stopped:
            billed = seen.billed_so_far()
            given_up = not isinstance(stopped, SummarizerFailed) or stopped.reason in BROKEN_OFF
            self.reported_usage.extend(seen.given_up)
            if given_up and billed is not None:
                self.reported_usage.append(billed)
            raise
        self.reported_usage.extend(seen.given_up)
        self.reported_usage.append(response.usage)
        return read_summary_text(response)


def read_summary_text(response: ModelResponse) -> str:
    """The reply's text, stripped, if the reply is a summary (module contract); else
    `SummarizerFailed` with the reason it is not."""
    content = response.message.get("content")
    blocks = content if isinstance(content, list) else []
    if any(isinstance(block, dict) and block.get("type") == "tool_use" for block in blocks):
        raise SummarizerFailed("called_tool")
    if response.stop_reason != "end_turn":
        raise SummarizerFailed("stopped_early")
    text = render_response_text(response).strip()
    if sum(char.isalnum() for char in text) < MIN_SUMMARY_LETTERS:
        raise SummarizerFailed("no_text")
    return text


def render_summary_system_prompt(focus: str | None = None) -> str:
    """The shipped summary prompt, with the user's focus instructions appended if any."""
    prompt = load_prompt("summary")
    focus_text = " ".join((focus or "").split())
    if not focus_text:
        return prompt
    return (
        f"{prompt}\nFocus requested by the user for this summary: {focus_text}\n"
        "Give what concerns the focus the most detail. Keep the other sections short, "
        "but keep every fact needed to continue the work.\n"
    )


def build_summary_request(
    messages: list[dict[str, Any]],
    system: str,
    max_input_chars: int = DEFAULT_MAX_INPUT_CHARS,
    max_tokens: int = DEFAULT_SUMMARY_MAX_TOKENS,
) -> ModelRequest:
    """One request with no tools and no durable context: only the old messages, bounded."""
    text = build_summary_input(messages, max_input_chars).text
    return summary_request(text, system, max_tokens)


def summary_request(text: str, system: str, max_tokens: int) -> ModelRequest:
    """The bounded summary request: `text` as its one user message, the summary prompt
    `system`, no tools, no durable context, nothing cached."""
    return ModelRequest(
        system=system,
        durable_context="",
        messages=({"role": "user", "content": text},),
        tools=(),
        max_tokens=max_tokens,
        cache=CACHE_NOTHING,  # a one-off: writing it to the cache at 1.25x buys nothing
    )


class StreamSeen:
    """What a stream run on another thread has shown so far: the usage the API reported
    as it began to answer (`UsageSoFar`), and the characters of text since; and the
    billed usage of each attempt a retry gave up after the API began it (`given_up`)."""

    def __init__(self) -> None:
        self.started: Usage | None = None
        self.text_chars = 0
        self.given_up: list[Usage] = []

    def watch(self, events: Iterable[ProviderEvent]) -> Iterator[ProviderEvent]:
        """`events` as they are, noting what they show (a retry starts again)."""
        for event in events:
            if isinstance(event, UsageSoFar):
                self.started, self.text_chars = event.usage, 0
            elif isinstance(event, TextDelta):
                self.text_chars += len(event.text)
            elif isinstance(event, RetryNotice):
                billed = self.billed_so_far()
                if billed is not None:
                    self.given_up.append(billed)
                self.started, self.text_chars = None, 0
            yield event

    def billed_so_far(self) -> Usage | None:
        """The usage reported as the answer began, its output at least what arrived (about
        four characters a token); None before the API began to answer."""
        if self.started is None:
            return None
        return self.started.with_output_at_least(-(-self.text_chars // 4))


def run_request_with_timeout(
    provider: Provider,
    request: ModelRequest,
    timeout_seconds: float,
    seen: StreamSeen | None = None,
    on_retry: Callable[[RetryNotice], None] | None = None,
) -> ModelResponse:
    """The final response of `provider.stream(request)`, or `SummarizerFailed`; `seen`
    watches the stream as it goes, and `on_retry` is told of each retry as it comes, on
    the calling thread (the REPL draws it there; it must not raise).

    The stream runs in a daemon thread; if it has not finished after `timeout_seconds`
    (its retries and their waits included) the thread is abandoned (it cannot be stopped
    from outside) and "timeout" is raised. A `ProviderRequestFailed` is carried in the
    "provider_error" it raises (`SummarizerFailed.provider_failure`), so the cause can be
    said.
    """
    outcome: dict[str, Any] = {}
    watching = seen if seen is not None else StreamSeen()
    retries: queue.SimpleQueue[RetryNotice | None] = queue.SimpleQueue()  # None: it ended

    def consume() -> None:
        try:
            events = _pass_retries(watching.watch(provider.stream(request)), retries.put)
            outcome["response"] = find_final_response(events)
        except Exception as error:  # carried to the caller's thread below
            outcome["error"] = error
        finally:
            retries.put(None)

    worker = threading.Thread(target=consume, name="summarizer-request", daemon=True)
    worker.start()
    _relay_retries(retries, timeout_seconds, on_retry)
    error = outcome.get("error")
    if isinstance(error, SummarizerFailed):
        raise error
    if isinstance(error, ProviderRequestFailed):
        raise SummarizerFailed("provider_error", provider_failure=error) from error
    if error is not None:
        raise SummarizerFailed("provider_error") from error
    response = outcome.get("response")
    if not isinstance(response, ModelResponse):
        raise SummarizerFailed("no_response")
    return response


def _pass_retries(
    events: Iterable[ProviderEvent], put: Callable[[RetryNotice], None]
) -> Iterator[ProviderEvent]:
    """`events` as they are, each `RetryNotice` also handed to `put`."""
    for event in events:
        if isinstance(event, RetryNotice):
            put(event)
        yield event


def _relay_retries(
    retries: queue.SimpleQueue[RetryNotice | None],
    timeout_seconds: float,
    on_retry: Callable[[RetryNotice], None] | None,
) -> None:
    """Wait for the stream's end (None on `retries`), telling `on_retry` of each retry
    before it; `SummarizerFailed("timeout")` once `timeout_seconds` have gone by."""
    deadline = time.monotonic() + timeout_seconds
    while True:
        left = deadline - time.monotonic()
        try:
            if left <= 0:
                raise queue.Empty
            notice = retries.get(timeout=left)
        except queue.Empty:
            raise SummarizerFailed("timeout", timeout_seconds=timeout_seconds) from None
        if notice is None:
            return
        if on_retry is not None:
            on_retry(notice)


def find_final_response(events: Iterable[ProviderEvent]) -> ModelResponse | None:
    """The last `ModelResponse` of a stream; text deltas and retry notices are skipped."""
    final = None
    for event in events:
        if isinstance(event, ModelResponse):
            final = event
    return final


def render_response_text(response: ModelResponse) -> str:
    """The text blocks of the response's message, joined."""
    content = response.message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(
        str(block.get("text", ""))
        for block in content or []
        if isinstance(block, dict) and block.get("type") == "text"
    )
