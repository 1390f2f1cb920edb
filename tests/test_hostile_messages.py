"""Fuzzed histories: refused by the protocol check, or compacted into a sendable view.

Histories come two ways: wholly random (any role, block types in any order, ids that
repeat or are empty, strings where lists belong, nested tool_result content) and valid
histories with a few targeted mutations. For each: `validate_tool_protocol` raises
`ToolProtocolError`, or `compact_context` (small random policies, a deterministic
summarizer) returns a view that passes the protocol again or raises
`MessageViewLimitExceeded`. Then the wire builder: it may refuse only with
`WireFormatError`, and never a compacted view of a history it would have sent as it
was (compaction must not make a sendable view unsendable; histories holding messages of
blank text only are left out of this rule: the builder drops those whole, so L3 may keep
a blank first message where a real request stood). No other exception escapes.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from compaction_support import make_counter, policies, valid_histories
from hostile_support import fuzz_settings
from hypothesis import event, given
from hypothesis import strategies as st

from agent_cli.compaction import CompactionPolicy, compact_context
from agent_cli.errors import MessageViewLimitExceeded, ToolProtocolError, WireFormatError
from agent_cli.events import ModelRequest
from agent_cli.protocol import validate_tool_protocol
from agent_cli.provider.wire import build_wire_request

IDS = (
    st.sampled_from(["toolu_1", "toolu_2", "toolu_3", "", " ", "toolu_1\n"])
    | st.none()
    | st.integers()
)
TEXTS = st.text(max_size=40) | st.sampled_from(["", "   ", "x" * 3_000, "[compact] total"])
ODD = (
    st.none()
    | st.integers()
    | st.booleans()
    | st.lists(st.integers(), max_size=2)
    | st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)
)


def summarize(old_messages: list[dict[str, Any]]) -> str:
    return f"Summary of {len(old_messages)} earlier messages."


part = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image", "tool_result", "document"]) | ODD},
    optional={"text": TEXTS | ODD, "source": st.just({"type": "base64"}) | ODD},
)
block = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": TEXTS | ODD}),
    st.fixed_dictionaries(
        {"type": st.just("tool_use"), "id": IDS},
        optional={
            "name": st.sampled_from(["bash", "read_file", ""]) | ODD,
            "input": st.just({"path": "a.py"}) | ODD,
        },
    ),
    st.fixed_dictionaries(
        {"type": st.just("tool_result"), "tool_use_id": IDS},
        optional={
            "content": TEXTS | st.lists(part, max_size=3) | ODD,
            "is_error": st.booleans() | ODD,
        },
    ),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["image", "thinking", "", "TEXT"]) | ODD},
        optional={"source": ODD, "thinking": TEXTS},
    ),
    TEXTS,
    ODD,
)
message = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["user", "assistant", "user", "assistant", "system", ""]) | ODD,
        "content": TEXTS | st.lists(block, max_size=4) | ODD,
    },
    optional={"_private": TEXTS},
)
random_histories = st.lists(message, max_size=10)


@st.composite
def mutated_histories(draw: st.DrawFn) -> list[Any]:
    """A valid history with one to three targeted mutations."""
    history = copy.deepcopy(draw(valid_histories()))
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.integers(0, len(history) - 1))
        how = draw(
            st.sampled_from(
                ["drop", "dup", "swap", "role", "content", "insert", "retype", "reid", "nest"]
            )
        )
        mutate(draw, history, index, how)
    return history


def mutate(draw: st.DrawFn, history: list[Any], index: int, how: str) -> None:
    target = history[index]
    content = target["content"] if isinstance(target["content"], list) else []
    blocks = [block_ for block_ in content if isinstance(block_, dict)]
    if how == "drop" and len(history) > 1:
        del history[index]
    elif how == "dup":
        history.insert(index, copy.deepcopy(target))
    elif how == "swap":
        other = draw(st.integers(0, len(history) - 1))
        history[index], history[other] = history[other], history[index]
    elif how == "role":
        target["role"] = "assistant" if target["role"] == "user" else "user"
    elif how == "content":
        target["content"] = draw(TEXTS | ODD)
    elif how == "insert":
        history.insert(index, draw(message))
    elif blocks:
        block_ = draw(st.sampled_from(blocks))
        if how == "retype":
            block_["type"] = draw(st.sampled_from(["text", "tool_use", "tool_result", "image"]))
        elif how == "reid":
            block_["id" if "id" in block_ else "tool_use_id"] = draw(IDS)
        elif how == "nest" and block_.get("type") == "tool_result":
            block_["content"] = [{"type": "text", "text": draw(TEXTS)}, draw(part)]


def probe(view: list[dict[str, Any]]) -> ModelRequest:
    messages = list(view)
    if messages and isinstance(messages[-1], dict) and messages[-1].get("role") == "assistant":
        messages.append({"role": "user", "content": "next"})
    return ModelRequest(system="s", durable_context="", messages=tuple(messages), tools=())


def is_sendable(view: list[Any]) -> bool:
    try:
        build_wire_request(probe(view), "probe-model")
    except WireFormatError:
        return False
    return True


def is_blank(message: Any) -> bool:
    """A message the wire builder drops whole: nothing but blank text. A history made of
    such messages is weird input; the API never sees them, so their order is lost."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return not content.strip()
    if not isinstance(content, list):
        return False
    return all(
        isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
        and not block["text"].strip()
        for block in content
    )


