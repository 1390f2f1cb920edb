"""Property: the wire builder sends exactly the views the API accepts, and refuses the rest.

A builder that refuses too much is as broken as one that sends too much (a session that
cannot send is blocked for good), so every refusal is checked against an independent
statement of the rules (`rule_broken`, written here from the API's documented rules, not
from the builder's code), and every accepted view must pass the strict fake and keep the
rules too. The generator makes plausible views and damages some of them, so that most
examples are sendable and the refusals that remain are the interesting ones.
"""

from __future__ import annotations

import json
from typing import Any

from fake_anthropic_rules import validate_request
from hypothesis import event, given, settings
from hypothesis import strategies as st

from agent_cli.errors import WireFormatError
from agent_cli.events import ModelRequest
from agent_cli.provider.wire import build_wire_request

READ_TOOL = {
    "name": "read_file",
    "description": "Read a file.",
    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
}
PRIVATE_NOISE = st.fixed_dictionaries(
    {}, optional={"_id": st.text(max_size=3), "_tokens": st.integers(0, 9)}
)
# Mostly real text; blank text is dropped by the builder, so it is the exception here.
TEXTS = st.sampled_from(["ok", "read the file", "done.", "two\nlines", "", " ", "\n"])
RESULT_TEXTS = st.sampled_from(["file body", "42 lines", "", " "])


def user(*content: Any) -> dict[str, Any]:
    return {"role": "user", "content": list(content)}


def assistant(*content: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": list(content)}


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **extra}


def tool_use(tool_id: str, **extra: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "read_file", "input": {"path": "a"}, **extra}


# --- the independent statement of the rules ----------------------------------------------


def _is_sent(block: dict[str, Any]) -> bool:
    """Blank text is not sent at all (the API refuses it; the builder leaves it out)."""
    return not (block["type"] == "text" and not block["text"].strip())


