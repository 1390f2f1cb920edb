"""build_wire_request: what reaches the API is clean, paired, non-empty and cached."""

from __future__ import annotations

import copy
import dataclasses
import json

import pytest
from fake_anthropic_rules import validate_request

from agent_cli.errors import WireFormatError
from agent_cli.events import CACHE_NOTHING, CACHE_READ_PREFIX, ModelRequest
from agent_cli.provider.wire import build_wire_request

READ_TOOL = {
    "name": "read_file",
    "description": "Read a file.",
    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
}


def make_request(
    *messages, system="You are a helpful agent.", durable="", tools=(READ_TOOL,), max_tokens=1024
) -> ModelRequest:
    return ModelRequest(
        system=system,
        durable_context=durable,
        messages=tuple(messages),
        tools=tuple(tools),
        max_tokens=max_tokens,
    )


def user(*content):
    return {"role": "user", "content": list(content)}


def assistant(*content):
    return {"role": "assistant", "content": list(content)}


def text(value, **extra):
    return {"type": "text", "text": value, **extra}


def tool_use(tool_id, **extra):
    return {"type": "tool_use", "id": tool_id, "name": "read_file", "input": {"path": "a"}, **extra}


def tool_result(tool_id, content="file body", **extra):
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content, **extra}


def reason_of(request: ModelRequest) -> tuple[str, int | None]:
    with pytest.raises(WireFormatError) as caught:
        build_wire_request(request, "m")
    return caught.value.reason, caught.value.message_index


def all_keys(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {key for item in value.values() for key in all_keys(item)}
    if isinstance(value, list):
        return {key for item in value for key in all_keys(item)}
    return set()


def count_breakpoints(wire) -> int:
    return json.dumps(wire).count('"cache_control"')


def test_a_plain_question_becomes_a_cached_wire_request():
    wire = build_wire_request(make_request({"role": "user", "content": "hello"}), "claude-x")
    assert wire["model"] == "claude-x"
    assert wire["max_tokens"] == 1024
    assert wire["system"] == [
        {"type": "text", "text": "You are a helpful agent.", "cache_control": {"type": "ephemeral"}}
    ]
    assert wire["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "hello", "cache_control": {"type": "ephemeral"}}],
        }
    ]
    assert wire["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert set(wire) == {"model", "max_tokens", "system", "messages", "tools"}


def test_private_and_unknown_keys_are_stripped_everywhere():
    request = make_request(
        {"role": "user", "content": [text("read a", _id="u1", citations=None)], "_seq": 3},
        assistant(text("ok", _tokens=5), tool_use("t1", _started_at="now")),
        user(
            tool_result(
                "t1",
                [text("body", _origin="x"), text("")],
                _artifact="artifact:s:f:ab",
                is_error=False,
            )
        ),
        tools=({**READ_TOOL, "_owner": "toolbox", "cache_control": {"type": "ephemeral"}},),
    )
    wire = build_wire_request(request, "m")
    assert not [key for key in all_keys(wire) if key.startswith("_")]
    assert "citations" not in all_keys(wire)
    result = wire["messages"][2]["content"][0]
    assert result == {
        "type": "tool_result",
        "tool_use_id": "t1",
        "is_error": False,
        "content": [{"type": "text", "text": "body"}],
        "cache_control": {"type": "ephemeral"},
    }
    assert set(wire["tools"][0]) == {"name", "description", "input_schema", "cache_control"}


def test_the_request_is_never_mutated_and_the_wire_shares_nothing_with_it():
    request = make_request(
        user(text("go", cache_control={"type": "ephemeral"})),
        assistant(tool_use("t1")),
        user(tool_result("t1")),
        durable="facts: none",
    )
    before = copy.deepcopy(request)
    wire = build_wire_request(request, "m")
    assert request == before
    wire["messages"][1]["content"][0]["input"]["path"] = "changed"
    wire["tools"][0]["input_schema"]["type"] = "changed"
    assert request == before


def test_string_content_becomes_a_text_block():
    wire = build_wire_request(
        make_request(
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"},
            {"role": "user", "content": "again"},
        ),
        "m",
    )
    assert wire["messages"][1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "hello"}],
    }


def test_empty_and_blank_text_blocks_are_dropped():
    wire = build_wire_request(make_request(user(text(""), text("real"), text("  \n"))), "m")
    assert [block["text"] for block in wire["messages"][0]["content"]] == ["real"]


def test_a_message_left_empty_is_dropped_and_its_neighbours_merged():
    wire = build_wire_request(
        make_request(user(text("first")), assistant(text(" ")), user(text("second"))), "m"
    )
    assert len(wire["messages"]) == 1
    assert [block["text"] for block in wire["messages"][0]["content"]] == ["first", "second"]


