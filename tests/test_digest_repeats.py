"""A request the user made again and again takes one digest line (`digest.repeats`).

An outside tester typed the same request 100 times among 5 unique ones: the digest spent its
budget on 45 identical lines and folded the unique early requests into the "older requests"
range. Requests whose texts are the same but for leading and trailing whitespace now share one
line that says how often they were asked, with the pointers of the last and the first ask, so the
budget names distinct requests. These tests hold the line, its stored form, the fold's count and
range, and the rule that a written part never changes.

A second tester (fix21a) repeated a 1,038-character request 100 times: each refit cut it to its
head, and a shortened entry was never merged (its whole text was gone), so every refit cycle
added one more line for it (4 in the end) and the fold swallowed "plum" and the fact again. A
shortened entry now keeps a hash of its whole text (`whole_key`), and asks are grouped by it.
"""

from __future__ import annotations

import json

from compaction_support import make_counter
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_cli.compaction.digest.entries import Digest, digest_from_message, digest_to_data
from agent_cli.compaction.digest.merge import build_counted_message, fit_digest, refit_digest
from agent_cli.compaction.digest.removed_items import (
    SHORT_REQUEST_CHARS,
    SHORTEST_REQUEST_CHARS,
    RequestEntry,
    count_line,
    cut_request,
    request_key,
    request_line,
)
from agent_cli.compaction.digest.render import render_digest, render_digest_parts
from agent_cli.compaction.digest.repeats import asks_and_firsts, group_repeats
from agent_cli.provider.wire_message import build_wire_message
from agent_cli.secret_forms import NO_SECRETS, SecretForms
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


def test_a_long_request_asked_again_is_shortened_once_and_a_new_ask_joins_its_line() -> None:
    paste = "Traceback line: lorem ipsum dolor sit amet\n" * 12
    fitted = refit_digest(Digest(), newest_first([paste, "plum", paste, paste]), [], 100, COUNTER)
    [shared, plum] = request_lines(render_digest(fitted.digest))
    assert shared.startswith(
        f"- (asked 3 times; last {pointer(4)}, first {pointer(1)}; "
        f"shortened from {len(paste):,} chars) Traceback line"
    )
    assert plum == "- plum"
    # the shortened line keeps its whole text's key: a new ask of the paste joins it
    again = refit_digest(fitted.digest, newest_first([paste], start=9), [], 400, COUNTER)
    assert [entry.asked for entry in again.digest.requests] == [4, 1]
    assert f"(asked 4 times; last {pointer(9)}, first {pointer(1)})" in render_digest(again.digest)


# The second tester's request: 1,038 characters, asked again and again.
LONG = (
    "please check the status of the nightly build on the main branch and tell me whether the "
    "integration tests in the payments module passed, and if not which ones failed and why"
) * 6


def shortened_asks(text: str, numbers: list[int], limit: int) -> list[RequestEntry]:
    """Asks of `text` at `numbers` (newest first), each cut to its head at `limit` as a refit
    cuts it."""
    asks = [RequestEntry(text, pointer(n), number=n) for n in sorted(numbers, reverse=True)]
    return [cut_request(ask, limit, NO_SECRETS) for ask in asks]


