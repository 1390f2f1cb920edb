"""The running digest: whatever compaction removes leaves a trace with a pointer back."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from typing import Any

import pytest
from compaction_support import (
    assistant,
    build_long_history,
    call_pair,
    make_counter,
    merge_digest,
    policies,
    read_use,
    text,
    tool_result,
    tool_use,
    user,
    valid_histories,
)
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from agent_cli.compaction import (
    CompactionPolicy,
    MessageViewLimitExceeded,
    ViewIndex,
    compact_context,
    dedup_file_reads,
    truncate_tool_results,
    validate_tool_protocol,
)
from agent_cli.compaction.digest.entries import Digest, digest_from_message, sequence_of
from agent_cli.compaction.digest.merge import (
    REFIT_HEADROOM,
    REQUESTS_FOLD_AFTER,
    count_rendered_message,
)
from agent_cli.compaction.digest.removed_items import (
    RemovedInteraction,
    RequestEntry,
    describe_interaction,
    request_key,
)
from agent_cli.compaction.digest.render import build_digest_message, split_digest
from agent_cli.compaction.markers import (
    DIGEST_HEADER,
    DIGEST_LATER_PART,
    SOURCE_KEY,
    find_last_summary,
    is_digest_message,
    is_summary_message,
)
from agent_cli.compaction.message_facts import user_texts
from agent_cli.compaction.policy import MIN_DIGEST_TOKENS
from agent_cli.errors import WireFormatError
from agent_cli.events import ModelRequest
from agent_cli.frozen import freeze
from agent_cli.provider.wire import build_wire_request
from agent_cli.tokens import TokenCounter

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SESSION = "s1"


def with_sources(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each message as the session keeps it: pointing at its own transcript record."""
    return [{**m, SOURCE_KEY: f"transcript:{SESSION}:{i + 1}"} for i, m in enumerate(history)]


def _summary_of_nothing(messages: list[dict[str, Any]]) -> str:
    return "Summary: work went on."


def _raising(messages: list[dict[str, Any]]) -> str:
    raise RuntimeError("down")


def digest_text(view: list[dict[str, Any]]) -> str:
    found = [m["content"] for m in view if is_digest_message(m)]
    assert len(found) <= 1, "one running digest, never a pile"
    return found[0] if found else ""


def build_wire(view: list[dict[str, Any]]) -> dict[str, Any]:
    return build_wire_request(ModelRequest("system", "", tuple(view), (), 100), "claude-test")


def is_sendable(view: list[dict[str, Any]]) -> bool:
    try:
        build_wire(view)
    except WireFormatError:
        return False
    return True


def assert_sendable(view: list[dict[str, Any]]) -> None:
    """Valid for the API: the one function that builds requests accepts it."""
    validate_tool_protocol(view)
    build_wire(view)


def assert_removed_text_is_traced(text_: str, history: list[dict[str, Any]], view_text: str):
    """Verbatim in the digest or summary, or (shortened) its head next to its pointer, or
    its pointer inside the folded range of older requests."""
    if text_ in view_text:
        return
    pointer = next(m[SOURCE_KEY] for m in history if text_ in list(user_texts(m)))
    if f"({pointer}; shortened from {len(text_):,} chars) {text_[:60]}" in view_text:
        return
    if re.search(  # one line for a request asked again and again (`digest.repeats`)
        rf"\(asked \d+ times; last transcript:{SESSION}:\d+(, first transcript:{SESSION}:\d+)?; "
        rf"shortened from [\d,]+ chars\) {re.escape(text_[:60])}",
        view_text,
    ):
        return
    if re.search(  # the same, whole: asks that differ but for the ends' whitespace share it
        rf"^- {re.escape(text_.strip())} \(asked \d+ times; last transcript:{SESSION}:\d+",
        view_text,
        re.MULTILINE,
    ):
        return
    first, last = _folded_range(view_text, "older request")
    assert first <= (sequence_of(pointer) or 0) <= last, text_


def assert_each_ask_is_counted_once(
    history: list[dict[str, Any]], view: list[dict[str, Any]]
) -> bool:
    """The digest names or folds each user text that left, once: a line shared by a request
    asked again and again counts its asks (`digest.repeats`). True when a line is shared."""
    left = Counter(t for m in history for t in user_texts(m))
    left.subtract(t for m in view for t in user_texts(m))
    stored = next((m for m in view if is_digest_message(m)), None)
    digest = digest_from_message(stored)
    named = sum(entry.asked for entry in digest.requests) + digest.older_requests.count
    assert named == sum(left.values()), (named, left)
    for entry in digest.requests:  # (a shared line's asks all left)
        if not entry.shortened_from:
            assert entry.asked <= sum(n for t, n in left.items() if t.strip() == entry.text.strip())
        elif entry.whole_key:  # (a shortened one's, by the key of its whole text)
            assert entry.asked <= sum(
                n for t, n in left.items() if request_key(t) == entry.whole_key
            )
    return any(entry.asked > 1 for entry in digest.requests)


def assert_removed_call_is_traced(tool_id: str, history: list[dict[str, Any]], digest: str):
    """The interaction's pointer is in the digest (explicitly or inside the folded range)
    and resolves to a record that holds the interaction."""
    by_pointer = {m[SOURCE_KEY]: m for m in history}
    holders = [
        m[SOURCE_KEY]
        for m in history
        if any(
            b.get("id") == tool_id or b.get("tool_use_id") == tool_id
            for b in (m["content"] if isinstance(m["content"], list) else [])
        )
    ]
    listed = [p for p in holders if f"({p})" in digest]
    if listed:
        record = by_pointer[listed[0]]
        assert any(tool_id in (b.get("id"), b.get("tool_use_id")) for b in record["content"])
        return
    first, last = _folded_range(digest)
    assert any(first <= (sequence_of(p) or 0) <= last for p in holders), tool_id


def _folded_range(digest: str, what: str = "older interaction") -> tuple[int, int]:
    line = next(line for line in digest.splitlines() if what in line)
    words = [w for w in line.split() if w.startswith("transcript:")]
    return sequence_of(words[0]) or 0, sequence_of(words[-1]) or 0