def _turns(messages: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Role runs of the blocks that are sent: what the API sees after merging roles."""
    turns: list[tuple[str, list[dict[str, Any]]]] = []
    for message in messages:
        content = message["content"]
        blocks = [text(content)] if isinstance(content, str) else content
        for block in filter(_is_sent, blocks):
            if turns and turns[-1][0] == message["role"]:
                turns[-1][1].append(block)
            else:
                turns.append((message["role"], [block]))
    return turns


def _answer_rule(calls: list[str], blocks: list[dict[str, Any]]) -> str | None:
    """The rule a user turn breaks when it answers the `calls` just made, if any."""
    kinds = [block["type"] for block in blocks]
    results = [block["tool_use_id"] for block in blocks if block["type"] == "tool_result"]
    if kinds[: len(results)] != ["tool_result"] * len(results):
        return "a tool_result after other content"
    if len(set(results)) != len(results):
        return "a call answered twice"
    if set(results) - set(calls):
        return "a result for a call not just made"
    if set(calls) - set(results):
        return "a call left unanswered"
    return None


def rule_broken(messages: list[dict[str, Any]]) -> str | None:
    """Which API rule the view breaks once blank text is left out, or None if it keeps them."""
    turns = _turns(messages)
    if not turns:
        return "nothing to send"
    if turns[0][0] != "user":
        return "the first message is not the user's"
    every_call: list[str] = []
    calls: list[str] = []
    for role, blocks in turns:
        foreign = "tool_result" if role == "assistant" else "tool_use"
        if any(block["type"] == foreign for block in blocks):
            return f"a {foreign} block in a {role} turn"
        if role == "assistant":
            calls = [block["id"] for block in blocks if block["type"] == "tool_use"]
            every_call += calls
            continue
        broken = _answer_rule(calls, blocks)
        if broken:
            return broken
        calls = []
    if calls:
        return "a call left unanswered at the end"
    if len(set(every_call)) != len(every_call):
        return "a tool_use id used twice"
    return None


# --- the generator ------------------------------------------------------------------------


@st.composite
def views(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Plausible prompt views; about one in three then damaged (blocks dropped, moved, blanked)."""
    opening = draw(st.sampled_from(["go"] * 9 + [" "]))
    messages: list[dict[str, Any]] = [user(text(opening, **draw(PRIVATE_NOISE)))]
    for turn in range(draw(st.integers(0, 4))):
        ids = [f"toolu_{turn}_{n}" for n in range(draw(st.integers(0, 3)))]
        messages.append(
            assistant(text(draw(TEXTS)), *[tool_use(i, **draw(PRIVATE_NOISE)) for i in ids])
        )
        results = [_result(draw, i) for i in ids]
        messages.append(user(*results, text(draw(TEXTS))))
    for _ in range(draw(st.sampled_from([0, 0, 0, 0, 1, 2]))):
        _damage(draw, messages)
    return messages


def _result(draw: st.DrawFn, tool_id: str) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": tool_id, "_artifact": "x"}
    content = draw(st.sampled_from(["text", "list", "missing"]))
    if content == "text":
        block["content"] = draw(RESULT_TEXTS)
    elif content == "list":
        block["content"] = [text(draw(RESULT_TEXTS))]
    if draw(st.booleans()):
        block["is_error"] = True
    return block


def _damage(draw: st.DrawFn, messages: list[dict[str, Any]]) -> None:
    index = draw(st.integers(0, len(messages) - 1))
    blocks = messages[index]["content"]
    if not isinstance(blocks, list):
        return
    action = draw(st.sampled_from(["drop", "reverse", "move", "blank"]))
    if action == "drop" and blocks:
        blocks.pop(draw(st.integers(0, len(blocks) - 1)))
    elif action == "reverse":
        blocks.reverse()
    elif action == "move" and blocks:
        target = messages[draw(st.integers(0, len(messages) - 1))]
        moved = blocks.pop()
        target["content"] = (
            [*target["content"], moved] if isinstance(target["content"], list) else [moved]
        )
    elif action == "blank":
        messages[index]["content"] = ""


# --- the properties -----------------------------------------------------------------------


def _request(messages: list[dict[str, Any]]) -> ModelRequest:
    return ModelRequest(
        system="You are a helpful agent.",
        durable_context=" facts ",
        messages=tuple(messages),
        tools=(READ_TOOL,),
        max_tokens=1024,
    )


@settings(max_examples=300, deadline=None)
@given(views())
def test_the_builder_sends_exactly_the_views_that_keep_the_rules(messages):
    broken = rule_broken(messages)
    try:
        wire = build_wire_request(_request(messages), "claude-test")
    except WireFormatError as refusal:
        event(f"refused: {broken}")
        assert broken is not None, f"refused ({refusal.reason}) a view that keeps every rule"
        return
    event("sent")
    assert broken is None, f"sent a view that breaks a rule: {broken}"
    validate_request(wire)
    assert json.dumps(wire).count('"cache_control"') <= 4


def test_the_rule_checker_itself_catches_each_rule():
    """The checker is only worth what it can catch: one view per rule, and a good one."""
    call, answer = assistant(tool_use("t1")), {"type": "tool_result", "tool_use_id": "t1"}
    cases = {
        None: [user(text("go")), call, user(answer)],
        "nothing to send": [user(text(" "))],
        "the first message is not the user's": [assistant(text("hi")), user(text("go"))],
        "a tool_result after other content": [user(text("go")), call, user(text("x"), answer)],
        "a call answered twice": [user(text("go")), call, user(answer, answer)],
        "a result for a call not just made": [user(answer)],
        "a call left unanswered": [user(text("go")), call, user(text("x"))],
        "a call left unanswered at the end": [user(text("go")), call],
        "a tool_use id used twice": [user(text("go")), call, user(answer), call, user(answer)],
    }
    for expected, messages in cases.items():
        assert rule_broken(messages) == expected, expected
