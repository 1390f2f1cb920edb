"""The whole request path per turn, early and late in a long session: is it O(new)?

Run with `python -m bench bench_request_path` (or `make bench`). Prints figures only and
asserts nothing. Target (issue 22, Speed): what agent-cli does per request costs at 1,000
turns at most 1.5 times what it costs at 10 turns, and the SDK's own share is reported
beside it. Each sample appends one prepared turn (an assistant tool call and its 2 KB
result, frozen as the session keeps them) to a session's view that was sent the turn
before, then times, one after the other:

- `prepare`: `Session.prepare_request` on an offline session (budget, the compaction
  check, the durable block, the `ModelRequest`), the turn appended to the view directly
  so the transcript's fsync is not in the figure;
- `wire`: the provider's `WireBuilder` (kept from one request to the next, as the
  Anthropic provider keeps it), what it hands the SDK; beside it `rebuild`, the same
  request built from nothing (`build_wire_request`), as every request was before;
- `sdk`: the real SDK's `client.messages.create(**wire, stream=True)` read and assembled
  as the provider does (`stream_assembly`), over a stub transport that answers a canned
  stream at once (no network, no server). Of it,
  `sdk copy` is the SDK's own walk that copies the request body before every call
  (`prepare_request_data`, timed alone on the same wire), and the rest is mostly JSON
  encoding of the body, which any client pays.

agent-cli's own share is `prepare` + `wire`.

Cache state. Between two requests of a real session lie the model's answer streamed over
HTTP, the terminal drawn and the transcript written: the next request is prepared with
the CPU caches holding none of it, however long the history. Run back to back, the
samples would not be alike: at 10 turns the whole loop fits this machine's 2 MiB L2
cache and stays warm, while at 1,000 turns the SDK's copy and encoding of a 4 MB body
evict it. So each sample starts after `evict_caches` (a copy larger than the L3 cache,
the same at both lengths), and the ratio weighs work, not cache state. The back-to-back
figure is printed beside it.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

from agent_cli.events import ModelRequest
from agent_cli.frozen import freeze
from agent_cli.provider.stream_assembly import StreamTracker, build_model_response
from agent_cli.provider.warm_up_stream import WARM_UP_EVENTS
from agent_cli.provider.wire import WireBuilder, build_wire_request
from bench.bench_compaction import build_history, build_turn
from bench.uncompacted_session import open_uncompacted_session

HISTORY_TURNS = (10, 1_000)
SAMPLES = 30
MODEL = "claude-bench"
EVICTION_BYTES = 96 << 20  # more than the last-level cache of the machines this runs on
Phase = Callable[[], Any]
_EVICTION_SOURCE = bytes(EVICTION_BYTES)


def evict_caches() -> None:
    """Leave the CPU caches holding none of the session (module doc): write more memory
    than they hold, a copy of `_EVICTION_SOURCE` (its zero pages cost little to read; a
    fresh `bytearray(n)` would not touch its pages at all)."""
    bytearray(_EVICTION_SOURCE)


def keep_caches() -> None:
    """Run samples back to back, as the caches are after the previous request."""


def canned_answer() -> bytes:
    """A short answer stream in SSE form (`event:` and `data:` lines, as the SDK needs)."""
    return "".join(
        f"event: {event['type']}\ndata: {json.dumps(event)}\n\n" for event in WARM_UP_EVENTS
    ).encode()


def build_stub_client() -> Any:
    """The real SDK client over a transport that answers the canned stream in memory."""
    import anthropic
    import httpx2

    body = canned_answer()

    def answer(_request: Any) -> Any:
        return httpx2.Response(200, content=body, headers={"content-type": "text/event-stream"})

    return anthropic.Anthropic(
        api_key="sk-ant-bench-FAKEKEY",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(answer)),
    )


def send_through_sdk(client: Any, wire: dict[str, Any]) -> Any:
    """As the provider sends: the raw event stream, assembled by `stream_assembly`."""
    tracker = StreamTracker()
    with client.messages.create(**wire, stream=True) as stream:
        for event in stream:
            tracker.observe(event)
    return build_model_response(tracker)


def copy_like_the_sdk(wire: dict[str, Any]) -> Any:
    """The SDK's per-call copy of the body; None if its private helper moved."""
    try:
        from anthropic._utils._prepare import prepare_request_data
    except ImportError:
        return None
    return prepare_request_data(wire, location="body")


def timed(phase: Phase) -> tuple[float, Any]:
    started = time.perf_counter()
    value = phase()
    return time.perf_counter() - started, value


