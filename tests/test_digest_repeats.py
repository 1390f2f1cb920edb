"""A request the user made again and again takes one digest line (`digest.repeats`).

An outside tester typed the same request 100 times among 5 unique ones: the digest spent its
budget on 45 identical lines and folded the unique early requests into the "older requests"
range. Requests whose texts are the same but for leading and trailing whitespace now share one
line that says how often they were asked, with the pointers of the last and the first ask, so the
budget names distinct requests. These tests hold the line, its stored form, the fold's count and
range, and the rule that a written part never changes.
"""

from __future__ import annotations

from compaction_support import make_counter
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_cli.compaction.digest.entries import Digest, digest_from_message, digest_to_data
from agent_cli.compaction.digest.merge import build_counted_message, fit_digest, refit_digest
from agent_cli.compaction.digest.removed_items import RequestEntry, count_line, request_line
from agent_cli.compaction.digest.render import render_digest, render_digest_parts
from agent_cli.compaction.digest.repeats import asks_and_firsts, group_repeats
from agent_cli.tokens import TokenCounter

COUNTER = TokenCounter()
STATUS = "what is the status of the build?"


def pointer(number: int) -> str:
    return f"transcript:s1:{number}"


def newest_first(texts: list[str], start: int = 1) -> list[RequestEntry]:
    """Requests typed in the order of `texts`, record numbers from `start`, newest first."""
    typed = [RequestEntry(t, pointer(n), number=n) for n, t in enumerate(texts, start)]
    return typed[::-1]


def the_testers_texts() -> list[str]:
    """The tester's session: a fact typed as plain text, a unique request, then the same
    request 100 times with 5 unique ones among them."""
    texts = ["remember: the deploy key id is K-4471", "first unique request: plum"]
    for number in range(100):
        texts.append(STATUS)
        if number in (10, 30, 50, 70, 90):
            texts.append(f"unique interjection {number} quince{number}")
    return texts


def request_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- ")]


def test_a_request_asked_100_times_is_one_line_and_the_unique_ones_are_named() -> None:
    texts = the_testers_texts()
    fitted = refit_digest(Digest(), newest_first(texts), [], 250, COUNTER)
    text = render_digest(fitted.digest)
    last_ask = len(texts) - texts[::-1].index(STATUS)
    assert request_lines(text) == [
        f"- {STATUS} (asked 100 times; last {pointer(last_ask)}, first {pointer(3)})",
        *(f"- {t}" for t in reversed(texts) if t != STATUS),
    ]
    assert not fitted.digest.older_requests.count  # nothing folded: distinct requests fit
    assert fitted.line_tokens == count_line(text, COUNTER)  # the count stays exact


def test_without_sharing_the_same_budget_held_identical_lines_and_folded_the_unique_ones() -> None:
    """The budget of the test above, one line per ask (as before): it is the shared line that
    keeps "plum" and the plain-text fact named."""
    texts = the_testers_texts()
    separate = [e._replace(text=f"{e.text} #{e.number}") for e in newest_first(texts)]
    fitted = refit_digest(Digest(), separate, [], 250, COUNTER)
    assert fitted.digest.older_requests.count > 0
    assert "plum" not in "\n".join(request_lines(render_digest(fitted.digest))[:-1])


def test_the_fold_counts_asks_and_its_range_takes_in_a_folded_lines_first_ask() -> None:
    """A repeated request whose first ask is the session's oldest folds with the unique ones
    after it: the "older requests" line counts every ask and starts at that first ask."""
    texts = ["repeat me", "u1", "u2", "repeat me", "u3"]
    texts += [f"a newer request number {n} with a few more words in it" for n in range(40)]
    fitted = refit_digest(Digest(), newest_first(texts), [], 60, COUNTER)
    digest = fitted.digest
    folded = digest.older_requests
    named = sum(entry.asked for entry in digest.requests)
    assert folded.count and named + folded.count == len(texts)  # every ask, once
    assert (folded.first, folded.last) == (pointer(1), pointer(len(texts) - len(digest.requests)))
    assert f"recall by pointer from {pointer(1)} to" in render_digest(digest)
    assert fitted.line_tokens == count_line(render_digest(digest), COUNTER)