def test_shortened_asks_of_one_request_share_one_line_with_its_whole_asks() -> None:
    """Asks cut at either limit, cut twice, or kept whole (with a trailing newline, which
    does not count) are one request: one entry, every ask counted, the newest's text."""
    at_200 = shortened_asks(LONG, [3, 9], SHORT_REQUEST_CHARS)
    at_60 = shortened_asks(LONG, [5], SHORTEST_REQUEST_CHARS)
    cut_twice = [cut_request(entry, SHORTEST_REQUEST_CHARS, NO_SECRETS) for entry in at_200]
    whole = [RequestEntry(LONG + "\n", pointer(7), number=7)]
    entries = sorted([*at_200, *at_60, *whole, *cut_twice], key=lambda e: -(e.number or 0))
    entries.insert(2, RequestEntry("plum", pointer(8), number=8))
    [shared, plum] = group_repeats(entries)
    assert (shared.asked, shared.pointer, shared.first) == (6, pointer(9), pointer(3))
    assert shared.text == LONG[:SHORT_REQUEST_CHARS] and shared.whole_key == request_key(LONG)
    assert request_line(shared).startswith(
        f"- (asked 6 times; last {pointer(9)}, first {pointer(3)}; shortened from 1,038 chars) "
    )
    assert plum.text == "plum"
    # whole and newest: the whole text stands for all its asks
    [newest_whole] = group_repeats([RequestEntry(LONG, pointer(10), number=10), *at_200])
    assert (newest_whole.text, newest_whole.asked, newest_whole.first) == (LONG, 3, pointer(3))


def test_requests_sharing_a_head_but_not_their_whole_text_stay_apart() -> None:
    """Two long requests with the same first 300 characters: their heads are the same at
    both limits, and they are still two lines, whole or shortened."""
    payments, billing = LONG + " and the payments tests", LONG + " and the billing tests"
    for limit in (SHORT_REQUEST_CHARS, SHORTEST_REQUEST_CHARS):
        a, b = shortened_asks(payments, [4], limit), shortened_asks(billing, [3], limit)
        assert a[0].text == b[0].text  # the same head
        mixed = [RequestEntry(billing, pointer(5), number=5), *a, *b]
        grouped = group_repeats(mixed)
        assert [(e.pointer, e.asked) for e in grouped] == [(pointer(5), 2), (pointer(4), 1)]
    fitted = refit_digest(Digest(), newest_first([payments, billing, payments]), [], 150, COUNTER)
    assert [(e.asked, e.shortened_from) for e in fitted.digest.requests] == [(2, 1061), (1, 1060)]
    again = refit_digest(fitted.digest, newest_first([billing], start=9), [], 150, COUNTER)
    lines = request_lines(render_digest(again.digest))
    assert [line.split(";")[0] for line in lines] == ["- (asked 2 times", "- (asked 2 times"]
    assert [(e.pointer, e.first) for e in again.digest.requests] == [
        (pointer(9), pointer(2)),
        (pointer(3), pointer(1)),
    ]


def test_a_shortened_lines_key_is_stored_read_back_and_never_rendered() -> None:
    fitted = refit_digest(Digest(), newest_first([LONG, "plum", LONG]), [], 80, COUNTER)
    message = build_counted_message(fitted, COUNTER)
    [shared, plum] = message["_digest"]["requests"]
    assert shared["whole_key"] == request_key(LONG) and shared["shortened_from"] == len(LONG)
    assert plum == {"text": "plum", "pointer": pointer(2), "shortened_from": None}
    assert request_key(LONG) not in message["content"]  # (the model never sees it)
    again = digest_from_message(message)
    assert again.requests[0].whole_key == request_key(LONG)
    assert digest_to_data(again) == digest_to_data(fitted.digest)


def test_the_key_gives_back_nothing_the_cut_left_out_and_the_wire_does_not_carry_it() -> None:
    """A secret past the head: neither the stored data nor the wire holds it (the key is a
    hash); the wire sends the digest's text only, without its private data."""
    secret = "hunter2-hunter2-hunter2"
    text = f"{LONG[:150]} the password is {secret} {LONG}"
    forms = SecretForms.from_values([secret])
    fitted = refit_digest(Digest(), newest_first([text, "plum", text]), [], 80, COUNTER, forms)
    message = build_counted_message(fitted, COUNTER)
    assert message["_digest"]["requests"][0]["whole_key"] == request_key(text)
    assert secret not in json.dumps(message)
    wire = build_wire_message(message, 0)
    assert request_key(text) not in json.dumps(wire.blocks)
    assert [block["text"] for block in wire.blocks] == [message["content"]]