@st.composite
def roomy_policies(draw: st.DrawFn) -> dict[str, int]:
    """Policies whose hard limit leaves room, so most runs compact rather than block;
    the digest budget from tiny (everything folds or shortens) to generous."""
    chosen = draw(policies())
    chosen["hard_limit"] = chosen["soft_threshold"] * 20 + draw(st.integers(0, 20_000))
    chosen["digest_tokens"] = draw(st.sampled_from([0, 1, 40, 2_000]))
    return chosen


# requests asked again and again (the same words, or but for the ends' whitespace; one long)
_REPEATED = st.sampled_from(["fix the build", "fix the build ", "status?", "status?", "y" * 300])


def _two_calls(first: int) -> list[dict[str, Any]]:
    """An answer making two `ls` calls and the message answering both."""
    ids = [f"toolu_{first}", f"toolu_{first + 1}"]
    calls = [{"type": "tool_use", "id": i, "name": "bash", "input": {"command": "ls"}} for i in ids]
    pieces = [{"type": "text", "text": ":"}] * 2
    results = [{"type": "tool_result", "tool_use_id": i, "content": pieces} for i in ids]
    return [{"role": "assistant", "content": calls}, {"role": "user", "content": results}]


def _asked_twice_but_for_whitespace() -> list[dict[str, Any]]:
    """`上`, then `\n 上`: both leave and share one line, whose words are the stripped
    text (found by `make test` in session 22; the oracle knew only the shortened form)."""
    user, said = ({"role": "user", "content": ":"}, {"role": "assistant", "content": ":"})
    history = [user, *_two_calls(1), *_two_calls(3)]
    history[-1] = {
        **history[-1],
        "content": [*history[-1]["content"], {"type": "text", "text": "上"}],
    }
    history += [{"role": "assistant", "content": [{"type": "text", "text": ":"}]}]
    history += [user, said, user, said, {"role": "user", "content": "\n 上"}]
    return [*history, *_two_calls(5), said, user]


@settings(SETTINGS, max_examples=400)
@given(
    history=st.one_of(valid_histories(), valid_histories(requests=_REPEATED)),
    settings_=st.one_of(policies(), roomy_policies()),
    summarizer=st.sampled_from([None, _summary_of_nothing, _raising]),
    forced=st.booleans(),
)
@example(
    history=_asked_twice_but_for_whitespace(),
    settings_={
        "soft_threshold": 20,
        "hard_limit": 620,
        "max_tool_result_tokens": 1,
        "keep_recent_messages": 1,
        "summary_keep_recent": 1,
    },
    summarizer=None,
    forced=False,
)
def test_after_any_compaction_nothing_removed_is_without_a_trace(
    history, settings_, summarizer, forced
):
    history = with_sources(history)
    counter, _ = make_counter()
    policy = CompactionPolicy(**settings_)
    try:
        result = compact_context(
            history, policy=policy, summarizer=summarizer, counter=counter, force_summary=forced
        )
    except MessageViewLimitExceeded:
        event("blocked")
        return
    view = result.messages
    validate_tool_protocol(view)
    if is_sendable(history):  # (a history of blank texts only is refused as it stands)
        assert_sendable(view)
    digest = digest_text(view)
    summary = find_last_summary(view) or ""
    kept_texts = [t for m in view for t in user_texts(m)]
    for message in history:
        for typed in user_texts(message):
            if typed not in kept_texts:
                assert_removed_text_is_traced(typed, history, digest + summary)
    event(f"a shared request line: {assert_each_ask_is_counted_once(history, view)}")
    remaining = set(validate_tool_protocol(view))
    for tool_id in set(validate_tool_protocol(history)) - remaining:
        assert_removed_call_is_traced(tool_id, history, digest)
    assert result.tokens_after == counter.count_messages(view)  # the digest is counted
    event(f"digest: {'yes' if digest else 'no'}")


def test_a_pruned_session_names_each_removed_request_and_call_with_its_pointer():
    history = with_sources(
        [
            user("Please tidy the repository."),
            *call_pair("t1", "x" * 400, read_use("t1", "src/a.py")),
            assistant("Read a.py."),
            user("Now look at the tests, please."),
            *call_pair(
                "t2",
                "boom",
                {"type": "tool_use", "id": "t2", "name": "bash", "input": {"command": "pytest -q"}},
            ),
            *build_long_history(10)[1:],
        ]
    )
    counter, _ = make_counter()
    policy = CompactionPolicy(
        soft_threshold=600, hard_limit=9_000, keep_recent_messages=4, digest_tokens=2_000
    )
    result = compact_context(history, policy=policy, counter=counter)
    digest = digest_text(result.messages)
    assert result.messages[0] is history[0] and result.messages[1]["content"] == digest
    assert digest.startswith(DIGEST_HEADER)
    assert "\n- Now look at the tests, please.\n" in digest  # whole: its words, no pointer
    assert "read_file path=src/a.py -> 400 chars, ok (transcript:s1:3)" in digest
    assert "bash command=pytest -q -> 4 chars, ok (transcript:s1:7)" in digest
    assert digest.index("pytest") < digest.index("src/a.py")  # newest first


def test_digests_merge_across_compactions_into_one_running_digest():
    counter, _ = make_counter()
    policy = CompactionPolicy(
        soft_threshold=600, hard_limit=20_000, keep_recent_messages=4, digest_tokens=3_000
    )
    first = with_sources(build_long_history(8))
    once = compact_context(first, policy=policy, counter=counter).messages
    more = [assistant("more"), user("second request")]
    for number in range(8, 16):
        more += call_pair(f"toolu_{number}", "y" * 400)
    more = [{**m, SOURCE_KEY: f"transcript:s1:{100 + i}"} for i, m in enumerate(more)]
    twice = compact_context([*once, *more], policy=policy, counter=counter).messages
    assert sum(1 for m in twice if is_digest_message(m)) == 1
    digest = digest_text(twice)
    assert "(transcript:s1:3)" in digest  # from the first compaction
    assert "\n- second request" in digest  # from the second
    assert "Thanks. What next?" in digest


