"""What a summary asked for now could free (`session.summary_reach`)."""

from __future__ import annotations

from typing import Any

from agent_cli.compaction.layers.summary import build_summary_messages
from agent_cli.session.summary_reach import summary_reach


def _tokens(message: dict[str, Any]) -> int:
    return len(str(message["content"]).split())


def _turn(words: int) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "word " * words},
        {"role": "assistant", "content": "ok"},
    ]


def test_the_reach_is_what_precedes_the_window_a_summary_keeps() -> None:
    messages = [*_turn(100), *_turn(50), *_turn(7)]
    assert summary_reach(messages, 2, _tokens) == 100 + 1 + 50 + 1
    assert summary_reach(messages, 6, _tokens) == 0  # all of it is the window


def test_the_previous_summary_is_carried_forward_not_freed() -> None:
    summary = build_summary_messages("Goal: ship it. " * 40, [{"role": "user", "content": "x"}])
    assert len(summary) == 2  # the summary and its acknowledgement
    messages = [*summary, *_turn(30), *_turn(7)]
    assert summary_reach(messages, 2, _tokens) == 30 + 1
