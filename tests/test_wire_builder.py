"""WireBuilder: each request built from the last one's closed turns is the request
`build_wire_request` builds from nothing, refusals included.

The property drives one builder through a session's life: a view that grows a turn or
a few at a time, compactions that rewrite its start (a running digest, a summary, a
shorter view), one-off summary requests in between, and damaged tails, and compares
every answer with a build from nothing, as values and as the JSON sent.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from compaction_support import merge_digest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from test_wire_properties import READ_TOOL, assistant, text, tool_use, user

from agent_cli.compaction.digest.entries import Digest
from agent_cli.compaction.digest.removed_items import RequestEntry
from agent_cli.compaction.digest.render import build_digest_message
from agent_cli.errors import WireFormatError
from agent_cli.events import CACHE_CONVERSATION, CACHE_NOTHING, CACHE_READ_PREFIX, ModelRequest
from agent_cli.frozen import freeze
from agent_cli.provider.wire import WireBuilder, build_wire_request
from agent_cli.tokens import TokenCounter

Message = dict[str, Any]


def tool_turn(number: int, calls: int = 1) -> list[Message]:
    ids = [f"toolu_{number}_{n}" for n in range(calls)]
    results = [{"type": "tool_result", "tool_use_id": i, "content": f"out {i}"} for i in ids]
    return [assistant(text(f"step {number}"), *[tool_use(i) for i in ids]), user(*results)]


def digest_message(label: str) -> Message:
    removed = [RequestEntry(f"{label}: fix the build", "transcript:s1:1")]
    return build_digest_message(merge_digest(Digest(), removed, [], 400, TokenCounter()))


def request_of(
    view: list[Message], cache: str = CACHE_CONVERSATION, durable: str = "", cached: int = 0
) -> Any:
    return ModelRequest(
        system="You are agent-cli.",
        durable_context=durable,
        messages=tuple(view),
        tools=(READ_TOOL,),
        cache=cache,
        cached_messages=cached,
    )


def outcome(build: Any, request: ModelRequest) -> tuple[str, Any]:
    try:
        wire = build(request, "claude-test")
    except WireFormatError as refusal:
        return "refused", (refusal.reason, refusal.message_index)
    return "sent", json.dumps(wire)


def assert_same_as_from_nothing(builder: WireBuilder, request: ModelRequest) -> str:
    kept = outcome(builder.build, request)
    assert kept == outcome(build_wire_request, request)
    if kept[0] == "sent":
        assert builder.build(request, "claude-test") == build_wire_request(request, "claude-test")
    return kept[0]


# --- steps of a session's life ---------------------------------------------------------------

STEPS = st.sampled_from(
    [
        "grow",
        "grow",
        "grow",
        "grow many",
        "digest",
        "summary",
        "shorten",
        "one-off",
        "bounded",
        "pause",
        "damage",
        "plain",
    ]  # fmt: skip
)


def apply_step(step: str, view: list[Message], number: int, draw: st.DrawFn) -> list[Message]:
    """The next view of the session after `step` (frozen, as the session keeps it)."""
    if step == "grow":
        return view + [freeze(m) for m in tool_turn(number, draw(st.integers(0, 2)))]
    if step == "grow many":
        turns = [m for n in range(draw(st.integers(2, 5))) for m in tool_turn(number * 10 + n)]
        return view + [freeze(m) for m in turns]
    if step == "digest":  # a compaction: a digest first, the older half gone
        return [freeze(digest_message(f"r{number}")), freeze(user(text("go on"))), *view[-4:]]
    if step == "summary":  # a first request kept, then a summary
        return [view[0], freeze(user(text(f"summary {number}"))), *view[-2:]]
    if step == "shorten":
        return view[: max(1, len(view) - 2 * draw(st.integers(1, 3)))]
    if step == "pause":  # a paused answer sent back to be continued
        return view + [freeze(assistant(text(f"partial answer {number}  ")))]
    if step == "damage":  # a tail the API would refuse
        return view + [freeze(assistant(tool_use(f"toolu_orphan_{number}")))]
    if step == "plain":  # plain dicts, as an outside caller passes them
        return [dict(m) for m in view] + tool_turn(number)
    return view


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_every_request_equals_a_build_from_nothing_through_a_sessions_life(data):
    builder = WireBuilder()
    view = [freeze(user(text("make the tests pass")))]
    for number in range(data.draw(st.integers(3, 14))):
        step = data.draw(STEPS)
        if step == "one-off":  # a summary request reusing the cached prefix
            extra = freeze(user(text("summarize the above")))
            cached = data.draw(st.integers(0, len(view)))  # what the last request wrote
            reusing = request_of([*view, extra], CACHE_READ_PREFIX, cached=cached)
            assert_same_as_from_nothing(builder, reusing)
            continue
        if step == "bounded":  # a summary request that caches nothing
            assert_same_as_from_nothing(builder, request_of(view, CACHE_NOTHING))
            continue
        view = apply_step(step, view, number, data.draw)
        durable = data.draw(st.sampled_from(["", "facts: F1", "pending: ship it"]))
        event(assert_same_as_from_nothing(builder, request_of(view, durable=durable)))
        if step in ("pause", "damage"):
            view = view[:-1]


def test_a_long_session_reuses_the_closed_turns_and_still_sends_the_same_request():
    builder = WireBuilder()
    view = [freeze(user(text("go")))]
    for number in range(40):
        view += [freeze(m) for m in tool_turn(number)]
        request = request_of(view, durable="facts: none")
        assert builder.build(request, "m") == build_wire_request(request, "m")
    first = builder.build(request_of(view), "m")["messages"][1]
    assert builder.build(request_of(view), "m")["messages"][1] is first  # built once, kept


def test_a_duplicate_call_id_across_the_kept_turns_is_refused_as_from_nothing():
    builder = WireBuilder()
    view = [freeze(user(text("go")))] + [freeze(m) for n in range(5) for m in tool_turn(n)]
    builder.build(request_of(view), "m")
    again = view + [freeze(m) for m in tool_turn(1)]  # toolu_1_0 was called before
    with pytest.raises(WireFormatError) as refused:
        builder.build(request_of(again), "m")
    assert (refused.value.reason, refused.value.message_index) == ("duplicate_tool_use_id", 11)


def test_an_answer_to_a_kept_call_that_was_already_answered_is_refused_as_from_nothing():
    builder = WireBuilder()
    view = [freeze(user(text("go")))] + [freeze(m) for n in range(5) for m in tool_turn(n)]
    builder.build(request_of(view), "m")
    late = freeze(tool_turn(3)[1])  # answers toolu_3_0 again, after an answered turn
    request = request_of([*view, freeze(assistant(text("and?"))), late])
    assert outcome(builder.build, request) == outcome(build_wire_request, request)
    assert outcome(builder.build, request)[0] == "refused"


def test_a_frozen_message_is_sent_as_the_same_json_as_a_plain_one_key_order_included():
    """The prompt cache reads the request byte for byte: a frozen message's wire form may
    reuse its own blocks only where cleaning would send the very same JSON."""
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "body", "is_error": False}
    view = [user(text("go")), assistant(tool_use("t1")), user(result, text("next"))]
    plain = json.dumps(build_wire_request(request_of(view), "m"))
    assert json.dumps(build_wire_request(request_of([freeze(m) for m in view]), "m")) == plain
    builder = WireBuilder()
    builder.build(request_of([freeze(m) for m in view]), "m")
    longer = [*view, assistant(text("done"))]
    frozen = json.dumps(builder.build(request_of([freeze(m) for m in longer]), "m"))
    assert frozen == json.dumps(build_wire_request(request_of(longer), "m"))
