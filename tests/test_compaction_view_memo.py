"""The per-turn check's memo: exact for plain dicts, and for frozen messages too."""

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

from agent_cli.compaction import count_view, measure_view
from agent_cli.errors import ToolProtocolError
from agent_cli.frozen import freeze
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
    view = prepare(build_long_history(30))
    measure_view(view, counter)
    counter.counted.clear()
    added = prepare(call_pair("toolu_new", "fresh output"))
    view.extend(added)
    assert measure_view(view, counter) == TokenCounter(QuarterEncoding).count_messages(view)
    assert counter.counted == [id(message) for message in added]


def test_frozen_and_plain_views_measure_the_same() -> None:
    plain = build_long_history(25)
    assert measure_view(_frozen(plain), TokenCounter(QuarterEncoding)) == measure_view(
        plain, TokenCounter(QuarterEncoding)
    )


def test_a_plain_message_edited_in_place_behind_a_frozen_prefix_is_measured_again() -> None:
    counter = TokenCounter(QuarterEncoding)
    view = _frozen(build_long_history(10))
    edited = assistant([text("short")])
    view += [edited, user("ok")]
    before = measure_view(view, counter)
    edited["content"][0]["text"] = "a much longer text " * 50
    assert measure_view(view, counter) == TokenCounter(QuarterEncoding).count_messages(view)
    assert measure_view(view, counter) > before


def test_replacing_a_frozen_message_with_another_is_measured_again() -> None:
    counter = TokenCounter(QuarterEncoding)
    view = _frozen(build_long_history(10))
    before = measure_view(view, counter)
    view[2] = freeze(user([{**view[2]["content"][0], "content": "y" * 4_000}]))
    assert measure_view(view, counter) > before
    assert measure_view(view, counter) == TokenCounter(QuarterEncoding).count_messages(view)


def test_count_view_counts_a_view_whose_tool_call_is_still_running() -> None:
    counter = TokenCounter(QuarterEncoding)
    running = [*_frozen(build_long_history(5)), freeze(assistant([tool_use("toolu_running")]))]
    with pytest.raises(ToolProtocolError):
        measure_view(running, counter)
    assert count_view(running, counter) == counter.count_messages(running)


def test_count_view_of_a_valid_view_is_its_measure() -> None:
    view = _frozen(build_long_history(8))
    assert count_view(view, TokenCounter(QuarterEncoding)) == measure_view(
        view, TokenCounter(QuarterEncoding)
    )