def test_consecutive_user_messages_merge_in_order_with_results_first():
    wire = build_wire_request(
        make_request(
            user(text("read a and b")),
            assistant(tool_use("t1"), tool_use("t2")),
            user(tool_result("t2")),
            user(tool_result("t1")),
            user(text("and then?")),
        ),
        "m",
    )
    merged = wire["messages"][2]["content"]
    assert [block["type"] for block in merged] == ["tool_result", "tool_result", "text"]
    assert [block.get("tool_use_id") for block in merged[:2]] == ["t2", "t1"]
    assert len(wire["messages"]) == 3


def test_a_tool_result_after_user_text_is_refused_as_misplaced():
    request = make_request(
        user(text("go")), assistant(tool_use("t1")), user(text("wait"), tool_result("t1"))
    )
    assert reason_of(request) == ("tool_result_not_first", 2)


def test_a_tool_result_answering_an_older_assistant_message_is_refused():
    request = make_request(
        user(text("go")),
        assistant(tool_use("t1")),
        user(tool_result("t1")),
        assistant(text("done")),
        user(tool_result("t1")),
    )
    assert reason_of(request) == ("orphan_tool_result", 4)


def test_a_tool_result_in_the_first_message_is_an_orphan():
    assert reason_of(make_request(user(tool_result("t9")))) == ("orphan_tool_result", 0)


def test_an_unanswered_tool_use_is_refused_naming_its_message():
    request = make_request(
        user(text("go")), assistant(tool_use("t1"), tool_use("t2")), user(tool_result("t1"))
    )
    assert reason_of(request) == ("missing_tool_result", 1)


def test_assistant_messages_around_an_empty_user_message_merge_into_one_call():
    request = make_request(
        user(text("go")),
        assistant(tool_use("t1")),
        user(text(" ")),
        assistant(text("more")),
        user(tool_result("t1")),
    )
    wire = build_wire_request(request, "m")
    assert [message["role"] for message in wire["messages"]] == ["user", "assistant", "user"]
    assert [block["type"] for block in wire["messages"][1]["content"]] == ["tool_use", "text"]


def test_a_tool_use_answered_only_after_a_user_text_turn_is_refused():
    request = make_request(
        user(text("go")),
        assistant(tool_use("t1")),
        user(text("hm?")),
        assistant(text("more")),
        user(tool_result("t1")),
    )
    assert reason_of(request) == ("missing_tool_result", 1)


def test_duplicate_results_and_duplicate_tool_use_ids_are_refused():
    twice = make_request(
        user(text("go")), assistant(tool_use("t1")), user(tool_result("t1"), tool_result("t1"))
    )
    assert reason_of(twice) == ("duplicate_tool_result", 2)
    reused = make_request(
        user(text("go")),
        assistant(tool_use("t1")),
        user(tool_result("t1")),
        assistant(tool_use("t1")),
        user(tool_result("t1")),
    )
    assert reason_of(reused) == ("duplicate_tool_use_id", 3)


def test_the_view_must_start_with_a_user_message():
    assert reason_of(make_request(assistant(text("hi")), user(text("q")))) == (
        "starts_with_assistant",
        0,
    )


def test_a_view_with_nothing_left_to_send_is_refused():
    assert reason_of(make_request()) == ("no_messages", None)
    assert reason_of(make_request(user(text(" ")))) == ("no_messages", None)


@pytest.mark.parametrize(
    "message, reason",
    [
        ({"role": "system", "content": "x"}, "unknown_role"),
        ({"role": "user", "content": None}, "malformed_content"),
        (user({"type": "thinking", "thinking": "hmm"}), "unsupported_block"),
        (user(tool_use("t1")), "unsupported_block"),
        (user({"type": "text", "text": 5}), "malformed_text"),
        (user({"type": "image"}), "malformed_image"),
        (
            user(tool_result("t1", content=[{"type": "document"}])),
            "unsupported_tool_result_content",
        ),
        (user(tool_result("", content="x")), "malformed_tool_result"),
        (user(tool_result("t1", is_error="yes")), "malformed_tool_result"),
    ],
)
def test_blocks_the_api_would_reject_are_refused(message, reason):
    assert reason_of(make_request(message)) == (reason, 0)


