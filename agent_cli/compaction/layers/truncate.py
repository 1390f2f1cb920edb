"""L1: truncate oversized tool results to a bounded head and tail.

Contract: a tool_result over `max_tool_result_tokens` keeps its head (about two thirds of the
budget) and its tail (about one third) around a marker stating the original size and, when its
message has a transcript pointer and what is kept names no artifact, that record as the way back. A
string result stays a string; a list result's text blocks are cut as one stream, images untouched. A
result is replaced only when the new one counts fewer tokens, so savings are real. No cut splits a
secret or a pointer. No interaction is removed; messages are never mutated.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from agent_cli.compaction.digest.removed_items import CUT_FROM_KEY, result_size
from agent_cli.compaction.message_facts import CutFacts, MessageFacts, build_view_facts
from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.compaction.results import NO_CHANGE, LayerOutcome, run_layer_alone
from agent_cli.frozen import freeze, is_frozen
from agent_cli.safe_cuts import safe_head_end, safe_tail_start
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.sources.pointers import ARTIFACT_SCHEME
from agent_cli.tokens import TokenCounter, is_plausible_count

MARKER_ALLOWANCE_TOKENS = 40
# A cut result keeps a head, the marker and a tail: less than this is no longer useful.
MIN_SHARED_RESULT_TOKENS = 3 * MARKER_ALLOWANCE_TOKENS
_SHRINK_ATTEMPTS = 4
ARTIFACT_PREFIX = f"{ARTIFACT_SCHEME}:"
Cut = TypeVar("Cut")


def render_truncation_marker(
    omitted_chars: int, original_tokens: int, original_chars: int, pointer: str | None = None
) -> str:
    """The line that replaces the middle of a cut result; `pointer`: the record holding it whole."""
    way_back = f"; recall {pointer} for all of it" if pointer else ""
    return (
        f"\n[... {omitted_chars:,} characters cut by context compaction; the full result "
        f"was about {original_tokens:,} tokens ({original_chars:,} characters){way_back} ...]\n"
    )


def _snap_to_lines(text: str, head: int, tail: int, secrets: SecretForms) -> tuple[int, int]:
    """Cuts moved to a nearby line end, then to where they split no secret and no pointer."""
    newline = text.rfind("\n", 0, head)
    if newline >= head * 3 // 4:
        head = newline + 1
    head = safe_head_end(text, head, secrets)
    tail_start = len(text) - tail
    newline = text.find("\n", tail_start, tail_start + tail // 4)
    if tail and newline != -1:
        tail_start = newline + 1
    if tail:
        tail_start = max(safe_tail_start(text, tail_start, secrets), head)
        tail = len(text) - tail_start
    return head, tail


def _count_cut(
    counter: TokenCounter, cut: str, marker: str, source: str, source_tokens: int
) -> int:
    """Tokens of `cut` (`marker` plus characters of `source`, counted `source_tokens`): estimated at
    the source's density, or counted where a counter would refuse that estimate."""
    kept_chars = len(cut) - len(marker)
    estimate = math.ceil(source_tokens * kept_chars / max(len(source), 1))
    estimate += counter.count_text(marker)
    return estimate if is_plausible_count(cut, estimate) else counter.count_text(cut)


def _shrink(
    cut_to: Callable[[float], tuple[Cut, int] | None], keep: float, budget: int, original: int
) -> tuple[Cut, int] | None:
    """The first cut `cut_to(keep)` makes that fits `budget`, keeping less each attempt (after
    `_SHRINK_ATTEMPTS`, the last one made); None when none is smaller than `original`."""
    made: tuple[Cut, int] | None = None
    for _ in range(_SHRINK_ATTEMPTS):
        cut = cut_to(keep)
        if cut is None:
            keep *= 0.5
            continue
        made = cut
        if cut[1] <= budget:
            break
        keep *= min(0.9, budget / cut[1] * 0.95)
    return made if made is not None and made[1] < original else None


