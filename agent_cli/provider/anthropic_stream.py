"""Stream handling around the SDK: reading its events safely and warming up its parsing.

Contract: `read_events(stream, idle_limit)` yields the SDK's events and turns anything it
fails to parse into a `StreamFault("stream_malformed")` (but a tool call's input nested
past the SDK's JSON reader: `StreamFault("tool_input_too_deep")`, not retried, since the
same answer fails the same way), and a stream silent but for pings for `idle_limit`
seconds into `StreamFault("timeout")`; the provider retries both of those.
`warm_up_stream_parsing` feeds a canned stream (`WARM_UP_EVENTS`) to the SDK's own
accumulator, offline, so the first answer does not pay for building the SDK's models;
it never raises. `anthropic` is imported only inside `accumulate_warm_up_stream`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agent_cli.provider.stream_assembly import StreamFault
from agent_cli.provider.stream_watchdog import StreamWatchdog
from agent_cli.provider.warm_up_stream import WARM_UP_EVENTS


def warm_up_stream_parsing() -> None:
    """Let the SDK build its stream models now: pydantic builds their schemas on first use
    (about 0.2 s, far more on a busy machine), which would otherwise land on the first
    answer. It feeds a canned stream to the SDK's own accumulator, offline. The
    accumulator is not public API: if it moved, nothing is warmed and nothing breaks."""
    try:
        accumulate_warm_up_stream()
    except Exception:  # a warm-up only; the first request then pays the cost itself
        return


def accumulate_warm_up_stream() -> Any:
    """The SDK's message snapshot of `WARM_UP_EVENTS` (raises if the SDK changed)."""
    from anthropic.lib.streaming._messages import accumulate_event

    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    for event in WARM_UP_EVENTS:
        snapshot = accumulate_event(
            event=event,  # type: ignore[arg-type]  # raw dicts are what it parses
            current_snapshot=snapshot,
            json_bufs=buffers,
        )
    return snapshot


def read_events(stream: Any, idle_limit: float | None = None) -> Iterator[Any]:
    """The SDK's events; anything it fails to parse becomes a `stream_malformed` fault.

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
            raise StreamFault(_fault_kind(err)) from err
        yield event


TOO_DEEP = "recursion limit exceeded"  # jiter's words for JSON nested past its limit


def _fault_kind(err: BaseException) -> str:
    """`tool_input_too_deep` when the SDK's accumulator could not read a tool call's
    partial input for its nesting (jiter's recursion limit, about 200 levels, where
    Python's json reads it): the same answer would fail the same way, so it is said as
    such rather than retried as a broken stream; `stream_malformed` otherwise."""
    cause = err.__cause__
    if isinstance(err, ValueError) and isinstance(cause, ValueError) and TOO_DEEP in str(cause):
        return "tool_input_too_deep"
    return "stream_malformed"