def test_a_digest_stored_before_whole_keys_loads_and_its_shortened_lines_stay_apart() -> None:
    """A digest written before this change has no `whole_key`: it reads as before, and its
    shortened line is not merged (its whole text is not known); a malformed key reads as
    absent, and a key on a whole request is not taken."""
    fitted = refit_digest(Digest(), newest_first([LONG, "plum", LONG]), [], 80, COUNTER)
    message = build_counted_message(fitted, COUNTER)
    for stored in (None, "not a key", 12, request_key(LONG).upper()):
        old = {**message, "_digest": {**message["_digest"]}}
        requests = [dict(item) for item in message["_digest"]["requests"]]
        if stored is None:
            del requests[0]["whole_key"]
        else:
            requests[0]["whole_key"] = stored
        old["_digest"]["requests"] = requests
        digest = digest_from_message(old)
        assert render_digest(digest) == message["content"]  # reads as it was written
        assert digest.requests[0].whole_key is None
        later = refit_digest(digest, newest_first([LONG], start=9), [], 400, COUNTER)
        assert [entry.asked for entry in later.digest.requests] == [1, 2, 1]
    whole = {"text": "plum", "pointer": pointer(2), "whole_key": request_key("plum")}
    assert digest_from_message({"_digest": {"requests": [whole]}}).requests[0].whole_key is None


def test_a_long_request_asked_100_times_over_many_refits_and_resumes_is_one_line() -> None:
    """The second tester's shape at the scale of the merge: each compaction takes the next
    few asks out of the view (a new part, or a refit when the part does not fit), and the
    digest is read back from its stored message each time, as a resumed session reads it.
    The long request ends as one line per part, one in all after a refit, and every distinct
    request is named: none is folded."""
    texts = ["remember: the deploy key id is K-4471", "first unique request: plum"]
    for number in range(100):
        texts.append(LONG)
        if number in (10, 30, 50, 70, 90):
            texts.append(f"unique interjection {number} quince{number}")
    counter, digest, refits = TokenCounter(), Digest(), 0  # (its line costs 200 whole: cut)
    for start in range(0, len(texts), 3):
        batch = newest_first(texts[start : start + 3], start=start + 1)
        fitted = fit_digest(digest, batch, [], 200, counter)
        refits += not fitted.digest.parts
        digest = digest_from_message(build_counted_message(fitted, counter))
    assert refits > 30  # the shape the tester met: refit after refit, each cutting it
    for part in render_digest_parts(digest):
        assert sum(LONG[:40] in line for line in request_lines(part)) <= 1, part
    final = refit_digest(digest, [], [], 200, counter)
    lines = request_lines(render_digest(final.digest))
    [shared] = [line for line in lines if LONG[:40] in line]
    assert shared.startswith(
        f"- (asked 100 times; last {pointer(len(texts))}, first {pointer(3)}; "
        "shortened from 1,038 chars) please check the status"
    )
    assert [line for line in lines if LONG[:40] not in line] == [
        f"- {text}" for text in reversed(texts) if text != LONG
    ]
    assert not final.digest.older_requests.count


def test_a_line_without_pointers_still_says_how_often() -> None:
    entries = [RequestEntry("fix it"), RequestEntry("fix it"), RequestEntry("fix it")]
    [shared] = group_repeats(entries)
    assert request_line(shared) == "- fix it (asked 3 times)"
    same_record = [RequestEntry("x", pointer(5), number=5), RequestEntry("x", pointer(5), number=5)]
    assert request_line(group_repeats(same_record)[0]) == f"- x (asked 2 times; last {pointer(5)})"


# --- a differential check of the grouping against the rule written out plainly -------------

_HEAD = "check the nightly build on the main branch " * 6  # (past either cut)
_TEXTS = st.sampled_from(
    [
        *("fix it", "fix it ", "\nfix it", "fix  it", "plum", "数据", "a b"),
        *(_HEAD + "payments", _HEAD + "billing", _HEAD + "payments\n", "  " + _HEAD + "payments"),
    ]
)
Drawn = tuple[RequestEntry, str | None]  # an entry, and the stripped whole text it stands for


