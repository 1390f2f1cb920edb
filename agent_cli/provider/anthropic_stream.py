"""Stream handling around the SDK: reading its raw events safely and warming up their models.

Contract: `watch_foreign_body(response)` returns None for a streamed answer whose content
type names an event stream (or none at all); for any other it keeps the first
`MAX_SAID_BYTES` of the body as the SDK reads it, and the stream is read as any other (a
valid stream mislabelled `text/plain` is still an answer). Only when the stream then
breaks as incomplete or malformed (a web page parses as an empty stream),
`ForeignBody.fault(kind)` is that fault carrying the content type and the server's words
(`ForeignStreamFault`, retried as its kind). `read_events(stream, idle_limit)` yields the SDK's raw stream events and turns
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
from agent_cli.provider.anthropic_errors import ForeignStreamFault
from agent_cli.provider.endpoint_answers import is_event_stream, server_words
from agent_cli.provider.stream_assembly import StreamFault, StreamTracker, build_model_response
from agent_cli.provider.stream_watchdog import StreamWatchdog
from agent_cli.provider.warm_up_stream import WARM_UP_EVENTS

MAX_SAID_BYTES = 2048  # of a body that is no event stream, kept for the words
# How a stream that is no event stream breaks: as a fault of these kinds.
FOREIGN_FAULT_KINDS = frozenset({"stream_incomplete", "stream_malformed"})


class ForeignBody:
    """The head of a streamed answer whose content type named no event stream."""

    def __init__(self, url: str, content_type: str) -> None:
        self.url = url
        self.content_type = content_type
        self.head = b""
        self.complete = True

    def keep(self, chunk: bytes) -> None:
        """Keep what of `chunk` fits within `MAX_SAID_BYTES`."""
        room = MAX_SAID_BYTES - len(self.head)
        if len(chunk) > room:
            self.complete = False
        self.head += chunk[: max(room, 0)]

    def fault(self, kind: str) -> ForeignStreamFault:
        """The fault `kind` of this answer, with its content type and its words."""
        text = self.head.decode("utf-8", "replace")
        said = server_words(text, self.content_type, complete=self.complete)
        return ForeignStreamFault(kind, self.url, self.content_type, said)


def watch_foreign_body(response: Any) -> ForeignBody | None:
    """None when `response` (the SDK's HTTP response to a streamed request) names an
    event stream or no content type; else a `ForeignBody` that keeps the head of the
    body as the SDK reads it (see the module contract). If the SDK read the body some
    other way, the head stays empty: the words are left out, nothing breaks."""
    content_type = str(response.headers.get("content-type") or "")
    if is_event_stream(content_type):
        return None
    foreign = ForeignBody(str(response.url), content_type)
    read = response.iter_bytes

    def iter_bytes(*args: Any, **kwargs: Any) -> Iterator[bytes]:
        for chunk in read(*args, **kwargs):
            foreign.keep(chunk)
            yield chunk

    response.iter_bytes = iter_bytes
    return foreign


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
