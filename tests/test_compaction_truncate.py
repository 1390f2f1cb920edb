"""L1 truncate_tool_results: bounded head and tail, honest marker, never a bigger result."""

from __future__ import annotations

import copy

import pytest
from compaction_support import assistant, call_pair, make_counter, text, tool_result, user

from agent_cli.compaction import CompactionPolicy, ToolProtocolError, truncate_tool_results


def _numbered_lines(count: int) -> str:
    return "".join(f"line {number:05d}\n" for number in range(count))


def _history(result):
    return [user("go"), *call_pair("a", result), assistant("done"), user("next")]


def test_a_large_string_result_keeps_its_head_and_tail_around_a_marker():
    counter, _ = make_counter()
    body = _numbered_lines(2_000)  # 22,000 characters, 5,500 fake tokens
    view, saved = truncate_tool_results(
        _history(body), CompactionPolicy(max_tool_result_tokens=300), counter
    )
    cut = view[2]["content"][0]["content"]
    assert cut.startswith("line 00000\n")
    assert cut.endswith("line 01999\n")
    assert "5,500 tokens" in cut and "22,000 characters" in cut
    assert counter.count_text(cut) <= 300
    assert saved == counter.count_text(body) - counter.count_text(cut)


def test_the_marker_counts_the_characters_cut_and_the_head_keeps_about_twice_the_tail():
    counter, _ = make_counter()
    body = _numbered_lines(2_000)
    view, _ = truncate_tool_results(
        _history(body), CompactionPolicy(max_tool_result_tokens=300), counter
    )
    head, rest = view[2]["content"][0]["content"].split("\n[... ", 1)
    omitted = int(rest.split(" characters cut", 1)[0].replace(",", ""))
    tail = rest.split(" ...]\n", 1)[1]
    assert len(head) + omitted + len(tail) == len(body)
    assert 1.5 * len(tail) < len(head) < 2.5 * len(tail)


def test_a_result_within_the_budget_is_left_as_the_same_object():
    counter, _ = make_counter()
    history = _history("small result")
    view, saved = truncate_tool_results(history, CompactionPolicy(), counter)
    assert saved == 0
    assert all(new is old for new, old in zip(view, history, strict=True))


def test_a_list_result_keeps_its_blocks_and_its_images():
    counter, _ = make_counter()
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"},
    }
    blocks = [text(_numbered_lines(1_000)), image, text(_numbered_lines(500))]
    view, saved = truncate_tool_results(
        _history(blocks), CompactionPolicy(max_tool_result_tokens=2_000), counter
    )
    new_blocks = view[2]["content"][0]["content"]
    assert [block["type"] for block in new_blocks] == ["text", "image", "text"]
    assert new_blocks[1] == image
    assert "cut by context compaction" in new_blocks[0]["text"]
    assert saved > 0


def test_a_result_barely_over_the_budget_is_not_grown_by_the_marker():
    counter, _ = make_counter()
    history = _history("x" * 44)  # 11 fake tokens; the marker alone costs more
    view, saved = truncate_tool_results(
        history, CompactionPolicy(max_tool_result_tokens=10), counter
    )
    assert saved == 0
    assert view[2] is history[2]


def test_text_next_to_a_result_in_the_same_message_stays():
    counter, _ = make_counter()
    history = [
        user("go"),
        assistant([{"type": "tool_use", "id": "a", "name": "bash", "input": {}}]),
        user([tool_result("a", _numbered_lines(2_000)), text("also, be quick")]),
    ]
    view, _ = truncate_tool_results(history, CompactionPolicy(max_tool_result_tokens=100), counter)
    assert view[2]["content"][1] == text("also, be quick")
    assert view[2]["content"][0]["tool_use_id"] == "a"


def test_truncation_never_mutates_its_input():
    counter, _ = make_counter()
    history = _history([text(_numbered_lines(3_000))])
    before = copy.deepcopy(history)
    truncate_tool_results(history, CompactionPolicy(max_tool_result_tokens=50), counter)
    assert history == before


def test_truncation_refuses_an_invalid_history():
    with pytest.raises(ToolProtocolError):
        truncate_tool_results([user("go"), user([tool_result("nobody")])])


def test_a_result_of_many_small_blocks_keeps_its_first_and_last_blocks_within_the_budget():
    counter, _ = make_counter()
    blocks = [text(f"block {number:03d} " + "word " * 95) for number in range(100)]
    view, saved = truncate_tool_results(
        _history(blocks), CompactionPolicy(max_tool_result_tokens=1_000), counter
    )
    new_blocks = view[2]["content"][0]["content"]
    assert all(block["type"] == "text" and block["text"] for block in new_blocks)
    assert new_blocks[0]["text"].startswith("block 000 ")
    assert new_blocks[-1]["text"].startswith("block 099 ")
    assert sum("cut by context compaction" in block["text"] for block in new_blocks) == 1
    assert counter.count_content(new_blocks) <= 1_000
    assert saved == counter.count_messages(_history(blocks)) - counter.count_messages(view)


def test_a_cut_result_is_counted_from_its_parts_not_tokenized_again():
    counter, encoding = make_counter()
    body, blocks = _numbered_lines(2_000), [text(_numbered_lines(900)), text(_numbered_lines(900))]
    for result in (body, blocks):
        history = _history(result)
        counter.count_messages(history)  # the session counted the view before
        calls = encoding.calls
        view, saved = truncate_tool_results(
            history, CompactionPolicy(max_tool_result_tokens=300), counter
        )
        assert saved > 0
        assert encoding.calls - calls <= 2  # the markers; never the cut texts
        fresh, _ = make_counter()  # and the figure stays close to a real count
        assert abs(counter.count_messages(view) - fresh.count_messages(view)) <= 4


def test_a_cut_result_names_the_record_that_holds_it_whole():
    """The marker of a cut result in a message the session recorded carries that
    record's pointer, so what was cut is one recall away; without one, it names none."""
    from agent_cli.compaction.markers import SOURCE_KEY
    from agent_cli.frozen import freeze

    output = "".join(f"line {n}: a value that is only in this output\n" for n in range(400))
    history = [user("go"), *call_pair("t1", output), user("ok")]
    recorded = [{**m, SOURCE_KEY: f"transcript:s1:{i + 1}"} for i, m in enumerate(history)]
    policy = CompactionPolicy(max_tool_result_tokens=300)
    for view in (recorded, [freeze(m) for m in recorded]):
        cut, saved = truncate_tool_results(view, policy)
        assert saved > 0
        assert "; recall transcript:s1:3 for all of it ...]" in cut[2]["content"][0]["content"]
    plain, _ = truncate_tool_results(history, policy)
    assert "characters cut by context compaction" in plain[2]["content"][0]["content"]
    assert "recall" not in plain[2]["content"][0]["content"]


def test_a_cut_spilled_output_keeps_its_artifact_pointer_and_names_no_second_way_back():
    from agent_cli.compaction.markers import SOURCE_KEY

    artifact = "artifact:s1:" + "a" * 32 + ".txt:" + "b" * 64
    output = "".join(f"line {n}: preview\n" for n in range(400)) + f"[Full output: {artifact}]"
    history = [user("go"), *call_pair("t1", output), user("ok")]
    recorded = [{**m, SOURCE_KEY: f"transcript:s1:{i + 1}"} for i, m in enumerate(history)]
    cut, _ = truncate_tool_results(recorded, CompactionPolicy(max_tool_result_tokens=300))
    kept = cut[2]["content"][0]["content"]
    assert artifact in kept and "characters cut by context compaction" in kept
    assert "recall transcript:" not in kept