@st.composite
def _entries(draw: st.DrawFn) -> list[Drawn]:
    """Newest-first entries with record numbers (some absent), some already shared (as a
    stored digest holds them), some shortened once or twice (keeping their whole text's key),
    and some shortened as a digest stored before that key was kept (their whole text unknown)."""
    count = draw(st.integers(0, 30))
    numbers = sorted(draw(st.sets(st.integers(2, 999), min_size=count, max_size=count)))
    made: list[Drawn] = []
    for number in numbers:
        text = draw(_TEXTS)
        at = None if draw(st.integers(0, 9)) == 0 else pointer(number)
        entry, whole = RequestEntry(text, at, number=number if at else None), text.strip()
        kind = draw(st.sampled_from(["once", "once", "shared", "shortened", "unkeyed"]))
        if kind == "shared":
            first = draw(st.one_of(st.none(), st.integers(1, number).map(pointer)))
            entry = entry._replace(asked=draw(st.integers(2, 50)), first=first)
        if kind in ("shared", "shortened"):
            limits = draw(st.sampled_from([(), (200,), (60,), (200, 60)]))
            for limit in limits:
                if len(entry.text) > limit:  # (as the fit cuts: only past a limit)
                    entry = cut_request(entry, limit, NO_SECRETS)
        elif kind == "unkeyed":
            entry, whole = entry._replace(shortened_from=len(text) + 40), None
        made.append((entry, whole))
    return made[::-1]


def _group_plainly(drawn: list[Drawn]) -> list[tuple[str, str | None, int, str | None]]:
    """Each entry, in order, merged into the first earlier output standing for the same whole
    text (stripped; never one whose whole text is unknown); the first ask the lowest numbered
    of theirs, else the oldest one's."""
    out: list[list[Drawn]] = []
    for entry, whole in drawn:
        home = next((group for group in out if whole and group[0][1] == whole), None)
        if home is None:
            out.append([(entry, whole)])
        else:
            home.append((entry, whole))
    made = []
    for drawn_group in out:
        group = [entry for entry, _ in drawn_group]
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
@given(drawn=_entries())
def test_grouping_is_the_plain_rule_and_keeps_every_ask(drawn: list[Drawn]) -> None:
    entries = [entry for entry, _ in drawn]
    grouped = group_repeats(entries)
    assert [(e.text, e.pointer, e.asked, e.first) for e in grouped] == _group_plainly(drawn)
    assert sum(e.asked for e in grouped) == sum(e.asked for e in entries)
    assert asks_and_firsts(grouped)[0] == sum(e.asked for e in entries)
    keys = [e.whole_key if e.shortened_from else request_key(e.text) for e in grouped]
    known = [key for key in keys if key]
    assert len(known) == len(set(known))  # one line per request
    assert group_repeats(grouped) == grouped  # grouping again changes nothing


@settings(max_examples=100, deadline=None)
@given(drawn=_entries(), budget=st.integers(1, 400))
def test_a_refit_names_or_folds_every_ask_once(drawn: list[Drawn], budget: int) -> None:
    entries = [entry for entry, _ in drawn]
    counter, _ = make_counter()
    fitted = refit_digest(Digest(), entries, [], budget, counter)
    digest = fitted.digest
    named = sum(entry.asked for entry in digest.requests)
    assert named + digest.older_requests.count == sum(entry.asked for entry in entries)
    assert fitted.line_tokens == count_line(render_digest(digest), counter)
    # and a refit of what it stored, with the same asks again, names or folds each once more
    again = refit_digest(
        digest_from_message(build_counted_message(fitted, counter)), entries, [], budget, counter
    )
    named = sum(entry.asked for entry in again.digest.requests)
    assert named + again.digest.older_requests.count == 2 * sum(entry.asked for entry in entries)
