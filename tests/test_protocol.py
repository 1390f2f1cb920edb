"""Tool pairing: validation over the whole history and atomic removal of interactions."""

from __future__ import annotations

import copy

import pytest
from compaction_support import assistant, call_pair, read_use, text, tool_result, tool_use, user

from agent_cli.errors import ToolProtocolError
from agent_cli.protocol import (
    MAX_TOOL_USE_ID_CHARS,
    Interaction,
    ProtocolScan,
    apply_changes,
    collect_tool_ids,
    find_answer_id_problem,
    remove_tool_interactions,
    rename_malformed_tool_ids,
    renamed_tool_use_id,
    strip_interactions,
    validate_tool_protocol,
)


def _parallel_history():
    return [
        user("Look at both files."),
        assistant([text("Reading both."), read_use("a", "x.py"), read_use("b", "y.py")]),
        user([tool_result("b", "y body"), tool_result("a", "x body"), text("and hurry")]),
        assistant("Both read."),
    ]


def _reason_of(messages):
    with pytest.raises(ToolProtocolError) as caught:
        validate_tool_protocol(messages)
    return caught.value


def test_a_valid_history_maps_each_id_to_its_two_messages():
    history = [user("go"), *call_pair("a"), assistant("done")]
    assert validate_tool_protocol(history) == {"a": Interaction(1, 2)}


def test_parallel_calls_and_results_in_one_message_are_valid():
    interactions = validate_tool_protocol(_parallel_history())
    assert interactions == {"a": Interaction(1, 2), "b": Interaction(1, 2)}


def test_string_content_and_a_history_without_tools_are_valid():
    assert validate_tool_protocol([user("hi"), assistant("hello"), user("bye")]) == {}
    assert validate_tool_protocol([]) == {}


def test_a_tool_use_without_result_is_missing():
    error = _reason_of([user("go"), assistant([tool_use("a")]), user("no answer")])
    assert (error.reason, error.tool_use_id, error.message_index) == ("missing_result", "a", 1)


def test_a_result_for_no_tool_use_is_unknown():
    error = _reason_of([user("go"), assistant("hm"), user([tool_result("ghost")])])
    assert (error.reason, error.tool_use_id, error.message_index) == ("unknown_id", "ghost", 2)


def test_a_result_before_its_tool_use_is_out_of_order():
    history = [user([tool_result("a")]), assistant([tool_use("a")]), user("later")]
    error = _reason_of(history)
    assert (error.reason, error.tool_use_id, error.message_index) == ("result_before_use", "a", 0)


def test_a_repeated_tool_use_id_is_a_duplicate():
    history = [user("go"), *call_pair("a"), *call_pair("a")]
    error = _reason_of(history)
    assert (error.reason, error.tool_use_id, error.message_index) == ("duplicate_id", "a", 3)


def test_a_second_result_for_one_call_is_a_duplicate():
    history = [user("go"), *call_pair("a"), assistant("ok"), user([tool_result("a")])]
    assert _reason_of(history).reason == "duplicate_result"


def test_a_repeated_id_is_a_duplicate_while_its_first_call_is_still_open():
    """The second call reuses the id before the first is answered: one result would then
    seem to answer both, and the API refuses the history."""
    same_message = [user("go"), assistant([tool_use("a"), tool_use("a")]), user([tool_result("a")])]
    error = _reason_of(same_message)
    assert (error.reason, error.tool_use_id, error.message_index) == ("duplicate_id", "a", 1)
    later_message = [
        user("go"),
        assistant([tool_use("a")]),
        user("no answer yet"),
        assistant([tool_use("a")]),
        user([tool_result("a")]),
    ]
    error = _reason_of(later_message)
    assert (error.reason, error.tool_use_id, error.message_index) == ("duplicate_id", "a", 3)


MALFORMED_IDS = [
    "toolu bad id",
    "t" * (MAX_TOOL_USE_ID_CHARS + 1),
    "t" * 100_000,
    "toolu_1\n",
    "toolu_\u00e9",
    "toolu.1",
    "a/b",
]


