"""The view index: follows a growing view exactly, for plain dicts and frozen messages."""

from __future__ import annotations

from typing import Any

import pytest
from compaction_support import (
    QuarterEncoding,
    assistant,
    build_long_history,
    call_pair,
    text,
    tool_use,
    user,
)

from agent_cli.compaction import CompactionPolicy, ViewIndex, count_view, measure_view
from agent_cli.errors import ToolProtocolError
from agent_cli.frozen import FrozenList, freeze
from agent_cli.tokens import TokenCounter


class SpyingCounter(TokenCounter):
    """A counter that records which messages it was asked to count."""

    def __init__(self) -> None:
        super().__init__(load_encoding=QuarterEncoding)
        self.counted: list[int] = []

    def count_message(self, message: dict[str, Any]) -> int:
        self.counted.append(id(message))
        return super().count_message(message)


def _frozen(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [freeze(message) for message in messages]


@pytest.mark.parametrize("prepare", [list, _frozen], ids=["plain", "frozen"])
def test_an_extended_view_counts_only_what_was_appended(prepare) -> None:
    counter = SpyingCounter()
    index = ViewIndex(counter)
    view = prepare(build_long_history(30))
    index.measure(view)
    counter.counted.clear()
    added = prepare(call_pair("toolu_new", "fresh output"))
    view.extend(added)
    assert index.measure(view) == TokenCounter(QuarterEncoding).count_messages(view)
    assert counter.counted == [id(message) for message in added]
    assert index.length == len(view)


def test_frozen_and_plain_views_measure_the_same() -> None:
    plain = build_long_history(25)
    assert measure_view(_frozen(plain), TokenCounter(QuarterEncoding)) == measure_view(
        plain, TokenCounter(QuarterEncoding)
    )


def test_a_plain_message_edited_in_place_behind_a_frozen_prefix_is_measured_again() -> None:
    index = ViewIndex(TokenCounter(QuarterEncoding))
    view = _frozen(build_long_history(10))
    edited = assistant([text("short")])
    view += [edited, user("ok")]
    before = index.measure(view)
    edited["content"][0]["text"] = "a much longer text " * 50
    assert index.measure(view) == TokenCounter(QuarterEncoding).count_messages(view)
    assert index.measure(view) > before


def test_replacing_a_frozen_message_with_another_is_measured_again() -> None:
    index = ViewIndex(TokenCounter(QuarterEncoding))
    view = _frozen(build_long_history(10))
    before = index.measure(view)
    view[2] = freeze(user([{**view[2]["content"][0], "content": "y" * 4_000}]))
    assert index.measure(view) > before
    assert index.measure(view) == TokenCounter(QuarterEncoding).count_messages(view)


def test_count_view_counts_a_view_whose_tool_call_is_still_running() -> None:
    counter = TokenCounter(QuarterEncoding)
    index = ViewIndex(counter)
    running = [*_frozen(build_long_history(5)), freeze(assistant([tool_use("toolu_running")]))]
    with pytest.raises(ToolProtocolError):
        index.measure(running)
    assert index.length == 0  # a view that is not valid is not indexed
    assert index.count(running) == counter.count_messages(running)
    assert count_view(running, counter) == counter.count_messages(running)


def test_a_call_still_running_keeps_what_the_index_holds() -> None:
    """The gauge measures while a tool runs: the history indexed before stays indexed, so
    the next measure counts only the call and its results."""
    counter = SpyingCounter()
    index = ViewIndex(counter)
    view = _frozen(build_long_history(8))
    index.measure(view)
    call, results = _frozen(call_pair("toolu_next", "output"))
    index.count([*view, call])
    assert index.length == len(view)
    counter.counted.clear()
    index.measure([*view, call, results])
    assert counter.counted == [id(call), id(results)]


def test_count_view_of_a_valid_view_is_its_measure() -> None:
    view = _frozen(build_long_history(8))
    assert count_view(view, TokenCounter(QuarterEncoding)) == measure_view(
        view, TokenCounter(QuarterEncoding)
    )


def test_a_shorter_view_is_indexed_again_from_the_start() -> None:
    """A view that is not an extension (a compaction's output, a restore) rebuilds the
    index: its count is the new view's, not the old total's."""
    counter = SpyingCounter()
    index = ViewIndex(counter)
    view = _frozen(build_long_history(20))
    index.measure(view)
    shorter = [view[0], *view[-4:]]
    counter.counted.clear()
    assert index.measure(shorter) == TokenCounter(QuarterEncoding).count_messages(shorter)
    assert counter.counted == [id(message) for message in shorter]
    assert index.length == len(shorter)


def test_a_policy_with_another_read_rule_rebuilds_the_index() -> None:
    from agent_cli.compaction import CompactionPolicy

    counter = SpyingCounter()
    index = ViewIndex(counter)
    view = _frozen(build_long_history(6))
    index.measure(view)
    counter.counted.clear()
    index.measure(view, CompactionPolicy(read_tool_names={"cat"}))
    assert counter.counted == [id(message) for message in view]


def test_two_indexes_on_one_counter_do_not_share_what_they_hold() -> None:
    """No state outside the index: a second index on the same counter starts empty."""
    counter = SpyingCounter()
    view = _frozen(build_long_history(6))
    ViewIndex(counter).measure(view)
    counter.counted.clear()
    other = ViewIndex(counter)
    assert other.length == 0
    other.measure(view)
    assert counter.counted == [id(message) for message in view]


def test_the_index_reports_the_tokens_of_the_view_it_measured_last():
    """`ViewIndex.tokens` is what `measure` returned for the view it holds (0 before any)."""
    index = ViewIndex(TokenCounter())
    assert index.tokens == 0
    view = [user("first request"), assistant("an answer"), user("second request")]
    first = index.measure(view[:2])
    assert first == index.tokens > 0
    whole = index.measure(view)
    assert whole == index.tokens > first


def _with_sized_block(kind: str) -> dict[str, Any]:
    """A user message holding an image (in a tool_result's content) or a document block."""
    block: dict[str, Any] = {"type": kind, "source": {"type": "base64", "data": "AAAA"}}
    if kind == "image":
        block["source"]["media_type"] = "image/png"
        result = {"type": "tool_result", "tool_use_id": "toolu_img", "content": [block]}
        return user([result])
    return user([block, text("read this")])


@pytest.mark.parametrize("kind", ["image", "document"])
def test_the_index_knows_whether_its_view_holds_content_the_api_sizes(kind) -> None:
    """What the API bills by its own sizing is found as messages are indexed, so a request
    asks the index, not a walk of the whole view; a view the index did not measure last is
    walked; a view rebuilt without the block no longer holds it."""
    index = ViewIndex(TokenCounter(QuarterEncoding))
    plain = _frozen(build_long_history(12))
    index.measure(plain)
    assert not index.holds_sized_content(plain)
    sized = _with_sized_block(kind)
    if kind == "image":
        opened = [assistant([tool_use("toolu_img", "read_file", {"path": "a.png"})]), sized]
    else:
        opened = [sized]
    grown = [*plain, *_frozen(opened), *_frozen([assistant([text("seen")])])]
    index.measure(grown)
    assert index.holds_sized_content(grown)
    grown.extend(_frozen(call_pair("toolu_after", "more output")))
    index.measure(grown)
    assert index.holds_sized_content(grown)  # appended after it: still held
    assert index.holds_sized_content(list(grown))  # another list, walked: the same answer
    assert not index.holds_sized_content(list(plain))
    index.measure(plain)  # not a prefix: indexed again from the start
    assert not index.holds_sized_content(plain)


def test_the_very_frozen_view_measured_last_is_not_walked_again(monkeypatch) -> None:
    """A `FrozenList` of frozen messages cannot change: measured again (a request measures
    its view several times), it is not compared with what the index holds; another list of
    the same messages is, and a view under another read rule is indexed again."""
    index = ViewIndex(TokenCounter(QuarterEncoding))
    view = FrozenList(build_long_history(20))
    tokens = index.measure(view)
    compared: list[int] = []
    walk = ViewIndex._is_prefix_of
    monkeypatch.setattr(
        ViewIndex, "_is_prefix_of", lambda self, m: compared.append(len(m)) or walk(self, m)
    )
    assert index.measure(view) == tokens
    assert compared == []
    assert index.measure(list(view)) == tokens
    assert compared == [len(view)]
    other_rule = CompactionPolicy(read_tool_names=frozenset({"cat_file"}))
    assert index.measure(view, other_rule) == tokens and index.length == len(view)


def test_a_block_whose_type_is_no_string_is_no_image_nor_a_crash() -> None:
    """Found by the hostile-history property test: a tool_result block `{"type": []}`
    made the index's image-or-document check raise TypeError (a list is unhashable)."""
    odd = user([{"type": "tool_result", "tool_use_id": "toolu_odd", "content": [{"type": []}]}])
    view = [user("go"), assistant([tool_use("toolu_odd", "bash", {"command": "ls"})]), odd]
    index = ViewIndex(TokenCounter(QuarterEncoding))
    index.measure(view)
    assert not index.holds_sized_content(view)
