"""Fitting the user's requests into the digest counts only what decides the fit.

`merge._fit_requests` keeps requests whole while they fit the budget and shortens the
rest to a head. A request that may be shortened is counted only until its lines pass the
room left, and not at all once the budget is spent: a session of long pastes made a
compaction tokenize every paste whole only to cut it to 200 characters (0.3x the seed's
speed on an 8,001-message view with a 5 KB paste every fifth turn). These tests hold the
fit equal to the rule that counts every request whole, and bound what it counts.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_cli.compaction.digest.merge import (
    SHORT_REQUEST_CHARS,
    SHORTEST_REQUEST_CHARS,
    _fit_requests,
)
from agent_cli.compaction.digest.removed_items import RequestEntry, count_line
from agent_cli.compaction.digest.render import request_line
from agent_cli.safe_cuts import safe_head_end
from agent_cli.secret_forms import NO_SECRETS
from agent_cli.tokens import TokenCounter

COUNTER = TokenCounter()


def _fit_counting_every_request_whole(
    entries: list[RequestEntry], budget: int, counter: TokenCounter
) -> tuple[list[RequestEntry], int, list[RequestEntry]]:
    """The rule as the module contract states it, every request counted whole first."""
    used, fitted = 0, list[RequestEntry]()
    for position, entry in enumerate(entries):
        cost = count_line(request_line(entry), counter)
        for limit, allowed in (
            (SHORT_REQUEST_CHARS, budget),
            (SHORTEST_REQUEST_CHARS, budget * 1.5),
        ):
            if used + cost > allowed and len(entry.text) > limit:
                original = entry.shortened_from or len(entry.text)
                head = entry.text[: safe_head_end(entry.text, limit, NO_SECRETS)]
                entry = entry._replace(text=head, shortened_from=original, counted=None)
                cost = count_line(request_line(entry), counter)
        if fitted and used + cost > 2 * budget:
            return fitted, used, entries[position:]
        used += cost
        fitted.append(entry)
    return fitted, used, []


_WORDS = st.sampled_from(["fix", "the", "build", "tests", "λ", "数据", "  ", "\n", "a" * 40])
_TEXTS = st.one_of(
    st.lists(_WORDS, max_size=30).map("".join),
    st.integers(min_value=0, max_value=400).map(lambda n: "paste line\n" * n),
    st.integers(min_value=0, max_value=3_000).map(lambda n: "pasted words " * n),
)


@settings(max_examples=300, deadline=None)
@given(
    texts=st.lists(_TEXTS.filter(str.strip), min_size=1, max_size=25),
    budget=st.integers(min_value=1, max_value=3_000),
    shortened=st.booleans(),
)
def test_the_fit_is_the_rule_that_counts_every_request_whole(
    texts: list[str], budget: int, shortened: bool
) -> None:
    entries = [
        RequestEntry(text, f"transcript:s:{n}", len(text) + 7 if shortened else None)
        for n, text in enumerate(texts, 1)
    ]
    assert _fit_requests(entries, budget, COUNTER, NO_SECRETS) == (
        _fit_counting_every_request_whole(entries, budget, COUNTER)
    )


class CountingCounter(TokenCounter):
    """A counter that adds up the characters it was asked to count."""

    characters = 0

    def count_text(self, text: str) -> int:
        self.characters += len(text)
        return super().count_text(text)


def test_a_paste_past_the_spent_budget_is_cut_without_being_counted_whole() -> None:
    paste = "Traceback line: lorem ipsum dolor sit amet\n" * 120  # about 5,000 characters
    pastes = [RequestEntry(f"paste {n}: {paste}", None) for n in range(40)]
    counter, whole = CountingCounter(), CountingCounter()
    fitted = _fit_requests(pastes, 2_000, counter, NO_SECRETS)
    assert fitted == _fit_counting_every_request_whole(pastes, 2_000, whole)
    assert len(fitted[0]) == 40 and fitted[0][-1].shortened_from  # none folded; all cut
    assert whole.characters > 30 * len(paste)  # every paste counted whole, then cut
    # each counted only until it passes the room left (none once it is spent), then its head
    assert counter.characters < whole.characters / 2


def test_every_budget_around_the_requests_costs_fits_as_the_rule_does() -> None:
    """Each budget from 1 to past the requests' cost, so every boundary (a line that just
    fits, a head that just fits one and a half budgets) is met exactly once."""
    texts = [
        "short one",
        "a request of ninety characters or so, asking for the build to be fixed and tests run",
        "line of a pasted log with words\n" * 12,
        "one long line " * 30,
        "b" * 70,
    ]
    entries = [RequestEntry(text, f"transcript:s:{n}") for n, text in enumerate(texts, 1)]
    for budget in range(1, 700):
        assert _fit_requests(entries, budget, COUNTER, NO_SECRETS) == (
            _fit_counting_every_request_whole(entries, budget, COUNTER)
        ), budget