@pytest.mark.parametrize("bad_id", MALFORMED_IDS, ids=range(len(MALFORMED_IDS)))
def test_ids_outside_the_api_grammar_are_malformed_on_both_sides(bad_id):
    error = _reason_of([user("go"), *call_pair(bad_id)])
    assert (error.reason, error.message_index, error.tool_use_id) == ("malformed_id", 1, None)
    error = _reason_of([user([tool_result(bad_id)])])
    assert (error.reason, error.message_index) == ("malformed_id", 0)


def test_the_longest_id_and_every_character_of_the_grammar_are_accepted():
    longest = "t" * MAX_TOOL_USE_ID_CHARS
    every = "azAZ09_-"
    assert set(validate_tool_protocol([user("go"), *call_pair(longest), *call_pair(every)])) == {
        longest,
        every,
    }


def test_an_answer_is_judged_by_its_ids_names_and_the_history_it_would_join():
    history = [user("go"), *call_pair("a")]

    def problem(*uses):
        return find_answer_id_problem(assistant([text("x"), *uses]), history)

    assert problem(tool_use("b"), tool_use("c")) is None
    assert problem(tool_use("")) == "empty_id"
    assert problem({"type": "tool_use", "name": "bash", "input": {}}) == "empty_id"
    assert problem(tool_use("b"), tool_use("b c")) == "malformed_id"
    assert problem(tool_use("b", name="")) == "empty_name"
    assert problem(tool_use("b"), tool_use("b")) == "duplicate_id"
    assert problem(tool_use("a")) == "duplicate_id"


def test_empty_ids_are_rejected_on_both_sides():
    assert _reason_of([user("go"), assistant([tool_use("")])]).reason == "empty_id"
    assert _reason_of([user([tool_result("")])]).reason == "empty_id"


def test_tool_blocks_under_the_wrong_role_are_rejected():
    wrong_use = [user([tool_use("a")]), assistant([tool_result("a")])]
    assert _reason_of(wrong_use).reason == "tool_use_outside_assistant"
    wrong_result = [user("go"), assistant([tool_use("a"), tool_result("a")])]
    assert _reason_of(wrong_result).reason == "tool_result_outside_user"


def test_a_message_without_a_known_role_is_malformed():
    error = _reason_of([user("go"), {"role": "system", "content": "x"}])
    assert (error.reason, error.message_index) == ("malformed_message", 1)


def test_a_protocol_error_is_a_value_error_without_message_text():
    secret = "password=hunter2"
    error = _reason_of([user(secret), assistant([tool_use("a")]), user(secret)])
    assert isinstance(error, ValueError)
    assert secret not in str(error)


def test_an_incremental_scan_sees_a_duplicate_of_an_id_from_the_known_prefix():
    prefix = [user("go"), *call_pair("a")]
    known = validate_tool_protocol(prefix)
    scan = ProtocolScan(known=known)
    with pytest.raises(ToolProtocolError) as caught:
        scan.feed(call_pair("a"), start_index=len(prefix))
    assert (caught.value.reason, caught.value.message_index) == ("duplicate_id", 3)


def test_an_incremental_scan_sees_a_second_result_for_a_known_call():
    prefix = [user("go"), *call_pair("a")]
    scan = ProtocolScan(known=validate_tool_protocol(prefix))
    with pytest.raises(ToolProtocolError) as caught:
        scan.feed([assistant("ok"), user([tool_result("a")])], start_index=len(prefix))
    assert (caught.value.reason, caught.value.message_index) == ("duplicate_result", 4)


def test_removal_takes_both_halves_and_keeps_other_blocks():
    history = _parallel_history()
    result = remove_tool_interactions(history, ["a"])
    assert result[1]["content"] == [text("Reading both."), read_use("b", "y.py")]
    assert result[2]["content"] == [tool_result("b", "y body"), text("and hurry")]
    assert validate_tool_protocol(result) == {"b": Interaction(1, 2)}


def test_removal_drops_messages_left_empty():
    history = [user("go"), *call_pair("a"), assistant("done"), user("next")]
    result = remove_tool_interactions(history, {"a"})
    assert result == [user("go"), assistant("done"), user("next")]


def test_removal_never_mutates_and_shares_untouched_messages():
    history = _parallel_history()
    before = copy.deepcopy(history)
    result = remove_tool_interactions(history, ["a", "b"])
    assert history == before
    assert result[0] is history[0] and result[-1] is history[-1]
    assert result[1] is not history[1]