def test_reads_superseded_behind_a_digest_leave_as_l2_finds_them_walking_the_view():
    """The kept index hands L2 the superseded reads by their position in the view it
    measured; the run splits the digest message off first, and those positions move
    with it: the reads that leave are those L2 finds walking the view without its digest."""
    counter, _ = make_counter()
    first = CompactionPolicy(soft_threshold=600, hard_limit=20_000, keep_recent_messages=4)
    once = compact_context(with_sources(build_long_history(8)), policy=first, counter=counter)
    assert is_digest_message(once.messages[1])  # after the user's first request
    reads = [assistant("ok"), user("read it again")]
    for number in range(6):
        reads += call_pair(f"r{number}", "body " * 100, read_use(f"r{number}", "src/a.py"))
    more = [{**m, SOURCE_KEY: f"transcript:s1:{100 + i}"} for i, m in enumerate(reads)]
    view = [freeze(message) for message in [*once.messages, *more]]
    policy = dataclasses.replace(first, soft_threshold=1_000, keep_recent_messages=len(view))
    index = ViewIndex(counter)
    index.measure(view[:-2], policy)  # the per-turn check, a turn before
    result = compact_context(view, policy=policy, index=index)
    walked, _ = dedup_file_reads([m for m in view if not is_digest_message(m)], policy, counter)
    assert result.applied_layers == ("dedup_file_reads",)
    assert [m for m in result.messages if not is_digest_message(m)] == walked
    assert set(validate_tool_protocol(walked)).isdisjoint({f"r{n}" for n in range(5)})


def test_a_refitted_digest_fills_its_budget_less_the_headroom_as_the_counter_counts_it():
    history = [user("Please tidy the repository.")]
    for number in range(300):  # wordy inputs: some four bytes a token, not three
        command = f"find the remaining callers of legacy helper number {number} and replace them"
        history += call_pair(
            f"t{number}", "x" * 300, tool_use(f"t{number}", "bash", {"command": command})
        )
    history[5:5] = [assistant("Noted."), user("Also check the docs.")]
    history = with_sources(history)
    counter = TokenCounter()  # the real encoding: the budget is in its tokens
    policy = CompactionPolicy(
        soft_threshold=4_000, hard_limit=90_000, keep_recent_messages=4, digest_tokens=1_500
    )
    result = compact_context(history, policy=policy, counter=counter)
    digest = next(m for m in result.messages if is_digest_message(m))
    assert "older interactions" in digest["content"]  # the budget ran out: lines folded
    assert "Also check the docs." in digest["content"]
    fresh = TokenCounter().count_message(digest)  # the whole text, tokenized at once
    assert counter.count_message(digest) == fresh
    fill = (1 - REFIT_HEADROOM) * policy.digest_tokens  # room left for the next parts
    assert 0.9 * fill <= fresh <= fill


def _digest_after_requests(requests: list[str], digest_tokens: int) -> str:
    """The digest's text once a compaction has taken out `requests`, each answered by a
    call, under a digest budget of `digest_tokens` (pointers `transcript:s1:N`)."""
    history: list[dict[str, Any]] = []
    for number, request in enumerate(requests):
        history += [user(request), *call_pair(f"t{number}", "z" * 40)]
    history = with_sources([*history, assistant("done"), user("last")])
    policy = CompactionPolicy(
        soft_threshold=2_000,
        hard_limit=90_000,
        keep_recent_messages=2,
        digest_tokens=digest_tokens,
    )
    result = compact_context(history, policy=policy, counter=make_counter()[0])
    return digest_text(result.messages)


def test_older_requests_are_shortened_when_the_budget_is_spent_newest_stay_whole():
    requests = [f"request {n}: " + "words " * 200 for n in range(6)]
    digest = _digest_after_requests(requests, digest_tokens=1_000)
    assert requests[5] in digest and requests[4] in digest  # newest, verbatim
    assert requests[1] not in digest
    assert "(transcript:s1:4; shortened from 1,211 chars) request 1: words" in digest


def test_the_summary_sees_the_older_part_before_anything_is_pruned():
    seen: list[list[dict[str, Any]]] = []

    def summarizer(messages: list[dict[str, Any]]) -> str:
        seen.append(messages)
        return "Goal: tidy. Files: src/a.py."

    history = with_sources([user("Please tidy the repository."), *build_long_history(20)[1:]])
    counter, _ = make_counter()
    policy = CompactionPolicy(
        soft_threshold=1_500, hard_limit=20_000, keep_recent_messages=4, summary_keep_recent=4
    )
    result = compact_context(history, policy=policy, summarizer=summarizer, counter=counter)
    assert result.applied_layers == ("generate_summary",)
    assert seen[0][0]["content"] == "Please tidy the repository."  # not pruned away first
    assert len(seen[0]) == len(history) - 4
    assert is_digest_message(result.messages[0])  # before the summary, which changes
    assert is_summary_message(result.messages[1])
    assert "\n- Please tidy the repository.\n" in digest_text(result.messages)


def test_a_failed_summary_still_leaves_the_digest_after_pruning():
    history = with_sources(build_long_history(20))
    counter, _ = make_counter()
    policy = CompactionPolicy(soft_threshold=1_500, hard_limit=20_000, keep_recent_messages=4)
    result = compact_context(history, policy=policy, summarizer=_raising, counter=counter)
    assert [(r.layer, r.outcome) for r in result.reports][-2:] == [
        (4, "summary_failed"),
        (3, "applied"),
    ]
    assert result.applied_layers == ("prune_old_messages",)
    assert "transcript:s1:3" in digest_text(result.messages)


def test_forcing_a_summary_summarizes_even_a_view_that_l1_alone_would_fit():
    calls: list[int] = []

    def summarizer(messages: list[dict[str, Any]]) -> str:
        calls.append(len(messages))
        return "short"

    history = with_sources([user("go"), *call_pair("a", "x" * 20_000), assistant("ok"), user("n")])
    counter, _ = make_counter()
    policy = CompactionPolicy(soft_threshold=2_000, hard_limit=90_000, summary_keep_recent=2)
    result = compact_context(
        history, policy=policy, summarizer=summarizer, counter=counter, force_summary=True
    )
    assert calls == [3] and result.applied_layers[0] == "generate_summary"