def build_truncated_text(
    text: str,
    budget: int,
    counter: TokenCounter,
    secrets: SecretForms = NO_SECRETS,
    original: int | None = None,
    pointer: str | None = None,
) -> tuple[str, int] | None:
    """`text` cut to about `budget` tokens and the cut's count, or None when it fits or cutting
    would not help. `original`: the count of `text`, when known; `pointer`: where it is kept whole.
    """
    size = counter.count_text(text) if original is None else original
    if size <= budget:
        return None

    def cut_to(keep: float) -> tuple[str, int]:  # keep < size: head and tail never meet
        head, tail = _edge_parts(text, size, keep * 2 / 3, keep / 3, secrets)
        omitted = len(text) - len(head) - len(tail)
        way_back = _way_back(pointer, head, tail)
        marker = render_truncation_marker(omitted, size, len(text), way_back)
        cut = head + marker + tail
        return cut, _count_cut(counter, cut, marker, text, size)

    keep = max(budget - MARKER_ALLOWANCE_TOKENS, 0) * 0.9  # head and tail may be denser
    return _shrink(cut_to, keep, budget, size)


def _way_back(pointer: str | None, head: str, tail: str) -> str | None:
    """`pointer`, unless the cut keeps an artifact pointer already."""
    if pointer is None or ARTIFACT_PREFIX in head or ARTIFACT_PREFIX in tail:
        return None
    return pointer


def _count_whole(sizes: Sequence[int], budget: float) -> tuple[int, float]:
    """How many leading `sizes` fit whole in `budget`, and the budget left."""
    taken = 0
    for size in sizes:
        if size > budget:
            break
        budget -= size
        taken += 1
    return taken, budget


def _edge_parts(
    text: str, size: int, head_tokens: float, tail_tokens: float, secrets: SecretForms
) -> tuple[str, str]:
    """About `head_tokens` from the start and `tail_tokens` from the end of `text`."""
    chars_per_token = len(text) / max(size, 1)
    head, tail = _snap_to_lines(
        text, int(head_tokens * chars_per_token), int(tail_tokens * chars_per_token), secrets
    )
    return text[:head], (text[len(text) - tail :] if tail else "")


def _cut_block(
    block: dict[str, Any], text: str, marker: str, size: int, counter: TokenCounter
) -> dict[str, Any]:
    """`block` holding `text` (`marker` plus characters of its own text, `size` tokens) with its
    count carried."""
    tokens = _count_cut(counter, text, marker, block["text"], size)
    return counter.carry_count({**block, "text": text}, text, tokens)


def _cut_stream(
    blocks: list[Any],
    texts: list[int],
    sizes: list[int],
    keep: float,
    original: tuple[int, int],
    counter: TokenCounter,
    secrets: SecretForms,
    pointer: str | None,
) -> list[Any] | None:
    """`blocks` with their text cut as one stream to about `keep` tokens: text blocks that fit the
    head or tail stay whole, the first cut block keeps its head and the marker, the last its tail,
    the ones between go; other blocks stay. None when nothing would be cut."""
    head_count, head_left = _count_whole(sizes, keep * 2 / 3)
    tail_count, tail_left = _count_whole(sizes[head_count:][::-1], keep / 3 + head_left)
    middle = texts[head_count : len(texts) - tail_count]
    if not middle:
        return None
    first, last = middle[0], middle[-1]
    first_size, last_size = sizes[head_count], sizes[-tail_count - 1]
    head, tail = _edge_parts(
        blocks[first]["text"], first_size, head_left, tail_left if first == last else 0, secrets
    )
    if last != first:
        _, tail = _edge_parts(blocks[last]["text"], last_size, 0, tail_left, secrets)
    omitted = sum(len(blocks[index]["text"]) for index in middle) - len(head) - len(tail)
    if omitted <= 0:
        return None
    marker = render_truncation_marker(omitted, *original, _way_back(pointer, head, tail))
    marker = marker if head else marker.lstrip("\n")
    text = head + marker + (tail if first == last else "")
    result = list(blocks)
    result[first] = _cut_block(blocks[first], text, marker, first_size, counter)
    dropped = set(middle[1:-1])
    if last != first and tail:
        result[last] = _cut_block(blocks[last], tail, "", last_size, counter)
    elif last != first:
        dropped.add(last)
    return [block for index, block in enumerate(result) if index not in dropped]


def _text_tokens(block: dict[str, Any], counter: TokenCounter) -> int:
    """A text block's carried count, else its text counted."""
    carried = counter.carried_count(block, block["text"])
    return counter.count_text(block["text"]) if carried is None else carried