def test_the_shared_line_is_stored_and_read_back_and_a_single_request_stored_as_before() -> None:
    fitted = refit_digest(Digest(), newest_first(["fix it", "plum", "fix it"]), [], 500, COUNTER)
    message = build_counted_message(fitted, COUNTER)
    stored = message["_digest"]["requests"]
    assert stored == [
        {
            "text": "fix it",
            "pointer": pointer(3),
            "shortened_from": None,
            "asked": 2,
            "first": pointer(1),
        },
        {"text": "plum", "pointer": pointer(2), "shortened_from": None},  # no new keys
    ]
    again = digest_from_message(message)
    assert digest_to_data(again) == digest_to_data(fitted.digest)
    assert render_digest_parts(again) == [message["content"]]  # the wire renders it alike


def test_a_later_part_shares_a_line_among_its_own_and_leaves_the_written_part_alone() -> None:
    counter = TokenCounter()
    first = fit_digest(Digest(), newest_first([STATUS, "plum"]), [], 2_000, counter)
    later = newest_first([STATUS, "fig", STATUS, STATUS], start=10)
    appended = fit_digest(first.digest, later, [], 2_000, counter)
    parts = render_digest_parts(appended.digest)
    assert parts[0] == render_digest(first.digest)  # byte for byte: its cache stays
    assert request_lines(parts[1]) == [
        f"- {STATUS} (asked 3 times; last {pointer(13)}, first {pointer(10)})",
        "- fig",
    ]
    assert appended.line_tokens == count_line(render_digest(appended.digest), counter)
    refitted = refit_digest(appended.digest, [], [], 2_000, counter)  # everything in one part
    assert request_lines(render_digest(refitted.digest))[0] == (
        f"- {STATUS} (asked 4 times; last {pointer(13)}, first {pointer(1)})"
    )


def test_a_stored_shared_line_refits_unchanged_when_nothing_new_asks_it() -> None:
    """Deterministic: a refit of the digest read back from its message writes the same lines."""
    fitted = refit_digest(Digest(), newest_first(the_testers_texts()), [], 250, COUNTER)
    message = build_counted_message(fitted, COUNTER)
    again = refit_digest(digest_from_message(message), [], [], 250, COUNTER)
    assert render_digest(again.digest) == message["content"]
    assert again.line_tokens == fitted.line_tokens


def test_only_leading_and_trailing_whitespace_is_set_aside() -> None:
    entries = newest_first(["fix it", "fix  it", "  fix it\n", "Fix it"])
    lines = [request_line(entry) for entry in group_repeats(entries)]
    assert lines == [
        "- Fix it",  # another request: case counts
        f"- fix it (asked 2 times; last {pointer(3)}, first {pointer(1)})",
        "- fix  it",  # inner whitespace counts (code and tables keep their shape)
    ]


def test_a_long_request_asked_again_is_shortened_once_and_a_shortened_one_never_merged() -> None:
    paste = "Traceback line: lorem ipsum dolor sit amet\n" * 12
    fitted = refit_digest(Digest(), newest_first([paste, "plum", paste, paste]), [], 100, COUNTER)
    [shared, plum] = request_lines(render_digest(fitted.digest))
    assert shared.startswith(
        f"- (asked 3 times; last {pointer(4)}, first {pointer(1)}; "
        f"shortened from {len(paste):,} chars) Traceback line"
    )
    assert plum == "- plum"
    # its whole text is not known any more: a new ask of the paste is a line of its own
    again = refit_digest(fitted.digest, newest_first([paste], start=9), [], 400, COUNTER)
    assert [entry.asked for entry in again.digest.requests] == [1, 3, 1]