def test_the_digest_is_plain_text_the_wire_joins_with_its_neighbour():
    history = with_sources([user("go"), *build_long_history(12)[1:]])
    counter, _ = make_counter()
    policy = CompactionPolicy(soft_threshold=500, hard_limit=20_000, keep_recent_messages=3)
    view = compact_context(history, policy=policy, counter=counter).messages
    wire = build_wire_request(ModelRequest("s", "", tuple(view), (), 100), "m")
    first = wire["messages"][0]
    assert first["role"] == "user" and [b["type"] for b in first["content"]] == ["text", "text"]
    assert first["content"][1]["text"].startswith(DIGEST_HEADER)
    assert not any(key.startswith("_") for m in wire["messages"] for key in m)


def test_a_view_without_a_user_message_first_gets_the_digest_first():
    view = [assistant([read_use("r1", "a.py")]), user([tool_result("r1", "x" * 4_000)])]
    view += [assistant("ok"), user([text("next")])]
    base, digest = split_digest(view)
    assert digest is None and base == view
    counter, _ = make_counter()
    policy = CompactionPolicy(soft_threshold=200, hard_limit=20_000, keep_recent_messages=1)
    result = compact_context(with_sources(view), policy=policy, counter=counter)
    assert result.messages[0]["role"] == "user"
    assert_sendable(result.messages)


def test_a_user_message_that_only_looks_like_a_digest_is_kept_as_the_users():
    history = with_sources([user(DIGEST_HEADER + " my own words"), *build_long_history(12)[1:]])
    counter, _ = make_counter()
    policy = CompactionPolicy(soft_threshold=500, hard_limit=20_000, keep_recent_messages=3)
    view = compact_context(history, policy=policy, counter=counter).messages
    assert view[0] is history[0]
    assert sum(1 for m in view if is_digest_message(m)) == 1 and view[1] is not history[0]


def test_compact_refuses_a_same_size_summary_as_the_automatic_run_does():
    from agent_cli.compaction.markers import ACKNOWLEDGEMENT, SUMMARY_HEADER, mark_summary

    body = "Goal: count functions."
    history = [mark_summary(user(f"{SUMMARY_HEADER}\n{body}")), assistant(ACKNOWLEDGEMENT)]
    new = [user("ok"), assistant("ok")]  # something new: a summary is asked for
    tail = [user("q " * 300), assistant("a"), user("r"), assistant("b")]
    history = with_sources([*history, *new, *tail])
    counter, _ = make_counter()
    policy = CompactionPolicy(soft_threshold=20, hard_limit=90_000, summary_keep_recent=4)
    longer = f"{body} The user said ok, twice."
    automatic = compact_context(
        history, policy=policy, summarizer=lambda old: longer, counter=counter
    )
    assert [(r.layer, r.outcome) for r in automatic.reports][2] == (4, "summary_not_smaller")
    forced = compact_context(
        history, policy=policy, summarizer=lambda old: longer, counter=counter, force_summary=True
    )
    assert (forced.reports[0].layer, forced.reports[0].outcome) == (4, "summary_not_smaller")
    assert forced.reports[0].tokens_saved == 0
    assert forced.tokens_after <= forced.tokens_before


def _short_requests_with_long_answers() -> list[dict[str, Any]]:
    old: list[dict[str, Any]] = []
    for number in range(6):
        old += [user(f"do thing {number}"), assistant(f"did {number} " + "ok " * 12)]
    return with_sources([*old, user("r"), assistant("b")])


@pytest.mark.parametrize("words", [1, 20, 40, 60, 100, 400])
def test_compact_never_adopts_a_summary_whose_view_with_its_digest_is_not_smaller(words):
    history = _short_requests_with_long_answers()
    counter, _ = make_counter()
    policy = CompactionPolicy(soft_threshold=20, hard_limit=90_000, summary_keep_recent=2)
    body = "x " * words
    forced = compact_context(
        history, policy=policy, summarizer=lambda old: body, counter=counter, force_summary=True
    )
    summary = forced.reports[0]
    assert summary.layer == 4
    if summary.outcome == "applied":
        assert summary.tokens_after < summary.tokens_before
        assert find_last_summary(forced.messages) == body.strip()
    else:
        assert summary.outcome == "summary_not_smaller" and summary.tokens_saved == 0
        assert find_last_summary(forced.messages) is None
    assert forced.tokens_after <= forced.tokens_before


def test_a_summary_smaller_than_its_messages_is_refused_when_its_digest_lines_eat_the_gain():
    from agent_cli.compaction.layers.summary import build_summary_outcome

    history = _short_requests_with_long_answers()
    counter, _ = make_counter()
    policy = CompactionPolicy(soft_threshold=20, hard_limit=90_000, summary_keep_recent=2)
    body = "x " * 60
    alone = build_summary_outcome(history, lambda old: body, policy, counter)
    assert alone.outcome == "applied" and alone.tokens_saved > 0  # the messages alone shrink
    for forced in (False, True):
        result = compact_context(
            history,
            policy=policy,
            summarizer=lambda old: body,
            counter=counter,
            force_summary=forced,
        )
        summary = next(r for r in result.reports if r.layer == 4)
        assert summary.outcome == "summary_not_smaller" and summary.tokens_saved == 0
        assert find_last_summary(result.messages) is None


def _request_lines(digest: str) -> list[str]:
    lines = digest.splitlines()
    return lines[lines.index("User requests:") + 1 : lines.index("Interactions:")]


def test_past_one_and_a_half_budgets_requests_keep_a_short_head_then_the_oldest_fold():
    """Whole, then a 200-character head, then a 60-character head with its pointer; past
    twice the budget the oldest fold into one line whose pointers span them, and every
    request is traced one way or the other."""
    requests = [f"request {n}: " + "words " * 100 for n in range(30)]
    digest = _digest_after_requests(requests, digest_tokens=600)
    assert requests[29] in digest  # the newest, whole
    lines = _request_lines(digest)
    heads = [line.split(" chars) ", 1)[-1] for line in lines if "; shortened from 612" in line]
    assert all(head.endswith("…") for head in heads)
    assert {len(head) for head in heads} == {201, 61}  # 200, then 60 characters, and "…"
    folded = lines[-1]
    assert folded.startswith("- ") and " older requests: recall by pointer from " in folded
    assert "transcript:s1:4 to transcript:s1:" in folded  # request 1 is the oldest folded
    shown = sum(f"request {n}:" in digest for n in range(1, 30))
    count = int(folded.split()[1])
    assert shown + count == 29  # (request 0 is message 0, kept in the view)