def build_truncated_blocks(
    blocks: list[Any],
    budget: int,
    counter: TokenCounter,
    secrets: SecretForms = NO_SECRETS,
    pointer: str | None = None,
) -> tuple[list[Any], int] | None:
    """A list result cut to about `budget` tokens and the cut's count, or None when nothing shrank."""
    texts = [
        index
        for index, block in enumerate(blocks)
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]
    sizes = [_text_tokens(blocks[index], counter) for index in texts]
    original = counter.count_content(blocks)
    stats = (original, sum(len(blocks[index]["text"]) for index in texts))

    def cut_to(keep: float) -> tuple[list[Any], int] | None:
        cut = _cut_stream(blocks, texts, sizes, keep, stats, counter, secrets, pointer)
        return None if cut is None else (cut, counter.count_content(cut))

    keep = max(budget - (original - sum(sizes)) - MARKER_ALLOWANCE_TOKENS, 0) * 0.9
    return _shrink(cut_to, keep, budget, original)


def _truncate_result(
    block: dict[str, Any],
    budget: int,
    counter: TokenCounter,
    secrets: SecretForms,
    pointer: str | None,
    original: int,
) -> tuple[dict[str, Any], int] | None:
    """The cut block (marked with `CUT_FROM_KEY`, the text's size before any cut) and the tokens it
    saves from its content's count `original`, or None."""
    content = block.get("content")
    if original <= budget or not isinstance(content, (str, list)):
        return None
    cut_from = {CUT_FROM_KEY: block.get(CUT_FROM_KEY, result_size(block))}
    if isinstance(content, str):
        cut_text = build_truncated_text(content, budget, counter, secrets, original, pointer)
        if cut_text is None:
            return None
        shorter = counter.carry_count({**block, "content": cut_text[0], **cut_from}, *cut_text)
        return shorter, original - counter.count_result_content(shorter)  # as counted
    cut = build_truncated_blocks(content, budget, counter, secrets, pointer)
    return None if cut is None else ({**block, "content": cut[0], **cut_from}, original - cut[1])


def shared_result_budget(sizes: Sequence[int], room: int) -> int | None:
    """The largest cap `c` with `sum(min(size, c)) <= room`, or None when every result fits whole or
    the cap would be under `MIN_SHARED_RESULT_TOKENS`."""
    left = room
    ordered = sorted(sizes)
    for taken, size in enumerate(ordered):
        sharing = len(ordered) - taken
        if size * sharing > left:
            cap = left // sharing
            return cap if cap >= MIN_SHARED_RESULT_TOKENS else None
        left -= size
    return None


def shared_result_caps(sizes: Sequence[int], rooms: Sequence[int], budget: int) -> list[int]:
    """The caps the shared pass tries, in order: for each room the largest cap under which the
    results fit it (`shared_result_budget`), then the floor `MIN_SHARED_RESULT_TOKENS` itself; each
    once, only caps under the per-result `budget`, and none when no result is over the floor.

    Why the floor too: the arithmetic charges each cut result its whole cap, while a cut comes out
    under it (its head and tail are kept short of the budget), so a view the arithmetic calls too
    tight often fits at the floor. Only measuring the cut tells; the caller measures."""
    if not any(size > MIN_SHARED_RESULT_TOKENS for size in sizes):
        return []
    caps = [shared_result_budget(sizes, room) for room in rooms]
    tried = dict.fromkeys(cap for cap in caps if cap not in (None, MIN_SHARED_RESULT_TOKENS))
    return [cap for cap in [*tried, MIN_SHARED_RESULT_TOKENS] if cap is not None and cap < budget]


def build_shared_truncations(
    messages: Sequence[dict[str, Any]],
    policy: CompactionPolicy,
    counter: TokenCounter,
    tokens: int,
    targets: Sequence[int],
) -> Iterator[LayerOutcome]:
    """L1 with the per-result budget lowered so that the view (`tokens`, reserve included) gets
    under each of `targets` in turn, then to the floor (`shared_result_caps`): each cut that changed
    the view, in that order. Lazy: the caller stops at the first that fits."""
    facts = build_view_facts(messages, counter)  # (a valid view: results in user messages only)
    sizes = [size for found in facts for size in found.result_tokens]
    fixed = tokens - sum(sizes)  # what the cap does not touch
    rooms = [target - fixed for target in targets]
    for cap in shared_result_caps(sizes, rooms, policy.max_tool_result_tokens):
        shared = dataclasses.replace(policy, max_tool_result_tokens=cap)
        outcome = build_truncation_outcome(messages, shared, counter, facts)
        if outcome.outcome != NO_CHANGE:
            yield outcome


