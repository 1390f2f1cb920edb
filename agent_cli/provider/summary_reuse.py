"""A summary request that reuses the session's cached prefix, when that is the cheaper one.

The cache holds what the last request the API processed sent: tools, system blocks and
its messages, for `CACHE_LIFETIME` (5 minutes) after that request. A summary request with
the same tools, system blocks and messages, the summary instructions as one more user
message, reads all of that at the model's cache-read price (0.05x to 0.1x the input
price) and sends what was appended since, and the instructions, at 1x: its breakpoint ends
with the messages the last request carried (`CACHE_READ_PREFIX`), so it writes nothing,
since no later request reads it (the compacted view starts with the digest and the
summary). The bounded request of `summary_input` sends the summary prompt and a rendering
of the older part at 1x, with no breakpoint (`CACHE_NOTHING`: it is never sent again).
Which is cheaper depends on the sizes (`make bench`, `bench_session_cost`: at a
21,000-token request the bounded one costs about 3,400 input-price tokens and the reuse
5,300; at 80,000 tokens the reuse 11,000 and the bounded one 12,400, priced at 0.1x), so
`choose_summary_request` estimates both from their characters (about four a token) and
sends the cheaper by that estimate.

A prefix is cached only while the last request is younger than the cache lifetime, less
a margin (`is_still_cached`); the session offers none otherwise (`cached_messages` 0), and
the bounded request is sent: the reuse would write the whole view again at 1.25x.

The reused request must fit the model's window and stay under the session's hard limit
(`CachedPrefix.hard_limit`: it holds for every request, a summary's too; its images
weighed as billed, by their pixels, each one it leaves out as its note), and is sent
with the tools the model knows; the instructions tell it to answer with text only. A
reply that calls a tool all the same is not a summary, whatever text comes with it: the
summarizer then sends the bounded request, and if that fails too the view stays as it
was (`summarizers`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from agent_cli.compaction.markers import is_digest_message
from agent_cli.events import CACHE_READ_PREFIX, ModelRequest
from agent_cli.image_notes import left_out_excess, view_images
from agent_cli.models import ModelPrices
from agent_cli.provider.cache_placement import CACHE_LIFETIME

CHARS_PER_TOKEN = 4
READ_PRICE = 0.1  # times the input price, when the model's is not known
# A prefix this close to the end of its lifetime is taken as gone: the request may reach
# the API some seconds later, and a reuse of an expired prefix costs far more (everything
# written at 1.25x) than the bounded request it replaced would have.
EXPIRY_MARGIN = timedelta(seconds=30)
INSTRUCTIONS_HEADER = (
    "[Summary request from context compaction, not the user's words. Do not call tools; "
    "answer with the summary text only.]"
)


@dataclass(frozen=True)
class CachedPrefix:
    """What the session would send now (`messages`: the whole view), and how many of its
    leading messages the prompt cache still holds (those the last request carried, while
    it `is_still_cached`; else 0)."""

    system: str
    tools: tuple[dict[str, Any], ...]
    messages: tuple[dict[str, Any], ...]
    cached_messages: int
    project_instructions: str = ""  # the second cached system block, as the session sends it
    hard_limit: int | None = None  # the session's, in request tokens: no request may pass it


def build_reusing_request(
    prefix: CachedPrefix, recent_count: int, instructions: str, max_tokens: int
) -> ModelRequest:
    """The view as sent, then one user message asking for a summary of all but the last
    `recent_count` messages (they stay verbatim after the summary)."""
    text = (
        f"{INSTRUCTIONS_HEADER}\n{instructions}\n"
        f"Summarize the conversation above except its last {recent_count} messages, which "
        "stay in the context verbatim after your summary. The compaction digest stays in "
        "the context as it is: do not repeat it."
    )
    return ModelRequest(
        system=prefix.system,
        durable_context="",
        messages=(*prefix.messages, {"role": "user", "content": text}),
        tools=prefix.tools,
        max_tokens=max_tokens,
        project_instructions=prefix.project_instructions,
        cache=CACHE_READ_PREFIX,  # read what is cached; what follows is a one-off: plain
        cached_messages=prefix.cached_messages,
    )


def is_still_cached(age: timedelta) -> bool:
    """True when a prefix the API last wrote or read `age` ago is still in the cache, with
    `EXPIRY_MARGIN` to spare; a negative age (the clock was set back) is not trusted."""
    return timedelta(0) <= age < CACHE_LIFETIME - EXPIRY_MARGIN


def count_recent(prefix: CachedPrefix, old: Sequence[dict[str, Any]]) -> int | None:
    """How many of the prefix's messages come after `old` (the part to summarize), or
    None when the prefix does not start with exactly those messages (the digest aside:
    layers never see it): a layer changed them in this run (L1 cut a result, L2 dropped a
    read), so "all but the last N" would name the wrong ones."""
    leading = [m for m in prefix.messages if not is_digest_message(m)]
    if not old or len(old) >= len(leading):
        return None
    if any(a is not b and a != b for a, b in zip(old, leading, strict=False)):
        return None
    return len(leading) - len(old)


def choose_summary_request(
    bounded: ModelRequest,
    prefix: CachedPrefix | None,
    old: Sequence[dict[str, Any]],
    context_window: int,
    prices: ModelPrices | None = None,
) -> ModelRequest:
    """`bounded`, or the request reusing `prefix` when it holds `old` (the messages to
    summarize) as they are, fits the window and the prefix's hard limit, and its estimated
    price is lower (module
    doc). `prices`: the model's, whose cache-read price over its input price weighs the
    reuse (some models read the cache at 0.05x, not 0.1x); None uses 0.1x."""
    recent = count_recent(prefix, old) if prefix is not None else None
    if prefix is None or prefix.cached_messages == 0 or recent is None:
        return bounded
    reusing = build_reusing_request(prefix, recent, bounded.system, bounded.max_tokens)
    cached = _chars(replace(reusing, messages=reusing.messages[: prefix.cached_messages]))
    plain = _chars(reusing) - cached  # the messages since the last request, the instructions
    tokens = (cached + plain) // CHARS_PER_TOKEN + _image_tokens(reusing.messages)
    if tokens + reusing.max_tokens >= context_window:
        return bounded
    if prefix.hard_limit is not None and tokens >= prefix.hard_limit:
        return bounded
    read = prices.cache_read / prices.input if prices and prices.input > 0 else READ_PRICE
    return reusing if read * cached + plain < _chars(bounded) else bounded


def _image_tokens(messages: Sequence[Any]) -> int:
    """What the images in `messages` weigh in the request: by their pixels
    (`image_size.image_tokens`), which their characters do not tell, and each one the
    request leaves out as the note sent in its place (`image_notes.left_out_excess`, its
    characters over `CHARS_PER_TOKEN` like the rest of this estimate)."""
    images = view_images(messages)
    notes = left_out_excess(images, lambda note: -(-len(note) // CHARS_PER_TOKEN))
    return sum(image.tokens for image in images) + notes


def _chars(request: ModelRequest) -> int:
    """Characters of what `request` sends, as JSON: a stand-in for its tokens."""
    parts = [
        request.system,
        request.project_instructions,
        request.durable_context,
        *request.tools,
        *request.messages,
    ]
    return len(json.dumps(parts, ensure_ascii=False, default=str))