@pytest.mark.parametrize("bad_id", ["", "toolu bad id", "t" * 257, "toolu_1\n"])
def test_a_tool_id_outside_the_api_grammar_is_refused_on_both_halves(bad_id):
    call = assistant({"type": "tool_use", "id": bad_id, "name": "x", "input": {}})
    request = make_request(user(text("go")), call, user(tool_result(bad_id)))
    assert reason_of(request) == ("malformed_tool_use", 1)
    call = assistant({"type": "tool_use", "id": "t1", "name": "x", "input": {}})
    request = make_request(user(text("go")), call, user(tool_result(bad_id)))
    assert reason_of(request) == ("malformed_tool_result", 2)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"n": {"type": "number", "maximum": float("inf")}}},
        {"type": "object", "properties": {"n": {"type": "number", "default": float("nan")}}},
        {"type": "object", "description": "lone \ud800 surrogate"},
    ],
)
def test_a_tool_strict_json_cannot_carry_is_refused_before_the_sdk_sees_it(schema):
    """The SDK's encoder (allow_nan=False, UTF-8) raised a bare ValueError on such a tool,
    a traceback on every request; the builder refuses it with a reason instead."""
    tool = {"name": "odd", "description": "d", "input_schema": schema}
    assert reason_of(make_request(user(text("q")), tools=(READ_TOOL, tool))) == (
        "unsendable_tool",
        None,
    )


def test_a_tool_use_without_an_object_input_is_refused():
    request = make_request(
        user(text("go")),
        assistant({"type": "tool_use", "id": "t1", "name": "x", "input": "[]"}),
        user(tool_result("t1")),
    )
    assert reason_of(request) == ("malformed_tool_use", 1)


def test_an_empty_tool_result_content_is_left_out_rather_than_sent_empty():
    wire = build_wire_request(
        make_request(
            user(text("go")), assistant(tool_use("t1")), user(tool_result("t1", content=""))
        ),
        "m",
    )
    assert "content" not in wire["messages"][2]["content"][0]
    validate_request(wire)


@pytest.mark.parametrize("content", ["", "  \n", [], [text(" ")], None])
def test_an_error_result_without_content_is_sent_with_a_short_text(content):
    # The API answers 400 "content cannot be empty if `is_error` is true"; a stored or
    # resumed view may hold such a result, and must still be sendable.
    result = tool_result("t1", content=content, is_error=True)
    if content is None:
        del result["content"]
    wire = build_wire_request(
        make_request(user(text("go")), assistant(tool_use("t1")), user(result)), "m"
    )
    sent = wire["messages"][2]["content"][0]
    assert sent["is_error"] is True and sent["content"].strip()
    validate_request(wire)


def test_durable_context_rides_in_the_newest_user_turn_after_the_breakpoint():
    wire = build_wire_request(make_request(user(text("q")), durable="pending: ship it"), "m")
    marked = {"cache_control": {"type": "ephemeral"}}
    assert wire["system"] == [{"type": "text", "text": "You are a helpful agent.", **marked}]
    assert wire["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "q", **marked},
                {"type": "text", "text": "pending: ship it"},
            ],
        }
    ]


def test_durable_context_follows_the_tool_results_of_the_newest_turn():
    wire = build_wire_request(
        make_request(
            user(text("go")), assistant(tool_use("t1")), user(tool_result("t1")), durable="facts"
        ),
        "m",
    )
    validate_request(wire)
    newest = wire["messages"][-1]["content"]
    assert [block["type"] for block in newest] == ["tool_result", "text"]
    assert "cache_control" in newest[0] and newest[1] == {"type": "text", "text": "facts"}
    assert wire["messages"][0]["content"] == [{"type": "text", "text": "go"}]


def test_a_changed_durable_block_leaves_the_cached_prefix_as_it_was():
    history = (user(text("go")), assistant(tool_use("t1")), user(tool_result("t1")))
    before = build_wire_request(make_request(*history, durable="- fact F1"), "m")
    after = build_wire_request(make_request(*history, durable="- fact F1\n- fact F2"), "m")
    assert before["system"] == after["system"] and before["tools"] == after["tools"]
    assert before["messages"][:-1] == after["messages"][:-1]
    assert before["messages"][-1]["content"][:-1] == after["messages"][-1]["content"][:-1]
    assert before["messages"][-1]["content"][-1] != after["messages"][-1]["content"][-1]