def cut_to_the_floor(
    messages: Sequence[dict[str, Any]], policy: CompactionPolicy, counter: TokenCounter
) -> list[dict[str, Any]]:
    """`messages` with every result cut to the floor `MIN_SHARED_RESULT_TOKENS` (a budget already
    at or under it is kept): the least L1 makes of each message, so whether one message alone is
    over the hard limit whatever compaction does."""
    cap = min(policy.max_tool_result_tokens, MIN_SHARED_RESULT_TOKENS)
    floor = dataclasses.replace(policy, max_tool_result_tokens=cap)
    return build_truncation_outcome(messages, floor, counter).messages


def cut_message(
    message: dict[str, Any],
    found: MessageFacts,
    budget: int,
    counter: TokenCounter,
    secrets: SecretForms,
) -> CutFacts | None:
    """L1's cut of a user message (facts `found`): a copy with each result over `budget` cut (frozen
    when `message` is) and its facts, or None when nothing shrank. The saving is what the cut
    results save; markers name `found.pointer`. `found` holds each result's tokens."""
    content = message["content"]
    blocks, tokens, results_cut, saved = list(content), list[int](), 0, 0
    for index, block in enumerate(content):
        if isinstance(block, dict) and block.get("type") == "tool_result":
            original = found.result_tokens[len(tokens)]
            cut = _truncate_result(block, budget, counter, secrets, found.pointer, original)
            if cut is not None:
                blocks[index], results_cut, saved = cut[0], results_cut + 1, saved + cut[1]
            tokens.append(original if cut is None else original - cut[1])
    if results_cut == 0 or saved <= 0:
        return None
    smaller = {**message, "content": blocks}
    if is_frozen(message):
        smaller = freeze(smaller)
    results = tuple(
        block
        for block in smaller["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    )
    facts = MessageFacts(
        found.texts,
        found.uses,
        results,
        found.pointer,
        max(tokens, default=0),
        requests=found.requests,
        result_tokens=tuple(tokens),
    )
    return CutFacts(budget, secrets, smaller, results_cut, saved, facts)


def build_truncation_outcome(
    messages: Sequence[dict[str, Any]],
    policy: CompactionPolicy,
    counter: TokenCounter,
    facts: Sequence[MessageFacts] | None = None,
    largest_result: int | None = None,
) -> LayerOutcome:
    """Apply L1 to a valid view. `facts`: those of each message, by this counter; `largest_result`:
    a bound on every result. A recorded cut is taken when made under this budget and these secrets,
    and its caller's facts after the cut replace the caller's."""
    budget, secrets = policy.max_tool_result_tokens, policy.secret_forms
    found = build_view_facts(messages, counter) if facts is None else facts
    if largest_result is not None and largest_result <= budget:
        return LayerOutcome(list(messages), 0, outcome=NO_CHANGE, facts=list(found))
    view, new_facts, saved, truncated = list(messages), list(found), 0, 0
    for position, known in enumerate(found):
        largest = known.largest_result  # by this counter (None: facts built without one)
        if largest is None or largest <= budget:
            continue
        cut = known.cut
        if (
            cut is None
            or cut.budget != budget
            or not (cut.secrets is secrets or cut.secrets == secrets)
        ):
            cut = cut_message(messages[position], known, budget, counter, secrets)
            if cut is None:
                continue
        _, _, smaller, results_cut, cut_saved, smaller_facts, back, before, after = cut
        view[position], new_facts[position] = smaller, smaller_facts  # (`CutFacts` above)
        truncated += results_cut
        saved += cut_saved
        # the caller's facts after the cut, where the view holds the caller they came from
        if after is not None and back <= position and new_facts[position - back] is before:
            new_facts[position - back] = after
    if truncated == 0:
        return LayerOutcome(view, 0, outcome=NO_CHANGE, facts=new_facts)
    return LayerOutcome(view, saved, results_truncated=truncated, facts=new_facts)


def truncate_tool_results(
    messages: Sequence[dict[str, Any]],
    policy: CompactionPolicy | None = None,
    counter: TokenCounter | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """L1: cut tool results over the policy's budget; (new view, tokens saved). Raises
    ToolProtocolError for an invalid history."""
    return run_layer_alone(build_truncation_outcome, messages, policy, counter)