def test_the_digest_stays_bounded_however_many_requests_leave():
    """A long session's requests cannot grow the digest past about twice its budget: the
    digest message counts under 2.5 budgets with 60 or 600 requests taken out."""
    counter = make_counter()[0]
    sizes = []
    for count in (60, 600):
        requests = [f"request {n}: " + "check the logs " * 9 for n in range(count)]
        digest = _digest_after_requests(requests, digest_tokens=400)
        sizes.append(counter.count_text(digest))
        assert requests[-1] in digest and "older requests: recall by pointer" in digest
    assert all(size < 2.5 * 400 for size in sizes), sizes


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)


@SETTINGS
@given(
    data=st.dictionaries(
        st.sampled_from(["requests", "interactions", "older", "format"]), _json, max_size=4
    )
)
def test_a_damaged_digest_from_disk_reads_as_what_it_can_and_never_raises(data):
    from agent_cli.compaction.digest.entries import digest_from_message
    from agent_cli.compaction.digest.render import render_digest

    digest = digest_from_message({"role": "user", "content": "x", "_digest": data})
    assert render_digest(digest).startswith(DIGEST_HEADER)


def test_a_damaged_digest_reads_its_numbers_out_of_range_as_absent():
    from agent_cli.compaction.digest.entries import OlderRange, digest_from_message
    from agent_cli.compaction.digest.removed_items import RequestEntry

    request = {"text": "tidy up", "pointer": "transcript:s1:4", "shortened_from": -5}
    older = {"count": -3, "first": "transcript:s1:1", "last": 7}
    data = {"requests": [request], "older": older, "parts": [[1, -1]]}
    digest = digest_from_message({"role": "user", "content": "x", "_digest": data})
    assert digest.requests == (RequestEntry("tidy up", "transcript:s1:4", number=4),)
    assert digest.older == OlderRange(0, "transcript:s1:1", None)
    assert digest.parts == ()


def test_numbers_past_what_python_writes_as_text_read_as_absent_and_compaction_runs():
    """A forged or damaged digest holding a 5,000-digit count, or a pointer of 5,000 digits,
    raised ValueError ("Exceeds the limit (4300 digits)") out of `compact_context`."""
    huge, digits = 10**5000, "transcript:s1:" + "9" * 5_000
    request = {"text": "tidy up", "pointer": digits, "asked": huge, "first": "transcript:s1:2"}
    data = {"requests": [request], "older": {"count": huge}, "older_requests": {"count": huge}}
    digest = digest_from_message({"role": "user", "content": "x", "_digest": data})
    assert digest.requests[0].asked == 1 and digest.requests[0].number is None
    assert digest.older.count == 0 and digest.older_requests.count == 0
    assert sequence_of(digits) is None and sequence_of("transcript:s1:123456789") == 123456789
    history = with_sources(build_long_history(8))
    history.insert(1, {"role": "user", "content": "digest", "_digest": data})
    history[3] = {**history[3], SOURCE_KEY: digits}
    policy = CompactionPolicy(soft_threshold=600, hard_limit=20_000, keep_recent_messages=4)
    compacted = compact_context(history, policy=policy, counter=make_counter()[0])
    assert compacted.is_compacted and digest_text(compacted.messages)


def test_stored_parts_that_do_not_add_up_to_the_entries_read_as_one_part():
    from agent_cli.compaction.digest.entries import digest_from_message
    from agent_cli.compaction.digest.render import render_digest_parts

    requests = [{"text": "second"}, {"text": "first"}]
    lines = [{"line": f"read_file path=f{n}.py -> 9 chars, ok"} for n in range(3)]
    data = {"requests": requests, "interactions": lines, "parts": [[1, 1], [1, 1]]}
    parts = render_digest_parts(digest_from_message({"role": "user", "_digest": data}))
    assert len(parts) == 1  # one line would otherwise be in no part at all
    assert all(f"f{n}.py" in parts[0] for n in range(3)) and "- first" in parts[0]


