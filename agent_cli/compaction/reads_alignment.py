"""Moving L2's kept outcome (`running_reads.ReadsPlan`) onto the list L2 is given.

The per-turn check kept the plan for the view it followed. L2 runs on that view minus
the digest message (`traced` takes it out), after L1, which may have cut some results.

Contract: `align_plan(plan, messages, view, count_block)` gives the plan with positions
in `messages`, or None when it does not apply (and L2 scans). The messages the plan
changes must be, in `view`, the very objects the check followed (an equal copy of a
plain dict does not do: its blocks are not those the plan names). It applies when
`messages` is `view`, or `view` without its digest message (positions after it move
down by one), where a message may be another object than the followed one if neither
holds a tool_use block and either the plan leaves it alone or the plan drops it whole
and it holds the same tool results, cut (L1): the removed calls then name the cut
result, and the saving counts it (`count_block`, the run's counter) instead of the
result the check recorded. That is exactly what scanning `messages` finds. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agent_cli.compaction.markers import SOURCE_KEY, is_digest_message
from agent_cli.compaction.running_reads import ReadsPlan

Message = dict[str, Any]
Block = dict[str, Any]


def align_plan(
    plan: ReadsPlan,
    messages: Sequence[Message],
    view: Sequence[Message],
    count_block: Callable[[Block], int],
) -> ReadsPlan | None:
    """`plan` (for `view`) with positions in `messages`, or None (module doc)."""
    for at, original in plan.originals.items():  # a plain dict may be an equal copy
        if at >= len(view) or view[at] is not original:
            return None
    if len(messages) == len(view):
        lacking, followed = len(view), list(view)
    elif len(messages) == len(view) - 1:
        digest_at = next((i for i, m in enumerate(view) if is_digest_message(m)), None)
        if digest_at is None or digest_at in plan.changes:
            return None
        lacking, followed = digest_at, [*view[:digest_at], *view[digest_at + 1 :]]
    else:
        return None
    changes = plan.changes
    if lacking < len(view):  # positions after the missing message move down
        changes = {at - (at > lacking): left for at, left in changes.items()}
    plan = plan._replace(changes=changes)
    if list(messages) == followed:  # one C-level pass, by identity first
        return plan
    swapped: dict[int, Block] = {}  # id of a recorded result -> the cut one in its place
    for at, (given, kept) in enumerate(zip(messages, followed, strict=True)):
        if given is kept:
            continue
        if _has_calls(given) or _has_calls(kept):
            return None
        if at in changes and (changes[at] is not None or not _swap_cut(given, kept, swapped)):
            return None
    return _with_cut_results(plan, swapped, count_block) if swapped else plan


def _has_calls(message: Message) -> bool:
    """True when `message` holds a tool_use block (read from its blocks, not its facts:
    building facts counts results, and L1's cut ones are not counted yet)."""
    content = message.get("content")
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "tool_use" for block in content
    )


def _swap_cut(given: Message, kept: Message, swapped: dict[int, Block]) -> bool:
    """Note the results of `given` in place of those of `kept` when it holds the same
    tool results, block for block, under the same pointer (L1 cut some of them)."""
    new, old = given.get("content"), kept.get("content")
    if not isinstance(new, list) or not isinstance(old, list) or len(new) != len(old):
        return False
    if given.get(SOURCE_KEY) != kept.get(SOURCE_KEY):
        return False
    for cut, recorded in zip(new, old, strict=True):
        if not (isinstance(cut, dict) and cut.get("type") == "tool_result"):
            return False
        if cut.get("tool_use_id") != recorded.get("tool_use_id"):
            return False
        if cut is not recorded:
            swapped[id(recorded)] = cut
    return True


def _with_cut_results(
    plan: ReadsPlan, swapped: dict[int, Block], count_block: Callable[[Block], int]
) -> ReadsPlan:
    """`plan` whose removed calls name the cut results, and whose saving counts them."""
    removed, tokens = [], plan.tokens_saved
    for entry in plan.removed:
        cut = swapped.get(id(entry.result))
        if cut is None:
            removed.append(entry)
            continue
        tokens += count_block(cut) - count_block(entry.result)  # type: ignore[arg-type]
        removed.append(entry._replace(result=cut, line=None, counted=None))
    return plan._replace(removed=removed, tokens_saved=tokens)