def test_a_line_without_pointers_still_says_how_often() -> None:
    entries = [RequestEntry("fix it"), RequestEntry("fix it"), RequestEntry("fix it")]
    [shared] = group_repeats(entries)
    assert request_line(shared) == "- fix it (asked 3 times)"
    same_record = [RequestEntry("x", pointer(5), number=5), RequestEntry("x", pointer(5), number=5)]
    assert request_line(group_repeats(same_record)[0]) == f"- x (asked 2 times; last {pointer(5)})"


# --- a differential check of the grouping against the rule written out plainly -------------

_TEXTS = st.sampled_from(["fix it", "fix it ", "\nfix it", "fix  it", "plum", "数据", "a b"])


@st.composite
def _entries(draw: st.DrawFn) -> list[RequestEntry]:
    """Newest-first entries with record numbers (some absent), some already shared (as a
    stored digest holds them) and some shortened."""
    count = draw(st.integers(0, 30))
    numbers = sorted(draw(st.sets(st.integers(2, 999), min_size=count, max_size=count)))
    made = []
    for number in numbers:
        text = draw(_TEXTS)
        at = None if draw(st.integers(0, 9)) == 0 else pointer(number)
        entry = RequestEntry(text, at, number=number if at else None)
        kind = draw(st.sampled_from(["once", "once", "shared", "shortened"]))
        if kind == "shared":
            first = draw(st.one_of(st.none(), st.integers(1, number).map(pointer)))
            entry = entry._replace(asked=draw(st.integers(2, 50)), first=first)
        elif kind == "shortened":
            entry = entry._replace(shortened_from=len(text) + 40)
        made.append(entry)
    return made[::-1]


def _group_plainly(entries: list[RequestEntry]) -> list[tuple[str, str | None, int, str | None]]:
    """Each entry, in order, merged into the first earlier output with the same stripped text
    (neither shortened); the first ask the lowest numbered of theirs, else the oldest one's."""
    out: list[list[RequestEntry]] = []
    for entry in entries:
        home = next(
            (
                group
                for group in out
                if not entry.shortened_from
                and not group[0].shortened_from
                and group[0].text.strip() == entry.text.strip()
            ),
            None,
        )
        if home is None:
            out.append([entry])
        else:
            home.append(entry)
    made = []
    for group in out:
        newest = group[0]
        if len(group) == 1:
            made.append((newest.text, newest.pointer, newest.asked, newest.first))
            continue
        asks = [e.first or e.pointer for e in group]
        numbered = sorted((int(p.rsplit(":", 1)[1]), p) for p in asks if p)
        first = numbered[0][1] if numbered else group[-1].first or group[-1].pointer
        made.append((newest.text, newest.pointer, sum(e.asked for e in group), first))
    return made


@settings(max_examples=300, deadline=None)
@given(entries=_entries())
def test_grouping_is_the_plain_rule_and_keeps_every_ask(entries: list[RequestEntry]) -> None:
    grouped = group_repeats(entries)
    assert [(e.text, e.pointer, e.asked, e.first) for e in grouped] == _group_plainly(entries)
    assert sum(e.asked for e in grouped) == sum(e.asked for e in entries)
    assert asks_and_firsts(grouped)[0] == sum(e.asked for e in entries)
    kept = [e.text.strip() for e in grouped if not e.shortened_from]
    assert len(kept) == len(set(kept))  # one line per request
    assert group_repeats(grouped) == grouped  # grouping again changes nothing


@settings(max_examples=100, deadline=None)
@given(entries=_entries(), budget=st.integers(1, 400))
def test_a_refit_names_or_folds_every_ask_once(entries: list[RequestEntry], budget: int) -> None:
    counter, _ = make_counter()
    fitted = refit_digest(Digest(), entries, [], budget, counter)
    digest = fitted.digest
    named = sum(entry.asked for entry in digest.requests)
    assert named + digest.older_requests.count == sum(entry.asked for entry in entries)
    assert fitted.line_tokens == count_line(render_digest(digest), counter)
