"""The prompt-cache model behind the fake's usage figures, rule by rule."""

from __future__ import annotations

import base64
import copy
import math
import struct

import pytest

from agent_cli.tokens import TokenCounter
from bench.prompt_cache import (
    MIN_CACHEABLE_TOKENS,
    PromptCacheModel,
    PromptCost,
    build_prompt_blocks,
    count_block_tokens,
)

MARK = {"type": "ephemeral"}
LONG = "The agent reads files and answers briefly. " * 120  # about 1,300 tokens


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def request(*turns: str, system: str = LONG, mark_last: bool = True) -> dict:
    """A body like the wire builder's: tool and system marked, and the last block."""
    messages = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": [{"type": "text", "text": t}]}
        for i, t in enumerate(turns)
    ]
    if mark_last:
        messages[-1]["content"][-1]["cache_control"] = MARK
    return {
        "model": "m",
        "max_tokens": 10,
        "tools": [{"name": "read", "input_schema": {"type": "object"}, "cache_control": MARK}],
        "system": [{"type": "text", "text": system, "cache_control": MARK}],
        "messages": messages,
    }


def total(usage: dict) -> int:
    return sum(usage.values())


def prefix_tokens(body: dict, blocks: int) -> int:
    return sum(block.tokens for block in build_prompt_blocks(body)[:blocks])


def test_usage_counts_tools_system_and_messages():
    body = request("hello")
    expected = (
        count_block_tokens("tool", {"name": "read", "input_schema": {"type": "object"}})
        + count_block_tokens("system", {"type": "text", "text": LONG})
        + count_block_tokens("user", {"type": "text", "text": "hello"})
    )
    assert total(PromptCacheModel().usage(body)) == expected
    bigger = request("hello", system=LONG + "More rules.")
    assert total(PromptCacheModel().usage(bigger)) > expected


def test_a_first_request_writes_up_to_its_last_breakpoint_and_reads_nothing():
    body = request("hello")
    usage = PromptCacheModel().usage(body)
    assert usage["cache_read_input_tokens"] == 0
    assert usage["cache_creation_input_tokens"] == prefix_tokens(body, 3)
    assert usage["input_tokens"] == 0


def test_the_same_request_again_reads_everything_it_wrote():
    cache, body = PromptCacheModel(), request("hello")
    first = cache.usage(body)
    second = cache.usage(copy.deepcopy(body))
    assert second == {
        "input_tokens": 0,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": first["cache_creation_input_tokens"],
    }


def test_a_growing_conversation_reads_the_old_prefix_and_writes_only_the_new_tail():
    cache = PromptCacheModel()
    first = request("read a.py")
    cache.usage(first)
    second = request("read a.py", "It has 3 functions.", "and b.py?")
    usage = cache.usage(second)
    assert usage["cache_read_input_tokens"] == prefix_tokens(first, 3)
    assert usage["cache_creation_input_tokens"] == prefix_tokens(second, 5) - prefix_tokens(
        first, 3
    )


def test_an_edit_early_in_the_prefix_makes_everything_after_it_a_fresh_write():
    cache = PromptCacheModel()
    cache.usage(request("hello"))
    edited = request("hello", system=LONG + "One more rule.")
    usage = cache.usage(edited)
    assert usage["cache_read_input_tokens"] == 0
    assert usage["cache_creation_input_tokens"] == total(usage)


def test_a_change_in_the_messages_keeps_the_cached_tools_and_system():
    cache = PromptCacheModel()
    cache.usage(request("hello"))
    usage = cache.usage(request("something else"))
    assert usage["cache_read_input_tokens"] == prefix_tokens(request("x"), 2)


def test_prefixes_under_the_minimum_are_neither_written_nor_read():
    cache, body = PromptCacheModel(), request("hi", system="Be terse.")
    assert prefix_tokens(body, 3) < MIN_CACHEABLE_TOKENS
    for _ in range(2):
        usage = cache.usage(body)
        assert usage["cache_read_input_tokens"] == usage["cache_creation_input_tokens"] == 0


def test_a_hit_is_found_only_within_the_lookback_before_a_breakpoint():
    cache = PromptCacheModel()
    turns = ["q0"]
    cache.usage(request(*turns))
    turns += [f"turn {n}" for n in range(1, 21)]  # the old breakpoint is now 20 blocks back
    assert cache.usage(request(*turns))["cache_read_input_tokens"] > prefix_tokens(request("x"), 2)
    cache = PromptCacheModel()
    cache.usage(request("q0"))
    far = request("q0", *[f"turn {n}" for n in range(1, 22)])  # 21 blocks back: out of reach
    assert cache.usage(far)["cache_read_input_tokens"] == prefix_tokens(far, 2)


