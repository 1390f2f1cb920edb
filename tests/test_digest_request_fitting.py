"""Fitting the user's requests into the digest counts only what decides the fit.

`merge._fit_requests` keeps requests whole while they fit the budget and shortens the
rest to a head. A request that may be shortened is counted only until its lines pass the
room left, and not at all once the budget is spent: a session of long pastes made a
compaction tokenize every paste whole only to cut it to 200 characters (0.3x the seed's
speed on an 8,001-message view with a 5 KB paste every fifth turn). These tests hold the
fit equal to the rule that counts every request whole, and bound what it counts.
"""

from __future__ import annotations

from compaction_support import make_counter
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agent_cli.compaction.digest.merge import _fit_requests
from agent_cli.compaction.digest.removed_items import (
    SHORT_REQUEST_CHARS,
    SHORTEST_REQUEST_CHARS,
    RequestEntry,
    count_line,
    request_key,
    request_line,
)
from agent_cli.compaction.message_facts import MessageFacts, note_requests
from agent_cli.safe_cuts import safe_head_end
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.tokens import TokenCounter

COUNTER = TokenCounter()
OTHER_COUNTER = make_counter()[0]  # counts a quarter of the characters, unlike cl100k
SECRET = "hunter2-hunter2"
SECRETS = SecretForms.from_values([SECRET])


def _fit_counting_every_request_whole(
    entries: list[RequestEntry],
    budget: int,
    counter: TokenCounter,
    secrets: SecretForms = NO_SECRETS,
) -> tuple[list[RequestEntry], int, list[RequestEntry]]:
    """The rule as the module contract states it, every request counted whole first; a cut keeps
    the key of the whole text (`repeats` knows a shortened request's asks by it)."""
    used, fitted = 0, list[RequestEntry]()
    for position, entry in enumerate(entries):
        cost = count_line(request_line(entry), counter)
        for limit, allowed in (
            (SHORT_REQUEST_CHARS, budget),
            (SHORTEST_REQUEST_CHARS, budget * 1.5),
        ):
            if used + cost > allowed and len(entry.text) > limit:
                original = entry.shortened_from or len(entry.text)
                key = entry.whole_key if entry.shortened_from else request_key(entry.text)
                head = entry.text[: safe_head_end(entry.text, limit, secrets)]
                entry = entry._replace(
                    text=head, shortened_from=original, counted=None, whole_key=key
                )
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


# a secret, a pointer or a line break where a head is cut (60 or 200 characters)
_AT_A_CUT = st.builds(
    lambda lead, piece, tail: "w" * lead + piece + tail,
    st.integers(min_value=40, max_value=215),
    st.sampled_from([SECRET, "transcript:s1:1234567", "\n", " "]),
    st.sampled_from(["", " and more words" * 4, "z" * 300]),
)


def _bare(entries: list[RequestEntry]) -> list[RequestEntry]:
    """The entries as the digest shows them: without the counts and heads they carry."""
    return [entry._replace(counted=None, heads=None) for entry in entries]


@settings(max_examples=300, deadline=None)
@given(
    texts=st.lists(st.one_of(_TEXTS, _AT_A_CUT).filter(str.strip), min_size=1, max_size=12),
    budget=st.integers(min_value=1, max_value=1_500),
    by_this_counter=st.booleans(),
    under_these_forms=st.booleans(),
)
@example(["w" * 190 + SECRET + "z" * 300], 1, True, False)  # a cut inside the secret
def test_the_heads_the_check_recorded_fit_as_heads_cut_and_counted_afresh(
    texts: list[str], budget: int, by_this_counter: bool, under_these_forms: bool
) -> None:
    """The per-turn check records each request's heads, cut and counted
    (`note_requests`, `removed_items.with_heads`); a refit takes a head only where it was cut
    under the run's secret forms, and its count only where this very counter made it,
    and fits exactly as the rule that cuts and counts every head afresh."""
    recorder = COUNTER if by_this_counter else OTHER_COUNTER
    forms = SECRETS if under_these_forms else NO_SECRETS
    facts = MessageFacts(tuple(texts), (), (), "transcript:s:7", 0)
    recorded = list(note_requests(facts, recorder, forms).requests)
    plain = [RequestEntry(text, "transcript:s:7", number=7) for text in texts]
    fitted, used, folded = _fit_requests(recorded, budget, COUNTER, SECRETS)
    expected, expected_used, expected_folded = _fit_counting_every_request_whole(
        plain, budget, COUNTER, SECRETS
    )
    assert (_bare(fitted), used, _bare(folded)) == (expected, expected_used, expected_folded)