def time_one_request(session: Any, builder: WireBuilder, client: Any) -> tuple[float, ...]:
    """Seconds of each phase (module doc) for the request the session's view makes now."""
    prepare, request = timed(lambda: _drain(session.prepare_request()))
    wire_seconds, wire = timed(lambda: builder.build(request, MODEL))
    rebuild_seconds, _ = timed(lambda: build_wire_request(request, MODEL))
    sdk_seconds, _ = timed(lambda: send_through_sdk(client, wire))
    copy_seconds, _ = timed(lambda: copy_like_the_sdk(wire))
    return prepare, wire_seconds, rebuild_seconds, sdk_seconds, copy_seconds


def measure_turns(
    turns: int, client: Any, before_each: Callable[[], None] = evict_caches
) -> dict[str, float]:
    """Median seconds per phase over `SAMPLES` appended turns at a history of `turns`,
    `before_each` run before each sample (module doc: cache state).

    Each sample appends a turn and times its request, as a session grows; taking the
    turn out again would make the session's check start over, which no session does."""
    phases = ("prepare", "wire", "rebuild", "sdk", "sdk copy")
    samples: dict[str, list[float]] = {name: [] for name in phases}
    builder = WireBuilder()
    with tempfile.TemporaryDirectory() as home:
        session = open_uncompacted_session(home)
        try:
            # the view only changes through its conversation: the bench adopts its history
            # as a resume would (nothing written), and each turn likewise
            session.conversation.restore(build_history(turns))
            time_one_request(session, builder, client)  # the view was sent the turn before
            for number in range(SAMPLES):
                turn = [freeze(m) for m in build_turn(turns + number)]
                session.conversation.restore([*session.view, *turn])
                before_each()
                for name, seconds in zip(
                    samples, time_one_request(session, builder, client), strict=True
                ):
                    samples[name].append(seconds)
        finally:
            session.close()
    return {name: statistics.median(values) for name, values in samples.items()}


def _drain(steps: Any) -> ModelRequest:
    """Run a generator of session events to its returned request."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            request: ModelRequest = done.value
            return request


def own_share(figures: dict[int, dict[str, float]]) -> float:
    """agent-cli's share (prepare and wire) at the longer history over the shorter one's."""
    early, late = (figures[t] for t in HISTORY_TURNS)
    return (late["prepare"] + late["wire"]) / (early["prepare"] + early["wire"])


def report(figures: dict[int, dict[str, float]], back_to_back: dict[int, dict[str, float]]) -> None:
    for turns, phases in figures.items():
        own = phases["prepare"] + phases["wire"]
        print(
            f"{turns:>5,}-{turns + SAMPLES:,} turns: agent-cli {own * 1e3:.3f} ms"
            f" (prepare {phases['prepare'] * 1e3:.3f}, wire {phases['wire'] * 1e3:.3f};"
            f" a rebuild from nothing {phases['rebuild'] * 1e3:.3f});"
            f" sdk {phases['sdk'] * 1e3:.3f} ms, of which its copy {phases['sdk copy'] * 1e3:.3f}"
        )
    early, late = (figures[t] for t in HISTORY_TURNS)
    print(
        f"  agent-cli's share at {HISTORY_TURNS[1]:,} vs {HISTORY_TURNS[0]:,} turns:"
        f" {own_share(figures):.2f}x (target <= 1.5x; each request prepared with cold"
        f" caches, as in a session); wire alone {late['wire'] / early['wire']:.2f}x"
        f" (a rebuild from nothing {late['rebuild'] / early['rebuild']:.1f}x);"
        f" sdk {late['sdk'] / early['sdk']:.1f}x"
    )
    warm = {
        turns: back_to_back[turns]["prepare"] + back_to_back[turns]["wire"]
        for turns in HISTORY_TURNS
    }
    print(
        f"  back to back (warm at {HISTORY_TURNS[0]:,} turns, evicted by the SDK at"
        f" {HISTORY_TURNS[1]:,}): agent-cli {warm[HISTORY_TURNS[0]] * 1e3:.3f} ms and"
        f" {warm[HISTORY_TURNS[1]] * 1e3:.3f} ms, {own_share(back_to_back):.2f}x"
    )


def main() -> None:
    client = build_stub_client()
    send_through_sdk(client, build_wire_request(_one_message_request(), MODEL))  # warm up
    report(
        {turns: measure_turns(turns, client) for turns in HISTORY_TURNS},
        {turns: measure_turns(turns, client, keep_caches) for turns in HISTORY_TURNS},
    )


def _one_message_request() -> ModelRequest:
    return ModelRequest(
        system="s", durable_context="", messages=({"role": "user", "content": "hi"},), tools=()
    )


if __name__ == "__main__":
    main()
