"""Stream handling around the SDK: reading its raw events safely and warming up their models.

Contract: `check_event_stream(response)` raises `NotAnEventStream` when a streamed
request's response names another content type than an event stream (a web page, plain
text, JSON: no Messages API endpoint answered), with at most `MAX_SAID_BYTES` of what it
said; the SDK would parse such a body as an empty stream, which only looks cut short.
`read_events(stream, idle_limit)` yields the SDK's raw stream events and turns
anything it fails to parse into a `StreamFault("stream_malformed")`, and a stream silent
but for pings for `idle_limit` seconds into `StreamFault("timeout")`; the provider
retries both. `warm_up_stream_parsing` builds a canned stream (`WARM_UP_EVENTS`) into the
SDK's event models, the way its stream builds each event it reads, and assembles it as an
answer is assembled (`stream_assembly`), offline, so the first answer does not pay for
building them; it never raises. `anthropic` is imported only inside
`assemble_warm_up_stream`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agent_cli.events import ModelResponse
from agent_cli.provider.anthropic_errors import NotAnEventStream
from agent_cli.provider.endpoint_answers import is_event_stream, server_words
from agent_cli.provider.stream_assembly import StreamFault, StreamTracker, build_model_response
from agent_cli.provider.stream_watchdog import StreamWatchdog
from agent_cli.provider.warm_up_stream import WARM_UP_EVENTS

MAX_SAID_BYTES = 2048  # of a body that is no event stream, read for the words


def check_event_stream(response: Any) -> None:
    """Raise `NotAnEventStream` unless `response` (the SDK's HTTP response to a streamed
    request) is an event stream, or names no content type at all."""
    content_type = str(response.headers.get("content-type") or "")
    if is_event_stream(content_type):
        return
    head = b""
    for chunk in response.iter_bytes():
        head += chunk
        if len(head) >= MAX_SAID_BYTES:
            break
    said = server_words(head[:MAX_SAID_BYTES].decode("utf-8", "replace"), content_type)
    raise NotAnEventStream(str(response.url), content_type, said)


def warm_up_stream_parsing() -> None:
    """Let the SDK build its stream event models now: the first construction of each
    (a discriminated union of pydantic models) costs a few milliseconds idle, far more on
    a busy machine, which would otherwise land on the first answer. The constructor is
    not public API: if it moved, nothing is warmed and nothing breaks."""
    try:
        assemble_warm_up_stream()
    except Exception:  # a warm-up only; the first request then pays the cost itself
        return


def assemble_warm_up_stream() -> ModelResponse:
    """`WARM_UP_EVENTS` built into the SDK's event models as its `Stream` builds what it
    reads, and assembled into an answer (raises if the SDK changed)."""
    from anthropic._models import construct_type
    from anthropic.types import RawMessageStreamEvent

    tracker = StreamTracker()
    for raw in WARM_UP_EVENTS:
        tracker.observe(construct_type(type_=RawMessageStreamEvent, value=raw))
    return build_model_response(tracker)


def read_events(stream: Any, idle_limit: float | None = None) -> Iterator[Any]:
    """The SDK's raw events; anything it fails to parse becomes a `stream_malformed` fault.

    With `idle_limit`, a stream that goes that many seconds without an event (only
    pings, which the SDK swallows) is closed and raises `StreamFault("timeout")`
    (`stream_watchdog`)."""
    if idle_limit is None:
        yield from _parsed_events(stream)
        return
    watchdog = StreamWatchdog(stream.close, idle_limit)
    watchdog.start()
    try:
        for event in _parsed_events(stream):
            watchdog.saw_event()
            yield event
    except Exception as err:
        if watchdog.fired:
            raise StreamFault("timeout") from err
        raise
    finally:
        watchdog.stop()
    if watchdog.fired:  # the close ended the body as if it were complete
        raise StreamFault("timeout")


def _parsed_events(stream: Any) -> Iterator[Any]:
    iterator = iter(stream)
    while True:
        try:
            event = next(iterator)
        except StopIteration:
            return
        except (ValueError, RuntimeError, IndexError, KeyError, TypeError) as err:
            raise StreamFault("stream_malformed") from err
        yield event
