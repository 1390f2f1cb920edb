"""The rule that keeps a quarter of the hard limit for the conversation when a fact or
pending item is added, and its words (`session.durable_room`, `repl.error_text`)."""

from __future__ import annotations

import pytest

from agent_cli.durable import DurableContextState, DurableFact, add_fact
from agent_cli.errors import DurableBlockTooLarge
from agent_cli.events import Notice
from agent_cli.repl.error_text import describe_error, notice_text
from agent_cli.session.durable_room import (
    FixedPart,
    check_durable_room,
    fixed_part_notice,
    is_room_left,
    room_needed,
)

NOW = "2026-12-06T09:00:00+00:00"


def one_fact_state() -> DurableContextState:
    fact = DurableFact("F3", "the colour is blue", "transcript:s1:4", NOW)
    return add_fact(DurableContextState(), fact)


def test_the_conversation_keeps_a_quarter_of_the_hard_limit() -> None:
    assert room_needed(3_000) == 750
    assert is_room_left(2_250, 3_000)
    assert not is_room_left(2_251, 3_000)
    assert not is_room_left(3_000, 3_000)  # at the hard limit: never accepted
    assert not is_room_left(3_016, 3_000)


def test_an_item_that_leaves_too_little_room_is_refused_naming_the_oldest_fact() -> None:
    check_durable_room("remember", FixedPart(2_250, 400, 3_000), one_fact_state())
    with pytest.raises(DurableBlockTooLarge) as refused:
        check_durable_room("remember", FixedPart(3_016, 1_277, 3_000), one_fact_state())
    words = describe_error(refused.value)
    assert words == (
        "/remember refused, nothing added: with it every request would carry 3,016 tokens "
        "besides the conversation (the durable block 1,277 of them), at or over the hard "
        "limit 3,000, so no request could be sent. /forget F3 or another fact or item no "
        "longer needed (/facts lists them), or raise --hard-limit"
    )


def test_the_refusal_under_the_limit_says_how_much_room_is_left() -> None:
    with pytest.raises(DurableBlockTooLarge) as refused:
        check_durable_room("todo", FixedPart(2_400, 600, 3_000), DurableContextState())
    words = describe_error(refused.value)
    assert "leaving the conversation 600 of the hard limit 3,000, under the 750" in words
    assert words.startswith("/todo refused, nothing added")
    assert "/forget a fact or item" in words
    assert "/compact" not in words and "/new" not in words


def test_a_session_opened_with_facts_over_the_limit_is_told_so_naming_forget() -> None:
    notice = fixed_part_notice(FixedPart(3_016, 1_277, 3_000), one_fact_state())
    assert isinstance(notice, Notice)
    words = notice_text(notice)
    assert "over the hard limit 3,000: every request will be blocked" in words
    assert "/forget those no longer needed (/facts lists them; F3 is the oldest)" in words
    assert "/compact <" not in words and "or /new" not in words


def test_no_notice_when_there_is_room_or_the_facts_are_not_the_cause() -> None:
    assert fixed_part_notice(FixedPart(2_000, 300, 3_000), one_fact_state()) is None
    assert fixed_part_notice(FixedPart(3_100, 0, 3_000), DurableContextState()) is None
    # forgetting every fact would not make room: the blocked line says what fills it
    assert fixed_part_notice(FixedPart(3_100, 200, 3_000), one_fact_state()) is None


def blocked(reserved: int, durable: int) -> list[str]:
    from agent_cli.events import RequestBlocked
    from agent_cli.repl.compact_lines import format_blocked

    layers = ("L1", "L2", "L3", "L4")
    return format_blocked(RequestBlocked(3_343, 3_343, 3_000, layers, 400, reserved, durable))


def test_a_block_while_the_facts_crowd_the_conversation_advises_forget_not_compact() -> None:
    # the tester's run: blocked after L1-L4 with the fixed part at 2,548 of 3,000
    advice = " ".join(blocked(2_548, 809))
    assert "/forget the facts and items no longer needed" in advice
    assert "809 of the 2,548 tokens" in advice and "leaving it 452 of the hard limit" in advice
    assert "/compact <focus>" not in advice and "/new to start" not in advice
    assert "/compact <focus>" in " ".join(blocked(1_900, 300))  # room left: compacting may help
