"""An image a request leaves out weighs, in every figure, the note sent in its place: the
view's measure, the compaction run's figures and `stats` agree with what the strict fake
API counts of the request built from the view (`bench.prompt_cache`)."""

from __future__ import annotations

from typing import Any

from test_image_limits import _png

from agent_cli.compaction import CompactionPolicy, compact_context
from agent_cli.compaction.view_index import ViewIndex
from agent_cli.events import ModelRequest
from agent_cli.frozen import freeze
from agent_cli.image_notes import find_view_images, left_out_excess
from agent_cli.provider.wire import build_wire_request
from agent_cli.session.stats import count_view_by_category
from agent_cli.tokens import TokenCounter
from bench.prompt_cache import PromptCacheModel

TOLERANCE = 0.12  # cl100k is not the fake's count: text and notes differ by up to ~10%


def _step(calls: int, per_call: int, width: int, height: int) -> list[Any]:
    """A request, then one model step of `calls` tool calls, each answered by a result of
    `per_call` images of `width` x `height` px with their pointers."""
    uses = [{"type": "tool_use", "id": f"t{at}", "name": "x", "input": {}} for at in range(calls)]
    results = [
        {
            "type": "tool_result",
            "tool_use_id": f"t{at}",
            "content": [
                {"type": "text", "text": "shots"},
                *[
                    {
                        "type": "image",
                        "source": {
                            "type": "base64",
                            "media_type": "image/png",
                            "data": _png(width, height),
                        },
                        "_pointer": f"artifact:s:{at}-{shot}.png:abcdefabcdef",
                    }
                    for shot in range(per_call)
                ],
            ],
        }
        for at in range(calls)
    ]
    view = [
        {"role": "user", "content": "show"},
        {"role": "assistant", "content": uses},
        {"role": "user", "content": results},
    ]
    return [freeze(message) for message in view]


def _fake_count(view: list[Any]) -> int:
    request = ModelRequest(system="", durable_context="", messages=tuple(view), tools=())
    usage = PromptCacheModel().usage(build_wire_request(request, "m"))
    kinds = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    return sum(usage[kind] for kind in kinds)


def test_a_view_with_images_left_out_is_measured_as_the_request_carries_it() -> None:
    """Hundreds of 1x1 PNGs (notes far heavier than the images), screenshots (images far
    heavier than their notes) and a mix under 100: the measure is within the tolerance of
    the fake's count, where pixels alone missed it by 3x (500 notes at 1 token each)."""
    for shape in ((75, 8, 1, 1), (250, 8, 1, 1), (40, 8, 2_560, 1_440), (5, 30, 300, 300)):
        view = _step(*shape)
        measured = ViewIndex(TokenCounter()).measure(view)
        fake = _fake_count(view)
        assert abs(measured - fake) <= TOLERANCE * fake, (shape, measured, fake)


def test_the_excess_is_the_notes_less_the_images_they_replace() -> None:
    counter = TokenCounter()
    images = [image for message in _step(13, 8, 1, 1) for image in find_view_images(message)]
    assert len(images) == 104 and all(image.tokens == 1 for image in images)
    excess = left_out_excess(images, counter.count_text)
    assert 25 * 40 < excess < 25 * 90  # 25 left out (a step), ~60 tokens a note, 1 an image
    assert left_out_excess(images[:100], counter.count_text) == 0


def test_compaction_at_a_tight_hard_limit_leaves_a_request_under_it_by_the_fake_count() -> None:
    """600 small images in the step before the newest request: the run's last figure is
    the view's measure, and the request the compacted view gives is under the hard limit
    by the fake's count too (its layer lines agree with the total)."""
    view = _step(75, 8, 1, 1)
    view += [
        freeze({"role": "assistant", "content": "ok"}),
        freeze({"role": "user", "content": "and?"}),
    ]
    counter = TokenCounter()
    assert ViewIndex(counter).measure(view) > 25_000
    policy = CompactionPolicy(soft_threshold=10_000, hard_limit=20_000)
    result = compact_context(view, policy=policy, counter=counter)
    assert result.tokens_after == ViewIndex(counter).measure(result.messages)
    assert _fake_count(result.messages) < 20_000
    assert [r for r in result.reports if r.outcome == "applied"][-1].tokens_after == (
        result.tokens_after
    )


def test_stats_categories_add_up_to_the_measure_with_images_left_out() -> None:
    counter = TokenCounter()
    view = _step(75, 8, 1, 1)
    assert sum(count_view_by_category(counter, view).values()) == ViewIndex(counter).measure(view)
