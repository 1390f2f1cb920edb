"""The last passes of a compaction run, for a view still at or over the hard limit.

Contract: the results share the room first (L1 with a lower per-result cap, `share_the_room`),
down to the floor `MIN_SHARED_RESULT_TOKENS` each, every cap measured, never guessed; still over,
L3 keeps only message 0 and the step the model is in (`prune_to_the_step`), naming what it drops in
the digest as it always does, and the results share the room again. A view that fits after none of
them is kept as it was, and `largest_message_at_floor` tells whether one message alone, with its
results at the floor, is at the limit: only then can no compaction help.

Why: refusing a request shows the model nothing and answers the user nothing; the cuts and the
prune lose nothing (the transcript keeps every result whole, the digest names each pointer).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from agent_cli.compaction.digest.layer_step import RunningDigest, apply_step_with_digest
from agent_cli.compaction.digest.merge import count_digest
from agent_cli.compaction.digest.render import insert_digest
from agent_cli.compaction.layers.prune import build_prune_outcome
from agent_cli.compaction.layers.truncate import build_shared_truncations, cut_to_the_floor
from agent_cli.compaction.markers import is_digest_message
from agent_cli.compaction.message_facts import MessageFacts
from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.compaction.results import APPLIED, LayerOutcome, LayerReport, build_layer_report
from agent_cli.image_notes import left_out_excess, view_images
from agent_cli.protocol import validate_tool_protocol
from agent_cli.tokens import TokenCounter

Messages = list[dict[str, Any]]


def fit_under_the_hard_limit(
    view: Messages,
    kept: tuple[Messages, list[MessageFacts], RunningDigest],
    reserved: int,
    summary_seen: bool,
    policy: CompactionPolicy,
    counter: TokenCounter,
    reports: list[LayerReport],
    images: bool = True,
) -> tuple[Messages, int]:
    """The run's `view` and its budget figure; at or over the hard limit, the results sharing the
    room, then, still over it, L3 down to the step the model is in (`prune_to_the_step`). `kept`:
    the view without its digest, its facts and the running digest; `images`: whether the view the
    run started from held any image (no layer adds one)."""
    after = measure_output(view, counter, images=images) + reserved
    if after >= policy.hard_limit:
        view, after = share_the_room(view, after, reserved, policy, counter, reports)
    if after >= policy.hard_limit:
        last = prune_to_the_step(kept, after, reserved, summary_seen, policy, counter, reports)
        view, after = (view, after) if last is None else last
    return view, after


def share_the_room(
    view: Messages,
    tokens: int,
    reserved: int,
    policy: CompactionPolicy,
    counter: TokenCounter,
    reports: list[LayerReport],
) -> tuple[Messages, int]:
    """L1 with the results sharing the room: a cap aiming at the low-water mark, one aiming just
    under the hard limit, then the floor (`shared_result_caps`), each measured, the first whose view
    gets under the hard limit adopted and reported; when none does, the view is kept."""
    targets = (policy.low_water_mark_over(reserved), policy.hard_limit - 1)
    for outcome in build_shared_truncations(view, policy, counter, tokens, targets):
        after = measure_output(outcome.messages, counter) + reserved
        if after < policy.hard_limit:
            shared = dataclasses.replace(outcome, tokens_saved=tokens - after)
            reports.append(build_layer_report(1, shared, tokens))
            return outcome.messages, after
    return view, tokens


def prune_to_the_step(
    kept: tuple[Messages, list[MessageFacts], RunningDigest],
    tokens: int,
    reserved: int,
    summary_seen: bool,
    policy: CompactionPolicy,
    counter: TokenCounter,
    reports: list[LayerReport],
) -> tuple[Messages, int] | None:
    """The last resort before a refusal: L3 keeping only message 0 and the step the model is in (or
    the newest message), each dropped call and request named in the digest with its pointer as L3
    always does, then the results sharing the room. None, and no report, when that view is still at
    or over the hard limit. `kept`: the run's view without its digest, its facts and the running
    digest (`tokens`: its figure, `reserved` included).

    Why: L3 keeps `keep_recent_messages` so the model sees what it just did, but refusing the
    request shows it nothing at all; a step whose results fit at the floor only once the messages
    before it are gone was otherwise sent a few turns later, when they had aged out of that window.
    """
    base, facts, digest = kept
    tight = dataclasses.replace(policy, keep_recent_messages=1)

    def step(view: Messages, found: list[MessageFacts], view_tokens: int) -> LayerOutcome:
        return build_prune_outcome(
            view, tight, counter, view_tokens, found, name_answers=summary_seen
        )

    outcome, digest = apply_step_with_digest(
        step, base, facts, digest, tokens - reserved, policy, counter
    )
    if outcome.outcome != APPLIED:
        return None
    view = insert_digest(outcome.messages, digest.message(counter))
    after = measure_output(view, counter) + reserved  # the images left out may change with it
    pruned = [
        build_layer_report(3, dataclasses.replace(outcome, tokens_saved=tokens - after), tokens)
    ]
    if after >= policy.hard_limit:
        view, after = share_the_room(view, after, reserved, policy, counter, pruned)
    if after >= policy.hard_limit:
        return None
    reports.extend(pruned)
    return view, after


def largest_message_at_floor(
    view: Messages, policy: CompactionPolicy, counter: TokenCounter
) -> int:
    """The tokens of the view's largest message with its results cut to the floor: when even that is
    at the hard limit no compaction can help; a message of results the layers left whole because
    the rest of the view would not fit beside them is no such message."""
    return max(map(counter.count_message, cut_to_the_floor(view, policy, counter)), default=0)


def measure_output(
    view: Sequence[dict[str, Any]], counter: TokenCounter, *, images: bool = True
) -> int:
    """Validate a view the layers made and return its tokens (the digest by the count it carries;
    the notes of the images a request leaves out as they weigh, `image_notes.left_out_excess`,
    unless `images` is False: the view holds none). Not indexed: the view's owner indexes what it
    adopts."""
    validate_tool_protocol(view)
    counted = sum(
        count_digest(message, counter)
        if is_digest_message(message)
        else counter.count_message(message)
        for message in view
    )
    return counted + (left_out_excess(view_images(view), counter.count_text) if images else 0)