def _two_compactions(digest_tokens: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A history compacted once, then grown and compacted again, on one policy."""
    counter, _ = make_counter()
    policy = CompactionPolicy(
        soft_threshold=600, hard_limit=20_000, keep_recent_messages=4, digest_tokens=digest_tokens
    )
    once = compact_context(with_sources(build_long_history(8)), policy=policy, counter=counter)
    more = [assistant("more"), user("second request")]
    for number in range(8, 16):
        more += call_pair(f"toolu_{number}", "y" * 400)
    more = [{**m, SOURCE_KEY: f"transcript:s1:{100 + i}"} for i, m in enumerate(more)]
    twice = compact_context([*once.messages, *more], policy=policy, counter=counter)
    return once.messages, twice.messages


def _parts(view: list[dict[str, Any]]) -> list[str]:
    from agent_cli.compaction.digest.entries import digest_from_message
    from agent_cli.compaction.digest.render import render_digest_parts

    return render_digest_parts(digest_from_message(next(m for m in view if is_digest_message(m))))


def test_a_later_compaction_adds_a_part_and_leaves_the_written_parts_as_they_were():
    once, twice = _two_compactions(digest_tokens=3_000)
    first, later = _parts(once), _parts(twice)
    assert len(first) == 1 and len(later) == 2  # within the budget: one more part
    assert later[0] == first[0]  # byte for byte: the cached prefix ending there still holds
    assert later[1].startswith(DIGEST_LATER_PART)
    assert "\n- second request" in later[1] and "(transcript:s1:3)" in later[0]
    assert digest_text(twice) == "\n".join(later)


def test_a_digest_that_would_pass_its_budget_is_fitted_again_into_one_part():
    once, twice = _two_compactions(digest_tokens=120)
    assert len(_parts(twice)) == 1
    counter = TokenCounter()
    digest = next(m for m in twice if is_digest_message(m))
    assert counter.count_message(digest) <= 120 + 30  # a whole request may pass a tiny budget
    assert "second request" in digest["content"]


def test_the_wire_sends_each_part_as_a_block_and_the_next_compaction_reads_the_first():
    """Priced by the tests' prompt-cache model: the request after the second compaction
    reads system, tools and the digest's first part from the cache (written by the
    request after the first), and writes from the new part on."""
    from bench.prompt_cache import PromptCacheModel, build_prompt_blocks

    tools = ({"name": "read_file", "description": "Read a file.", "input_schema": {}},)
    system = "You are agent-cli. " * 200  # over the cache's minimum on its own

    def wire_of(view: list[dict[str, Any]]) -> dict[str, Any]:
        return build_wire_request(ModelRequest(system, "", tuple(view), tools, 100), "m")

    once, twice = _two_compactions(digest_tokens=3_000)
    cache = PromptCacheModel(clock=lambda: 0.0)
    cache.usage(wire_of(once))
    second = wire_of(twice)
    offset = 0 if is_digest_message(twice[0]) else 1  # after the kept first request
    digest_blocks = second["messages"][0]["content"][offset : offset + len(_parts(twice))]
    assert [b["text"] for b in digest_blocks] == _parts(twice)
    assert "cache_control" in digest_blocks[-1] and "cache_control" not in digest_blocks[0]
    blocks = build_prompt_blocks(second)  # tools, system, then the messages' blocks
    through_first_part = sum(block.tokens for block in blocks[: len(tools) + 1 + offset + 1])
    usage = cache.usage(second)
    assert usage["cache_read_input_tokens"] == through_first_part


def _merged(requests: list[str], budget: int, start: int = 1) -> Any:
    from compaction_support import merge_digest

    from agent_cli.compaction.digest.entries import Digest
    from agent_cli.compaction.digest.removed_items import RequestEntry

    found = [RequestEntry(t, f"transcript:s1:{start + n}") for n, t in enumerate(requests)]
    return lambda digest=Digest(): merge_digest(  # noqa: B008 - an empty digest, frozen
        digest, found[::-1], [], budget, TokenCounter()
    )


def test_an_appended_request_of_many_lines_is_counted_as_the_digest_counts_it():
    """A pasted request with blank and indented lines counts higher line by line (how
    `count_digest` counts the message) than as one text: the part is refused when the
    line-by-line count would pass the budget."""
    from agent_cli.compaction.digest.merge import count_digest
    from agent_cli.compaction.digest.render import build_digest_message

    first = _merged(["Please tidy the repository."], 2_000)()
    paste = "fix this:\n" + "\n\n".join("        return y" for _ in range(400))
    digest = _merged([paste], 2_000, start=50)(first)
    counter = TokenCounter()
    assert count_digest(build_digest_message(digest), counter) <= 2_000


def test_a_refit_whose_requests_fit_stays_within_the_budget():
    """Interaction lines get what the requests leave, never a fixed share on top: the
    rest fold into the "older" line (and a refitted digest leaves room for parts)."""
    from compaction_support import merge_digest

    from agent_cli.compaction.digest.entries import Digest
    from agent_cli.compaction.digest.merge import count_digest
    from agent_cli.compaction.digest.removed_items import RequestEntry
    from agent_cli.compaction.digest.render import build_digest_message

    requests = [
        RequestEntry(f"request {n}: " + "words " * 55, f"transcript:s1:{n}") for n in range(5)
    ]
    counter = TokenCounter()
    digest = merge_digest(Digest(), requests[::-1], _sixty_calls()[::-1], 400, counter)
    assert all(r.text in render(digest) for r in requests)  # the requests fit whole
    assert count_digest(build_digest_message(digest), counter) <= 400
    assert digest.older.count > 0


def _sixty_calls() -> list[Any]:
    from agent_cli.compaction.digest.removed_items import RemovedInteraction

    return [
        RemovedInteraction(
            f"t{n}",
            tool_use(f"t{n}", "bash", {"command": f"ls {n}"}),
            None,
            f"transcript:s1:{100 + n}",
        )
        for n in range(60)
    ]


def test_the_fold_line_always_has_its_room_however_much_the_requests_take():
    """Requests that nearly fill the budget leave the "older" line its room: they are
    fitted less what that line costs with every interaction folded, so a digest whose
    requests are kept whole never goes over its budget by the fold line (requests of every
    size around the edge; past it they are shortened, a case of its own)."""
    from compaction_support import merge_digest

    from agent_cli.compaction.digest.entries import Digest
    from agent_cli.compaction.digest.merge import count_digest
    from agent_cli.compaction.digest.removed_items import RequestEntry
    from agent_cli.compaction.digest.render import build_digest_message

    counter = TokenCounter()
    for words in range(40, 80):
        requests = [
            RequestEntry(f"request {n}: " + "words " * words, f"transcript:s1:{n}")
            for n in range(5)
        ]
        digest = merge_digest(Digest(), requests[::-1], _sixty_calls()[::-1], 400, counter)
        assert digest.older.count > 0 and "recall search" in render(digest)
        if any(entry.shortened_from for entry in digest.requests):
            break
        assert count_digest(build_digest_message(digest), counter) <= 400, words
    assert 55 < words < 79  # whole requests were tried up to the edge, and past it


def render(digest: Any) -> str:
    from agent_cli.compaction.digest.render import render_digest

    return render_digest(digest)


def _removed_calls(start: int, count: int, counted: Any = None) -> list[RemovedInteraction]:
    """`count` removed bash calls from record `start` on, newest first (`counted`: the
    line count each carries, as the per-turn check leaves it)."""
    return [
        RemovedInteraction(
            f"t{n}",
            tool_use(f"t{n}", "bash", {"command": f"make target{n}"}),
            None,
            f"transcript:s1:{n}",
            None,
            counted,
        )
        for n in range(start + count - 1, start - 1, -1)
    ]


def test_a_digest_counted_from_its_message_merges_as_one_rendered_again():
    """The tokens a step reads off the digest's message (`count_rendered_message`) are
    those the budget finds by rendering the digest, so merging with them gives the same
    digest: a part appended while it fits, a refit once it does not."""
    calls = _removed_calls

    counter = TokenCounter()
    digest = merge_digest(
        Digest(),
        [RequestEntry("tidy up\n\n  please", "transcript:s1:0")],
        calls(1, 5),
        600,
        counter,
    )
    message = build_digest_message(digest)
    for more in (calls(10, 3), calls(10, 80)):  # fits as a part; does not
        known = count_rendered_message(message, counter)
        with_count = merge_digest(digest, [], more, 600, counter, known)
        assert with_count == merge_digest(digest, [], more, 600, TokenCounter())
    assert len(merge_digest(digest, [], calls(10, 3), 600, counter, known).parts) == 2
    assert merge_digest(digest, [], calls(10, 80), 600, counter, known).older.count > 0


def test_a_digest_message_carries_the_count_its_budget_weighs():
    """Every figure counts a digest message (`count_digest`, from the count it carries)
    as its budget weighs it (`count_rendered_message`: its lines, each with its newline,
    and the message's overhead), on any counter."""
    from agent_cli.compaction.digest.merge import build_counted_message, count_digest, fit_digest

    counter = TokenCounter()
    request = RequestEntry("tidy up\n\n  please", "transcript:s1:0")
    fitted = fit_digest(Digest(), [request], _removed_calls(1, 5), 600, counter)
    message = build_counted_message(fitted, counter)
    weighed = count_rendered_message(message, counter)
    assert count_digest(message, counter) == counter.count_message(message) == weighed
    assert count_digest(message, TokenCounter()) == weighed


def test_many_short_requests_are_appended_when_they_fit():
    """A part is refused before counting only when even the cheapest lines (a token
    each: its newline) could not fit; sixty one-word replies that fit are appended."""
    counter = TokenCounter()
    first = merge_digest(Digest(), [RequestEntry("start", "transcript:s1:0")], [], 10_000, counter)
    replies = [RequestEntry("a", f"transcript:s1:{n}") for n in range(60, 0, -1)]
    roomy = merge_digest(first, replies, [], 10_000, counter)
    assert len(roomy.parts) == 2
    needed = count_rendered_message(build_digest_message(roomy), counter)
    assert merge_digest(first, replies, [], needed, counter) == roomy


def test_a_line_counted_by_another_counter_is_counted_again():
    """A removed call carries its line's count for the counter that made it; a merge
    with any other counter counts the line itself (here the carried figure is wrong)."""

    def calls(counted: Any) -> list[RemovedInteraction]:
        return _removed_calls(1, 80, counted)

    counter = TokenCounter()
    plain = merge_digest(Digest(), [], calls(None), 400, counter)
    assert merge_digest(Digest(), [], calls((TokenCounter(), 1)), 400, counter) == plain
    assert merge_digest(Digest(), [], calls((counter, 1)), 400, counter) != plain  # taken


def test_a_view_holding_its_digest_twice_traces_what_every_step_removes():
    """A caller's view may hold the digest message twice (the same dict, at its head). The
    run keeps one running digest from its first step to its last, so what L2 removes is
    still named when L4 then summarizes the older messages: it is never merged into a copy
    that a later step takes for an ordinary message and summarizes away."""
    earlier = []
    for number in range(6):
        use = tool_use(f"t{number}", "bash", {"command": f"make step{number}"})
        earlier += call_pair(f"t{number}", chr(97 + number) * 800, use)
    later = []
    for number in range(6, 12):  # the same file read again and again: L2 removes reads
        later += call_pair(f"t{number}", chr(97 + number) * 800, read_use(f"t{number}", "a.py"))
    history = with_sources(
        [assistant("Picking up where the last session stopped."), *earlier, *later]
    )
    policy = CompactionPolicy(
        soft_threshold=300, hard_limit=20_000, keep_recent_messages=2, summary_keep_recent=2
    )
    first = compact_context(history[:13], policy=policy, summarizer=_summary_of_nothing)
    assert is_digest_message(first.messages[0])  # first: before the summary
    view = [first.messages[0], *first.messages, *history[13:]]  # the same dict twice
    result = compact_context(view, policy=policy, summarizer=_summary_of_nothing)
    assert "dedup_file_reads" in result.applied_layers
    traced = "\n".join(m["content"] for m in result.messages if is_digest_message(m))
    remaining = set(validate_tool_protocol(result.messages))
    for tool_id in set(validate_tool_protocol(history)) - remaining:
        assert_removed_call_is_traced(tool_id, history, traced)


@pytest.mark.parametrize(
    "content, is_error, outcome",
    [
        ("Exit code: 0\nall passed", False, "ok"),
        ("Exit code: 1\nFAILED 3 tests", False, "exit 1"),
        ([{"type": "text", "text": "Exit code: 2\nusage"}], False, "exit 2"),
        ("Killed by signal 9.\n", False, "signal 9"),
        ("data.txt: no such file", True, "error"),
        ("the file says Exit code: 1 on line 3", False, "ok"),
    ],
)
def test_a_digest_line_tells_a_failed_command_from_one_that_passed(content, is_error, outcome):
    """Seventh attack: `bash ...; exit 1` read `-> 28 chars, ok` once removed, so the
    model was told a failing test run had passed."""
    use = tool_use("t1", "bash", {"command": "make test"})
    result = {**tool_result("t1", content), "is_error": is_error}
    assert describe_interaction(use, result).endswith(f" chars, {outcome}")


def test_a_digest_line_gives_the_size_its_record_holds_not_l1s_cut():
    """Seventh attack: a read cut by L1 and later removed said "2,546 chars" of a record
    holding 8,735: the model underrated what a recall brings back."""
    output = "a line of the file\n" * 500
    view = [user("go"), *call_pair("t1", output, tool_use("t1", "read_file", {"path": "f"}))]
    policy = CompactionPolicy(max_tool_result_tokens=200)
    cut, _ = truncate_tool_results(view, policy)
    block = cut[2]["content"][0]
    assert len(block["content"]) < len(output)
    line = describe_interaction(view[1]["content"][0], block)
    assert f"-> {len(output):,} chars" in line
    again, _ = truncate_tool_results(cut, dataclasses.replace(policy, max_tool_result_tokens=100))
    assert f"-> {len(output):,} chars" in describe_interaction(
        view[1]["content"][0], again[2]["content"][0]
    )


def test_the_digest_keeps_to_the_room_a_large_reserve_leaves():
    """Seventh attack: beside an AGENTS.md of 2,600 tokens (soft 6,000 / hard 6,500), the
    digest was sized by the soft threshold alone (1,500 tokens, requests folding only past
    twice that) and from turn 24 every turn was blocked for good."""
    counter, _ = make_counter()
    policy = CompactionPolicy(soft_threshold=6_000, hard_limit=6_500)
    reserved = 4_466
    view: list[dict[str, Any]] = [user("Please help me plan the release of the new parser.")]
    index = ViewIndex(counter)
    for turn in range(80):
        words = " ".join(f"point{turn}x{k} about the rollout" for k in range(10))
        view += [assistant(f"Answer {turn}: noted."), user(f"Request {turn}: {words}")]
        if index.measure(view, policy) + reserved >= policy.soft_threshold:
            view = compact_context(
                view, policy=policy, counter=counter, index=index, reserved_tokens=reserved
            ).messages
    digest = next(message for message in view if is_digest_message(message))
    budget = policy.digest_budget_over(reserved)  # requests fold past twice it
    assert counter.count_message(digest) <= REQUESTS_FOLD_AFTER * budget + 64
    assert policy.digest_budget_over(reserved) == (6_500 - 4_466) // 4
    assert policy.digest_budget_over(0) == policy.digest_tokens == 1_500


def test_the_session_keeps_the_digest_to_a_quarter_of_the_room_under_the_soft_threshold():
    """The demo's floor (thirteenth attack): its requests may take twice the budget, so
    at a quarter of the room under the soft threshold the digest never fills more than
    half of what a run can free. Never above the policy's own budget, never under
    `MIN_DIGEST_TOKENS`, and the same policy back when it already fits."""
    demo = CompactionPolicy(soft_threshold=3_200, hard_limit=60_000)
    assert demo.digest_tokens == 800
    assert demo.with_digest_under_soft(1_858).digest_tokens == (3_200 - 1_858) // 4
    assert demo.with_digest_under_soft(3_190).digest_tokens == MIN_DIGEST_TOKENS
    default = CompactionPolicy()
    assert default.with_digest_under_soft(1_858).digest_tokens == (80_000 - 1_858) // 4
    assert default.with_digest_under_soft(0) is default
    small = dataclasses.replace(demo, digest_tokens=100)
    assert small.with_digest_under_soft(1_858) is small


def findings_history(turns: int) -> list[dict[str, Any]]:
    """A request, then `turns` steps: the model says a finding and calls a tool."""
    history = [user("Please read every file and tell me what each holds.")]
    for number in range(turns):
        say = text(f"FINDING-{number}: file {number} holds " + "lorem ipsum " * 20)
        history += [
            assistant([say, tool_use(f"toolu_{number}")]),
            user([tool_result(f"toolu_{number}", "x" * 300)]),
        ]
    return with_sources(history)


@pytest.mark.parametrize("forced", [False, True])
def test_an_answer_l3_drops_that_no_summary_saw_is_named_in_the_digest(forced):
    """Thirteenth attack: with L3 keeping fewer recent messages than L4 (the offline demo's
    4 and 6, `--keep-recent 2`), L3 dropped answers L4 had left whole: the model's
    findings left with no summary and no digest line. Each now has a line with its
    pointer; what the summary saw gets none."""
    seen: list[list[dict[str, Any]]] = []

    def summarizer(messages: list[dict[str, Any]]) -> str:
        seen.append(messages)
        return "Goal: read the files."

    history = findings_history(12)
    counter, _ = make_counter()
    policy = CompactionPolicy(
        soft_threshold=1_000,
        hard_limit=30_000,
        low_water=300,
        keep_recent_messages=2,
        summary_keep_recent=6,
        digest_tokens=4_000,
    )
    result = compact_context(
        history, policy=policy, summarizer=summarizer, counter=counter, force_summary=forced
    )
    assert [r.layer for r in result.reports if r.outcome == "applied"][-2:] == [4, 3]
    digest = digest_text(result.messages)
    in_view = {m[SOURCE_KEY] for m in result.messages if SOURCE_KEY in m}
    # (L1 and L2 change nothing here: the summary saw the view's first messages)
    dropped_unsummarized = [m for m in history[len(seen[0]) :] if m[SOURCE_KEY] not in in_view]
    answers = [m for m in dropped_unsummarized if m["role"] == "assistant"]
    assert answers, "the band between L4's window and L3's is what this test is about"
    for message in answers:
        finding = message["content"][0]["text"].split(":")[0]
        line = next(line for line in digest.splitlines() if finding + ":" in line)
        assert line.startswith("- answer (") and f"({message[SOURCE_KEY]})" in line, line
    assert digest.count("- answer (") == len(answers)  # none for what the summary saw
    assert result.tokens_after == counter.count_messages(result.messages)


def test_without_a_summary_l3_names_requests_and_calls_as_before_and_no_answer():
    history = findings_history(12)
    counter, _ = make_counter()
    policy = CompactionPolicy(
        soft_threshold=1_000, hard_limit=30_000, keep_recent_messages=2, digest_tokens=4_000
    )
    result = compact_context(history, policy=policy, counter=counter)
    assert "prune_old_messages" in result.applied_layers
    assert "- answer (" not in digest_text(result.messages)


def test_an_answers_line_never_cuts_a_redaction_mark_or_a_pointer():
    from agent_cli.compaction.digest.removed_items import ANSWER_HEAD_CHARS, describe_answer

    for tail in ("[REDACTED] then more", "transcript:s1:123 then more"):
        for at in range(ANSWER_HEAD_CHARS - 12, ANSWER_HEAD_CHARS + 2):
            line = describe_answer("x" * at + " " + tail)
            assert "[REDACT" not in line or "[REDACTED]" in line, line
            assert "transcript:s" not in line or "transcript:s1:123" in line, line