def test_removing_no_ids_returns_a_new_list_of_the_same_messages():
    history = _parallel_history()
    result = remove_tool_interactions(history, [])
    assert result == history and result is not history
    assert all(new is old for new, old in zip(result, history, strict=True))


def test_removal_at_known_places_equals_removal_by_scanning():
    history = _parallel_history() + [*call_pair("c"), assistant("end")]
    interactions = validate_tool_protocol(history)
    for ids in (["a"], ["a", "b"], ["c"], ["b", "c"]):
        assert remove_tool_interactions(
            history, ids, interactions=interactions
        ) == remove_tool_interactions(history, ids)


def test_tool_ids_are_collected_in_order_by_kind():
    history = _parallel_history()
    assert collect_tool_ids(history, "tool_use") == ["a", "b"]
    assert collect_tool_ids(history, "tool_result") == ["b", "a"]


def test_strip_interactions_lists_only_the_messages_that_change():
    history = [
        user("go"),
        assistant([text("reading"), tool_use("a"), tool_use("b")]),
        user([tool_result("a"), tool_result("b")]),
        assistant([tool_use("c")]),
        user([tool_result("c")]),
    ]
    changes = strip_interactions(history, {"a", "c"}, validate_tool_protocol(history))
    assert sorted(changes) == [1, 2, 3, 4]
    assert changes[1] == assistant([text("reading"), tool_use("b")])
    assert changes[2] == user([tool_result("b")])
    assert changes[3] is None and changes[4] is None
    assert apply_changes(history, changes) == remove_tool_interactions(history, {"a", "c"})
    assert strip_interactions(history, {"zzz"}, validate_tool_protocol(history)) == {}


def test_malformed_ids_are_renamed_alike_on_both_halves_and_nothing_else_changes():
    bad_call = [assistant([text("x"), tool_use("a b")]), user([tool_result("a b", "body")])]
    history = [user("go"), *call_pair("ok"), *bad_call, assistant([tool_use(None)])]
    before = copy.deepcopy(history)
    renamed, renames = rename_malformed_tool_ids(history)
    assert history == before
    new_id = renamed_tool_use_id("a b")
    assert renames == {"a b": new_id} and new_id == renamed_tool_use_id("a b")
    assert renamed[3]["content"] == [text("x"), tool_use(new_id)]
    assert renamed[4]["content"] == [tool_result(new_id, "body")]
    assert all(renamed[i] is history[i] for i in (0, 1, 2, 5))  # shared, not copied
    assert renamed[5]["content"][0]["id"] is None  # not a string: left for validation
    validate_tool_protocol(renamed[:5])


@pytest.mark.parametrize("value", [float("nan"), float("inf"), "caf\udce9"])
def test_an_answer_whose_tool_input_strict_json_cannot_carry_is_refused(value) -> None:
    from agent_cli.protocol import UNSENDABLE_INPUT, find_answer_id_problem

    answer = {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "toolu_x", "name": "read_file", "input": {"n": value}}
        ],
    }
    assert find_answer_id_problem(answer, []) == UNSENDABLE_INPUT


@pytest.mark.parametrize(
    "block",
    [
        {"type": "text", "text": "caf\ud800e"},
        {"type": "tool_use", "id": "toolu_x", "name": "read\udc00file", "input": {}},
        {"type": "thinking", "thinking": "\udfff", "signature": "sig"},
    ],
    ids=["text", "tool name", "thinking"],
)
def test_an_answer_holding_text_utf8_cannot_carry_is_refused(block) -> None:
    """LOSS-6: only a tool input was checked; a lone surrogate in the text or a tool's
    name failed the turn at the store instead."""
    from agent_cli.protocol import UNSENDABLE_TEXT, find_answer_id_problem

    answer = {"role": "assistant", "content": [block]}
    assert find_answer_id_problem(answer, []) == UNSENDABLE_TEXT
    fine = {"role": "assistant", "content": [{"type": "text", "text": "caf\u00e9 \U0001f600"}]}
    assert find_answer_id_problem(fine, []) is None


def test_a_refused_store_value_is_not_blamed_on_the_state_folder() -> None:
    from agent_cli.errors import InvalidStoreInput
    from agent_cli.repl.error_text import describe_failed_write

    words = describe_failed_write(InvalidStoreInput("payload", "not_utf8"))
    assert "state folder is fine" in words and "Check the state folder" not in words