def check_history(history: list[Any], settings_: dict[str, int], reserved: int) -> str:
    """The whole contract for one history; returns the outcome for the statistics."""
    before = copy.deepcopy(history)
    try:
        validate_tool_protocol(history)
    except ToolProtocolError:
        return "refused by the protocol"
    was_sendable = is_sendable(history) and not any(is_blank(message) for message in history)
    try:
        result = compact_context(
            history,
            policy=CompactionPolicy(**settings_),
            summarizer=summarize,
            counter=make_counter()[0],
            reserved_tokens=reserved,
        )
    except MessageViewLimitExceeded:
        return "over the hard limit"
    assert history == before  # nothing given is mutated
    validate_tool_protocol(result.messages)
    if is_sendable(result.messages):
        return f"compacted ({len(result.reports)} layers), sendable"
    assert not was_sendable, "compaction made a sendable view unsendable"
    return "compacted, refused by the wire builder (input unsendable or blank)"


@pytest.mark.fuzz
@fuzz_settings()
@given(history=random_histories, settings_=policies(), reserved=st.integers(0, 300))
def test_a_random_history_is_refused_or_compacts_into_a_valid_view(history, settings_, reserved):
    event(check_history(history, settings_, reserved))


@pytest.mark.fuzz
@fuzz_settings(0.3)  # drawing a valid history first costs ~50 ms an example
@given(history=mutated_histories(), settings_=policies(), reserved=st.integers(0, 300))
def test_a_mutated_valid_history_is_refused_or_compacts_into_a_valid_view(
    history, settings_, reserved
):
    event(check_history(history, settings_, reserved))


@pytest.mark.parametrize(
    "history",
    [
        [{"role": "user", "content": [{"type": ["text"], "text": "x"}]}],
        [{"role": "user", "content": [{"type": {"a": 1}}]}],
        [
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t", "content": [{"type": ["text"]}]}
                ],
            }
        ],
        [{"role": ["user"], "content": "x"}],
    ],
)
def test_block_types_and_roles_that_are_lists_or_dicts_are_refused_by_type(history):
    """Found by the fuzz: these reached a set lookup and escaped as TypeError."""
    try:
        validate_tool_protocol(history)
    except ToolProtocolError:
        return
    with pytest.raises(WireFormatError):
        build_wire_request(probe(history), "probe-model")
