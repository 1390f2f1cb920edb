"""The running digest: one message in the view that names everything compaction removed.

Contract:
- Every layer step that removes content (L2, L3, the part L4 summarizes) adds what it
  removed to ONE digest message, merged with the previous one, never a second message.
- The user's own requests stay verbatim, newest first, while they fit in
  `policy.digest_tokens`; older ones are shortened to their head (200 characters, 60
  past twice the budget), with their pointer and their full length.
- Each removed interaction is one line (tool, key input, result size, outcome) with its
  `transcript:` pointer; lines that no longer fit fold into one "older interactions"
  line that keeps the first and last pointer of the range and how many it holds.
- New items are added as one more part after the parts already written, while the whole
  digest stays within `policy.digest_tokens` with every new request whole; otherwise all
  entries are fitted again into one part, whose interaction lines stop a quarter of the
  budget short of it (`REFIT_HEADROOM`), so the next compactions add parts again. A part
  once written reads the same until then: the prefix that ends with it stays cached
  (the wire builder sends each part as a text block, the last one a cache breakpoint).
  Without the parts, each compaction would rewrite the whole digest at 1.25x the input
  price: in the 60-turn bench that is about 0.011 to 0.014 of the uncompacted session.
- How it reads and where it sits (before a summary, after a kept first request):
  `render`; how all entries are fitted again into one part: `fit`.
The budget is in the caller's counter's tokens and covers the whole message (header,
titles, the "older" line), so a digest whose requests fit stays within
`policy.digest_tokens` as every figure counts it. Each rendered line is counted once,
with its newline, through the counter's text memo, and the budget weighs the sum of its
lines' counts: cl100k never joins a line break with the text after it, so the whole
text's tokenization would be that sum or a little less (blank or indented lines). The
digest message carries that sum as its count (`carry_line_count`), so every figure
counts it the same way, on any counter. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_cli.compaction.digest.entries import (
    Digest,
    InteractionEntry,
    RequestEntry,
)
from agent_cli.compaction.digest.fit import (
    line_cost,
    refit_digest,
)
from agent_cli.compaction.digest.removed_items import RemovedInteraction, RemovedRequest
from agent_cli.compaction.digest.removed_items import count_line as _count_line
from agent_cli.compaction.digest.render import (
    render_digest,
    request_line,
)
from agent_cli.compaction.markers import DIGEST_LATER_PART
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.tokens import MESSAGE_OVERHEAD_TOKENS, TokenCounter

MIN_LINE_TOKENS = 1  # no entry's line costs less: it holds at least its newline


# --- merging ------------------------------------------------------------------------------


def merge_digest(
    digest: Digest,
    requests: Sequence[RemovedRequest],
    interactions: Sequence[RemovedInteraction],
    budget_tokens: int,
    counter: TokenCounter,
    rendered_tokens: int | None = None,
    secrets: SecretForms = NO_SECRETS,
) -> Digest:
    """`digest` with the newly removed items added (module doc): as one more part when
    that fits the budget with every new request whole, else all of it fitted again.
    `rendered_tokens`: the digest's tokens as the budget counts them, when the caller
    has them (`count_rendered_message` of the message it came from). A line or request
    that is shortened is cut where none of `secrets` and no pointer is split."""
    if not (requests or interactions):
        return digest
    appended = _append_part(
        digest, requests, interactions, (budget_tokens, rendered_tokens), counter, secrets
    )
    if appended is not None:
        return appended
    return refit_digest(digest, requests, interactions, budget_tokens, counter, secrets)


def _append_part(
    digest: Digest,
    requests: Sequence[RemovedRequest],
    interactions: Sequence[RemovedInteraction],
    budget: tuple[int, int | None],
    counter: TokenCounter,
    secrets: SecretForms,
) -> Digest | None:
    """`digest` with one more part holding the new items whole, or None when that would
    pass the budget (or there is no digest yet). The parts already written stay as they
    were, so the cached prefix that ends with them is read again, not written.
    `budget`: the digest's budget and its tokens now, when known."""
    budget_tokens, rendered_tokens = budget
    least = (len(requests) + len(interactions)) * MIN_LINE_TOKENS  # the new lines cost more
    if digest.is_empty() or least > budget_tokens:
        return None  # refused before anything is counted: a long removal, often
    if rendered_tokens is None:
        rendered_tokens = _count_rendered(digest, counter)
    room = budget_tokens - rendered_tokens
    if least > room:
        return None
    titles = [DIGEST_LATER_PART, *(["User requests:"] if requests else [])]
    titles += ["Interactions:"] if interactions else []
    room -= sum(_count_line(title, counter) for title in titles)
    new_requests = [RequestEntry(r.text, r.pointer) for r in requests]
    lines: list[InteractionEntry] = []
    for entry in new_requests:
        room -= _count_line(request_line(entry), counter)
    for removed in interactions:  # newest first: the lines stop as soon as room runs out
        if room < 0:
            return None
        line = InteractionEntry(removed.describe(secrets), removed.pointer)
        room -= line_cost(removed, line.line, counter)
        lines.append(line)
    if room < 0:
        return None
    return Digest(
        (*new_requests, *digest.requests),
        (*lines, *digest.interactions),
        digest.older,
        (*_part_sizes(digest), (len(new_requests), len(lines))),
    )


def _part_sizes(digest: Digest) -> tuple[tuple[int, int], ...]:
    return tuple((len(r), len(i)) for r, i in digest.split_parts())


def _count_rendered(digest: Digest, counter: TokenCounter) -> int:
    """Tokens of the digest's message as the budget counts it (every line with its
    newline, memoized, and the message's overhead): at least what `count_digest` finds."""
    return _count_rendered_text(render_digest(digest), counter)


def count_rendered_message(message: dict[str, Any], counter: TokenCounter) -> int:
    """Tokens of a digest message as the budget counts them (`_count_rendered` of the
    digest it holds), from its text: a step that has the message need not render it."""
    text = message.get("content")
    return _count_rendered_text(text if isinstance(text, str) else "", counter)


def _count_rendered_text(text: str, counter: TokenCounter) -> int:
    return MESSAGE_OVERHEAD_TOKENS + sum(_count_line(line, counter) for line in text.split("\n"))


def count_digest(message: dict[str, Any], counter: TokenCounter) -> int:
    """Tokens of a digest message as every figure counts it: `counter.count_message`'s
    figure, from the count the message carries (`carry_line_count`) or its text counted
    whole, without the message memo, which would snapshot the thousand entries it holds."""
    return MESSAGE_OVERHEAD_TOKENS + counter.count_message_content(message)


def carry_line_count(message: dict[str, Any], counter: TokenCounter) -> dict[str, Any]:
    """A digest message marked with its lines' count (`count_rendered_message`, without
    the overhead) as the count of its text (`tokens.COUNT_KEY`): each line was counted as
    it was written, so the whole text is never tokenized again, and the message counts
    the same on any counter."""
    text = message.get("content")
    lines = count_rendered_message(message, counter) - MESSAGE_OVERHEAD_TOKENS
    return counter.carry_count(message, text, lines) if isinstance(text, str) else message