def test_entries_expire_after_five_minutes_unless_used():
    clock = Clock()
    cache, body = PromptCacheModel(clock=clock), request("hello")
    cache.usage(body)
    clock.now = 200.0
    assert cache.usage(body)["cache_read_input_tokens"] > 0  # a read renews the entry
    clock.now = 450.0
    assert cache.usage(body)["cache_read_input_tokens"] > 0
    clock.now = 751.0
    assert cache.usage(body)["cache_read_input_tokens"] == 0


def test_a_one_hour_breakpoint_outlives_five_minutes():
    clock = Clock()
    cache, body = PromptCacheModel(clock=clock), request("hello")
    body["system"][0]["cache_control"] = {"type": "ephemeral", "ttl": "1h"}
    cache.usage(body)
    clock.now = 1_800.0
    assert cache.usage(body)["cache_read_input_tokens"] == prefix_tokens(body, 2)


def test_a_top_level_cache_control_marks_the_last_block():
    cache, body = PromptCacheModel(), request("hello", mark_last=False)
    del body["tools"][0]["cache_control"], body["system"][0]["cache_control"]
    assert cache.usage(body)["cache_creation_input_tokens"] == 0
    body["cache_control"] = MARK
    assert cache.usage(body)["cache_creation_input_tokens"] == prefix_tokens(body, 3)


def test_the_bench_price_reads_a_repeated_prefix_at_a_tenth_and_trials_leave_it_alone():
    cost = PromptCost.with_tokenizer(TokenCounter())
    body = request("hello", system=LONG * 2)  # over the minimum as cl100k counts it too
    first = cost.price_request(body)
    assert first.cache_read_input_tokens == 0 and first.cache_creation_input_tokens > 0
    trial = cost.trial()
    again = trial.price_request(copy.deepcopy(body))
    assert again.cache_read_input_tokens == first.cache_creation_input_tokens
    assert trial.price == pytest.approx(0.1 * again.cache_read_input_tokens + again.input_tokens)
    assert cost.requests == 1 and cost.price == pytest.approx(
        1.25 * first.cache_creation_input_tokens + first.input_tokens
    )
    written_by_cl100k = first.cache_creation_input_tokens
    assert written_by_cl100k != PromptCacheModel().usage(body)["cache_creation_input_tokens"]


def _png(width: int, height: int) -> dict[str, str]:
    header = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR"
    data = header + struct.pack(">II", width, height) + b"\x08\x02\x00\x00\x00" + b"x" * 5_000
    return {"type": "base64", "media_type": "image/png", "data": base64.b64encode(data).decode()}


def test_an_image_is_billed_by_its_pixels_not_its_base64():
    """As the API bills it: width x height / 750, at most about 1,600 tokens; a screenshot
    in a tool result costs what its pixels do, however long its base64 is (the fake once
    billed a 150 KB PNG at 48,000 tokens)."""
    small = {"type": "image", "source": _png(500, 100)}
    big = {"type": "image", "source": _png(4_000, 3_000)}
    in_result = {"type": "tool_result", "tool_use_id": "t1", "content": [small]}
    frame = math.ceil(len('user{"type": "image"}') / 4)  # the block without its source
    assert count_block_tokens("user", small) == frame + 67
    assert count_block_tokens("user", big) == frame + 1_600
    assert count_block_tokens("user", in_result) < 120
    wide = {"type": "image", "source": _png(4_000, 100)}  # scaled to 1,568 x 39 first
    assert count_block_tokens("user", wide) == frame + math.ceil(1_568 * 39 / 750)


def test_the_cost_bench_weighs_against_a_session_that_never_compacts(tmp_path):
    """The cost bench prices each policy against "no compaction". From the commit that
    fits thresholds to the model's window until session 18, that run's thresholds were
    lowered to the offline model's 200,000 tokens, so it compacted once and every ratio
    read about 40% too high (0.49 for 0.35). Its own window keeps it whole."""
    from bench.session_scenario import ISSUE_SIZES, POLICIES, run_session

    run = run_session(POLICIES["no compaction"], tmp_path, sizes=ISSUE_SIZES, fact_every=None)
    assert run.compactions == 0
    assert len(run.requests) == 120