def test_a_paused_answer_sent_back_carries_the_durable_block_in_the_user_turn_before_it():
    wire = build_wire_request(
        make_request(user(text("q")), assistant(text("partial")), durable="facts"), "m"
    )
    assert wire["messages"][0]["content"][-1] == {"type": "text", "text": "facts"}
    assert wire["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}


def test_no_system_and_no_tools_are_left_out_instead_of_sent_empty():
    wire = build_wire_request(make_request(user(text("q")), system="", tools=()), "m")
    assert "system" not in wire and "tools" not in wire
    assert count_breakpoints(wire) == 1


def test_only_three_breakpoints_are_placed_whatever_the_input_carried():
    marked = {"cache_control": {"type": "ephemeral"}}
    wire = build_wire_request(
        make_request(
            user(text("a", **marked)),
            assistant(text("b", **marked)),
            user(text("c", **marked)),
            user(text("d", **marked)),
            durable="facts",
        ),
        "m",
    )
    assert count_breakpoints(wire) == 3
    assert "cache_control" in wire["messages"][-1]["content"][-2]  # before the durable block
    assert "cache_control" not in wire["messages"][-1]["content"][0]


@pytest.mark.parametrize(
    "tool, reason",
    [
        ({"name": "x"}, "malformed_tool"),
        ({"name": "", "input_schema": {}}, "malformed_tool"),
        ("read_file", "malformed_tool"),
    ],
)
def test_malformed_tool_schemas_are_refused(tool, reason):
    assert reason_of(make_request(user(text("q")), tools=(tool,))) == (reason, None)


def test_two_tools_with_one_name_are_refused():
    assert reason_of(make_request(user(text("q")), tools=(READ_TOOL, READ_TOOL))) == (
        "duplicate_tool_name",
        None,
    )


@pytest.mark.parametrize("max_tokens", [0, -5, 1.5])
def test_a_bad_max_tokens_is_refused(max_tokens):
    assert reason_of(make_request(user(text("q")), max_tokens=max_tokens)) == (
        "bad_max_tokens",
        None,
    )


def test_a_paused_answer_at_the_end_is_sent_back_with_its_trailing_space_trimmed():
    # pause_turn: the API wants the paused answer back as the final message to go on with it
    request = make_request(user(text("q")), assistant(text("Working on it  \n")))
    wire = build_wire_request(request, "claude-x")
    assert [m["role"] for m in wire["messages"]] == ["user", "assistant"]
    assert wire["messages"][-1]["content"][-1]["text"] == "Working on it"
    assert request.messages[-1]["content"][0]["text"] == "Working on it  \n"
    validate_request(wire)


def test_an_unanswered_tool_use_at_the_end_of_the_view_is_refused():
    request = make_request(user(text("q")), assistant(text("Reading."), tool_use("t1")))
    assert reason_of(request) == ("missing_tool_result", 1)


def test_a_one_off_last_message_ends_the_breakpoint_before_it_even_when_merged():
    """CACHE_READ_PREFIX (a summary request reusing the cached prefix): the instructions,
    merged into the turn of the result before them, come after the breakpoint."""
    request = dataclasses.replace(
        make_request(
            user(text("q")),
            assistant(tool_use("t1")),
            user(tool_result("t1")),
            {"role": "user", "content": "Summarize the above."},
        ),
        cache=CACHE_READ_PREFIX,
        cached_messages=3,
    )
    wire = build_wire_request(request, "m")
    last_turn = wire["messages"][-1]["content"]
    assert [block["type"] for block in last_turn] == ["tool_result", "text"]
    assert "cache_control" in last_turn[0] and "cache_control" not in last_turn[1]
    assert count_breakpoints(wire) == 3  # tools, system, and the end of the reused prefix


def test_a_request_reading_a_cached_prefix_ends_its_breakpoint_where_the_prefix_ends():
    """The messages after what the last request wrote (here a new question and its answer)
    are sent plain with the instructions: written, no later request would read them."""
    request = dataclasses.replace(
        make_request(
            user(text("q")),
            assistant(text("a")),
            user(text("next question")),
            assistant(text("next answer")),
            {"role": "user", "content": "Summarize the above."},
        ),
        cache=CACHE_READ_PREFIX,
        cached_messages=2,
    )
    wire = build_wire_request(request, "m")
    marked = [
        (at, block["text"])
        for at, message in enumerate(wire["messages"])
        for block in message["content"]
        if "cache_control" in block
    ]
    assert marked == [(1, "a")]
    nothing_cached = dataclasses.replace(request, cached_messages=0)
    assert count_breakpoints(build_wire_request(nothing_cached, "m")) == 2  # tools, system


def test_a_one_off_request_carries_no_breakpoint_at_all():
    request = dataclasses.replace(make_request(user(text("q"))), cache=CACHE_NOTHING)
    wire = build_wire_request(request, "m")
    assert count_breakpoints(wire) == 0 and wire["system"] and wire["tools"]
    assert count_breakpoints(build_wire_request(make_request(user(text("q"))), "m")) == 3


def test_an_unknown_cache_mode_is_refused():
    request = dataclasses.replace(make_request(user(text("q"))), cache="everything")
    assert reason_of(request) == ("bad_cache_mode", None)
