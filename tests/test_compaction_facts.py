"""Message facts: compaction reads what the per-turn check recorded and gets the same answers.

The facts index (`compaction.facts`) and the layers' own reports of what they removed are
speed-ups: every test here compares them with the plain way (blocks scanned again, views
compared) on generated histories, and checks that a plain dict changed in place is never
read from a stale entry.
"""

from __future__ import annotations

import re
from collections import Counter
from copy import deepcopy
from typing import Any
from unittest import mock

import pytest
from compaction_support import (
    assistant,
    build_long_history,
    call_pair,
    make_counter,
    policies,
    read_use,
    text,
    tool_result,
    tool_use,
    user,
    valid_histories,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_cli.compaction import (
    CompactionPolicy,
    MessageViewLimitExceeded,
    ViewIndex,
    compact_context,
    view_index,
)
from agent_cli.compaction.digest.what_left import collect_removed
from agent_cli.compaction.layers.dedup import build_dedup_outcome
from agent_cli.compaction.layers.prune import build_prune_outcome
from agent_cli.compaction.layers.truncate import build_truncation_outcome
from agent_cli.compaction.markers import SOURCE_KEY
from agent_cli.compaction.message_facts import build_message_facts, user_texts
from agent_cli.frozen import freeze
from agent_cli.secret_forms import SecretForms

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
NO_COMPACTION = CompactionPolicy(soft_threshold=10**9, hard_limit=2 * 10**9)


def _with_some_sources(history: list[dict[str, Any]], every: int) -> list[dict[str, Any]]:
    """Pointers on most messages, as the session records them; some without (`every`)."""
    return [
        m if every and i % every == 0 else {**m, SOURCE_KEY: f"transcript:s:{i + 1}"}
        for i, m in enumerate(history)
    ]


def _reference_removed(
    before: list[dict[str, Any]], after: list[dict[str, Any]]
) -> tuple[list[tuple[str, str | None]], list[tuple[str, int, int | None, str | None, str]]]:
    """What left the view, written the simplest way: the messages of `before` that are
    not in `after` (by identity) lost their texts not matched in the messages new in
    `after` (newest first) and their calls whose tool_use is not in `after` (newest
    first), with their result, pointer (result's message, else the call's) and line."""
    from agent_cli.compaction.digest.removed_items import describe_interaction

    def pointer(message: dict[str, Any]) -> str | None:
        found = message.get(SOURCE_KEY)
        return found if isinstance(found, str) and found else None

    gone = [m for m in before if all(m is not kept for kept in after)]
    came = [m for m in after if all(m is not old for old in before)]
    still = Counter(t for m in came for t in user_texts(m))
    texts = []
    for message in reversed(gone):
        for text_ in reversed(list(user_texts(message))):
            if still[text_] > 0:
                still[text_] -= 1
            else:
                texts.append((text_, pointer(message)))
    kept = {b.get("id") for m in after for b in _blocks(m) if b.get("type") == "tool_use"}
    results = {
        b.get("tool_use_id"): (b, m)
        for m in before
        for b in _blocks(m)
        if b["type"] == "tool_result"
    }
    calls = []
    for message in reversed(before):
        for use in reversed([b for b in _blocks(message) if b.get("type") == "tool_use"]):
            if use["id"] in kept:
                continue
            result, result_message = results.get(use["id"], (None, None))
            where = (pointer(result_message) if result_message else None) or pointer(message)
            calls.append(
                (
                    use["id"],
                    id(use),
                    id(result) if result else None,
                    where,
                    describe_interaction(use, result),
                )
            )
    return texts, calls


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _as_reference(
    found: tuple[list[Any], list[Any]],
) -> tuple[list[tuple[str, str | None]], list[tuple[str, int, int | None, str | None, str]]]:
    requests, calls = found
    return (
        [(r.text, r.pointer) for r in requests],
        [
            (c.tool_use_id, id(c.use), id(c.result) if c.result else None, c.pointer, c.describe())
            for c in calls
        ],
    )


@SETTINGS
@given(
    history=valid_histories(),
    settings_=policies(),
    every=st.integers(0, 4),
    frozen=st.booleans(),
)
def test_the_layers_read_from_facts_exactly_what_a_rescan_finds(history, settings_, every, frozen):
    """L1-L3 with the facts the per-turn check recorded give the outcome they give
    without them, and what L2 reports and L3 leaves out is what comparing views finds."""
    policy = CompactionPolicy(**settings_)
    view = _with_some_sources(history, every)
    view = [freeze(m) for m in view] if frozen else view
    counter, _ = make_counter()
    half = len(view) // 2
    half -= 1 if half % 2 == 0 else 0  # an earlier turn's check ends after a user message
    index = ViewIndex(counter)
    index.measure(view[: max(half, 1)], policy)
    tokens, facts = index.measure(view, policy), index.facts()  # reads under its rule
    for build in (build_truncation_outcome, build_dedup_outcome):
        with_facts = build(view, policy, counter, facts)
        without = build(view, policy, counter)
        assert with_facts.messages == without.messages
        assert (with_facts.tokens_saved, with_facts.removed_tool_use_ids) == (
            without.tokens_saved,
            without.removed_tool_use_ids,
        )
        if with_facts.removed is not None:
            expected = _reference_removed(view, with_facts.messages)
            assert _as_reference(with_facts.removed) == expected
    pruned = build_prune_outcome(view, policy, counter, tokens, facts)
    assert pruned.messages == build_prune_outcome(view, policy, counter).messages
    assert (
        pruned.removed_tool_use_ids
        == build_prune_outcome(view, policy, counter).removed_tool_use_ids
    )
    expected = _reference_removed(view, pruned.messages)
    assert _as_reference(collect_removed(view, pruned.messages, facts)) == expected
    assert _as_reference(collect_removed(view, pruned.messages)) == expected


@SETTINGS
@given(history=valid_histories(), settings_=policies(), every=st.integers(0, 3))
def test_a_session_checked_turn_by_turn_compacts_as_a_fresh_counter_does(history, settings_, every):
    """The per-turn checks record facts and count digest lines; a compaction that reads
    them gives the same view, digest and figures as one on a plain copy with nothing
    recorded."""
    policy = CompactionPolicy(**settings_)
    view = [freeze(m) for m in _with_some_sources(history, every)]
    checked = ViewIndex(make_counter()[0])
    for end in range(1, len(view) + 1):
        try:
            compact_context(view[:end], policy=NO_COMPACTION, index=checked)
        except ValueError:  # a turn whose results are not in yet
            continue
    fresh = ViewIndex(make_counter()[0])
    outcomes = []
    for messages, index in ((view, checked), ([dict(m) for m in view], fresh)):
        try:
            result = compact_context(messages, policy=policy, index=index)
            outcomes.append(
                (result.messages, result.tokens_before, result.tokens_after, result.reports)
            )
        except MessageViewLimitExceeded as error:
            outcomes.append(("blocked", error.tokens_before, error.tokens_after, error.reports))
    assert outcomes[0] == outcomes[1]


def test_a_plain_message_changed_in_place_is_read_afresh():
    """A plain dict's facts are trusted only where the check just found it unchanged at
    its own place: one edited to equal its neighbour's snapshot is still read afresh."""
    first, second = user("words one"), user("words two")
    view = [first, {"role": "assistant", "content": "ok"}, second]
    index = ViewIndex(make_counter()[0])
    index.measure(view)
    first["content"] = "words two"  # now equal to what `second` was measured as
    moved = [user("words one"), {"role": "assistant", "content": "ok"}, first]
    index.measure(moved)  # the measured prefix matches, by equality
    assert index.facts()[2].texts == ("words two",)
    second["content"] = "words three"
    index.measure(view)
    assert index.facts()[2].texts == ("words three",)


def test_the_per_turn_check_counts_each_digest_line_once_so_compaction_does_not():
    """A compaction after turn-by-turn checks tokenizes a handful of texts (the digest's
    frame and what is new to it), not one line per removed interaction."""
    history = [freeze(m) for m in _with_some_sources(build_long_history(300, 200), 0)]
    counter, encoding = make_counter()
    index = ViewIndex(counter)
    for end in range(1, len(history) + 1, 2):
        compact_context(history[:end], policy=NO_COMPACTION, index=index)
    before = encoding.calls
    policy = CompactionPolicy(soft_threshold=2_000, hard_limit=40_000, keep_recent_messages=4)
    result = compact_context(history, policy=policy, index=index)
    removed = sum(report.interactions_removed for report in result.reports)
    assert removed >= 290
    assert encoding.calls - before < 20


def _requests_history(turns: int) -> list[dict[str, Any]]:
    """A user request every turn (one in two multi-line), each answered by a call."""
    history = [user("Please tidy the repository.")]
    for number in range(turns):
        words = f"Request {number}: look at module {number % 7}" + "\nand line two" * (number % 2)
        history += [user(words), assistant("Looking."), *call_pair(f"t{number}", "x" * 300)]
    return [*history, assistant("Done."), user("Thanks. What next?")]


def test_the_per_turn_check_counts_each_request_line_once_so_compaction_does_not():
    """A compaction that takes out a hundred user requests after turn-by-turn checks
    takes each request's line as the check counted it (it asks the counter for none, so
    no memo's size matters); its digest and figures are those of a compaction whose
    index counted nothing before."""
    history = [freeze(m) for m in _with_some_sources(_requests_history(100), 0)]
    counter, encoding = make_counter()
    index = ViewIndex(counter)
    for end in range(1, len(history) + 1):  # each turn's check ends after a user message
        if history[end - 1]["role"] == "user":
            compact_context(history[:end], policy=NO_COMPACTION, index=index)
    before, asked, count_text = encoding.calls, list[str](), counter.count_text
    counter.count_text = lambda text: asked.append(text) or count_text(text)
    policy = CompactionPolicy(soft_threshold=2_000, hard_limit=200_000, keep_recent_messages=4)
    result = compact_context(history, policy=policy, index=index)
    assert encoding.calls - before < 20
    assert not [text for text in asked if text.startswith("- Request")]  # not even the memo
    fresh = compact_context(history, policy=policy, counter=make_counter()[0])
    assert (result.messages, result.reports) == (fresh.messages, fresh.reports)
    digest = result.messages[1]["content"]
    folded = re.search(r"^- ([\d,]+) older requests?:", digest, re.MULTILINE)
    shown = sum(f"Request {n}:" in digest for n in range(100))
    assert shown + (int(folded[1].replace(",", "")) if folded else 0) >= 99


def test_a_compaction_takes_the_heads_of_pastes_as_the_check_cut_and_counted_them():
    """Pastes that a refit keeps whole or shortens (to 200 characters, then 60 past one
    and a half budgets), some with a secret across the 200th character: the check counted
    each paste's line and cut and counted each head under the policy's secret forms, so
    the compaction counts no line of a paste, and its digest and figures are those of a
    compaction whose index counted nothing."""
    secret = "hunter2-hunter2"
    history = [user("Please tidy the repository.")]
    for number in range(100):
        lead = "x" * 185 + secret if number % 3 == 0 else ""
        lines = 20 + number % 30 if number % 4 else 500  # some over 4,000 characters
        paste = f"Paste {number:02d}: {lead}" + "log line\n" * lines
        history += [user(paste), assistant("Looking."), *call_pair(f"t{number}", "x" * 300)]
    history = [freeze(m) for m in _with_some_sources([*history, user("next")], 0)]
    policy = CompactionPolicy(
        soft_threshold=2_000,
        hard_limit=200_000,
        keep_recent_messages=4,
        secret_forms=SecretForms.from_values([secret]),
    )
    counter, encoding = make_counter()
    index = ViewIndex(counter)
    for end in range(1, len(history) + 1):  # each turn's check ends after a user message
        if history[end - 1]["role"] == "user":
            index.measure(history[:end], policy)
    before, asked, count_text = encoding.calls, list[str](), counter.count_text
    counter.count_text = lambda text: asked.append(text) or count_text(text)
    result = compact_context(history, policy=policy, index=index)
    assert encoding.calls - before < 20
    assert not [text for text in asked if text.startswith(("- (", "log line"))]
    fresh = compact_context(history, policy=policy, counter=make_counter()[0])
    assert (result.messages, result.reports) == (fresh.messages, fresh.reports)
    heads = [line for line in result.messages[1]["content"].split("\n") if "shortened" in line]
    assert not [line for line in heads if secret[:2] in line]  # no piece of the secret
    assert [line for line in heads if line.endswith(": " + "x" * 185 + "…")]  # cut before it
    assert [line for line in heads if re.search(r"\) Paste \d\d: x{50}…$", line)]  # a 60 cut


def test_the_check_counts_a_request_for_the_digest_a_long_paste_too():
    """A request's digest line is counted with its turn, a long paste's too (the digest
    counts it line by line), so a refit that keeps the paste whole counts nothing."""
    counter, _ = make_counter()
    asked, count_text = list[str](), counter.count_text
    counter.count_text = lambda text: asked.append(text) or count_text(text)
    paste = "log line\n" * 2_000
    view = [freeze(user("Please fix the tests.")), freeze(assistant("On it.")), freeze(user(paste))]
    ViewIndex(counter).measure(view)
    assert "- Please fix the tests.\n" in asked
    assert "- log line\n" in asked and "log line\n" in asked


def _indexed_at_once_and_turn_by_turn(
    history: list[dict[str, Any]], policy: CompactionPolicy
) -> tuple[ViewIndex, list[str], ViewIndex]:
    """An index that measured `history` at once, the texts its counter encodes from then
    on, and one that followed `history` turn by turn."""
    (counter, encoding), encoded = make_counter(), list[str]()
    at_once, turn_by_turn = ViewIndex(counter), ViewIndex(make_counter()[0])
    with mock.patch.object(view_index, "RUN_MESSAGES", 16):  # (runs as fine as a refit's reach)
        at_once.measure(history, policy)
    encode = encoding.encode_ordinary
    encoding.encode_ordinary = lambda text: encoded.append(text) or encode(text)
    for end in range(1, len(history) + 1):  # each turn's check ends after a user message
        if history[end - 1]["role"] == "user":
            turn_by_turn.measure(history[:end], policy)
    return at_once, encoded, turn_by_turn


def test_a_view_indexed_at_once_has_lines_written_only_as_far_back_as_a_refit_reaches():
    """A long view no check followed is indexed newest run first, and its calls' digest
    lines are written until they add up to a digest's budget: a refit keeps lines newest
    first, so it finds every line it keeps written (a read's is written however old: L2
    takes reads out from anywhere), and the outcome is that of an index that followed
    the view turn by turn."""
    history = [user("Please tidy the repository.")]
    for number in range(800):
        read = read_use(f"t{number}", f"src/{number % 3}.py") if number % 5 == 0 else None
        history += call_pair(f"t{number}", "x" * 300, read)
    history = [freeze(m) for m in _with_some_sources([*history, assistant("Done.")], 0)]
    history.append(freeze(user("next")))
    policy = CompactionPolicy(soft_threshold=4_000, hard_limit=400_000, keep_recent_messages=4)
    at_once, encoded, turn_by_turn = _indexed_at_once_and_turn_by_turn(history, policy)
    entries = [entry for facts in at_once.facts() for entry in facts.in_order]  # oldest first
    unwritten = [at for at, entry in enumerate(entries) if not entry.line]
    assert unwritten and all(entries[at].use["name"] == "bash" for at in unwritten)  # no read
    older = entries[: unwritten[-1]]  # and no line written further back than one left out
    assert not [entry for entry in older if entry.line and entry.use["name"] == "bash"]
    assert sum(entry.counted[1] for entry in entries[unwritten[-1] + 1 :]) >= policy.digest_tokens
    assert all(entry.line for facts in turn_by_turn.facts() for entry in facts.in_order)
    result = compact_context(history, policy=policy, index=at_once)
    assert result.reports[1].interactions_removed > 100  # L2 took old reads out
    assert not [text for text in encoded if text.startswith(("- bash", "- read_file"))]
    other = compact_context(history, policy=policy, index=turn_by_turn)
    assert (result.messages, result.reports) == (other.messages, other.reports)
    assert "- 7" in result.messages[1]["content"]  # most calls folded


def test_a_view_indexed_at_once_has_long_texts_counted_as_far_back_as_a_refit_reaches():
    """The same for long pastes: their lines are counted, newest first, until the fewest
    tokens a refit charges for them (their 200-character heads) add up to a digest's
    budget; past it a refit cuts them unasked."""
    history = [user("Please tidy the repository.")]
    for number in range(300):
        history += [user(f"Paste {number}:\n" + "log line\n" * 500), assistant("Looking.")]
    history = [freeze(m) for m in _with_some_sources([*history, user("next")], 0)]
    policy = CompactionPolicy(soft_threshold=4_000, hard_limit=400_000, keep_recent_messages=4)
    at_once, encoded, turn_by_turn = _indexed_at_once_and_turn_by_turn(history, policy)
    requests = [request for facts in at_once.facts() for request in facts.requests][1:-1]
    uncounted = [at for at, request in enumerate(requests) if request.counted is None]
    assert uncounted and uncounted == list(range(len(uncounted)))  # the oldest ones only
    newer = requests[uncounted[-1] + 1 :]
    assert sum(request.heads[1].counted[1] for request in newer) >= policy.digest_tokens
    result = compact_context(history, policy=policy, index=at_once)
    assert not [text for text in encoded if text.startswith(("log line", "- Paste"))]
    other = compact_context(history, policy=policy, index=turn_by_turn)
    assert (result.messages, result.reports) == (other.messages, other.reports)


@pytest.mark.parametrize("frozen", [False, True])
def test_the_check_counts_the_blocks_of_a_read_only_which_l2_takes_as_counted(frozen):
    """A call's entry carries the tokens of its two blocks only for a read (the one call
    L2 takes out, adding up what that saves): a call of any other tool gets none, and
    L2's saving on the kept index is what a fresh counter finds."""
    read, grep = read_use("r1", "src/a.py"), tool_use("g1", "grep", {"pattern": "def f"})
    results = user([tool_result("r1", "a = 1\n" * 50), tool_result("g1", "a.py:1")])
    view = [
        user("go"),
        assistant([read, grep]),
        results,
        *call_pair("r2", "a = 2", read_use("r2", "src/a.py")),
    ]
    view = [freeze(m) for m in [*view, assistant("done"), user("next")]]
    view = view if frozen else [dict(m) for m in view]
    counter, _ = make_counter()
    index = ViewIndex(counter)
    index.measure(view)
    calls = index.facts()[1].calls
    assert calls["r1"].block_tokens == counter.count_block(read) + counter.count_block(
        results["content"][0]
    )
    assert calls["g1"].block_tokens is None
    policy = CompactionPolicy(soft_threshold=100, hard_limit=40_000, keep_recent_messages=2)
    kept = build_dedup_outcome(view, policy, counter, index.facts())
    fresh = build_dedup_outcome(view, policy, make_counter()[0])
    assert kept.tokens_saved == fresh.tokens_saved > 0
    assert kept.removed_tool_use_ids == ("r1",)


@pytest.mark.parametrize("frozen", [False, True])
def test_the_check_counts_no_line_for_a_call_whose_result_l1_will_cut(frozen):
    """A call whose result is over the per-result budget gets no line written or counted
    for that result at the check (L1 cuts it first, so that line could never be taken);
    a call with a small result does, and so does the cut of a frozen message, which the
    check makes ahead. Compaction then gives what a fresh counter gives."""
    small = tool_use("toolu_small", "bash", {"command": "make small"})
    big = tool_use("toolu_big", "bash", {"command": "make big"})
    output = "line of output\n" * 2_000
    view = [user("go"), *call_pair("toolu_small", "ok", small)]
    view += [*call_pair("toolu_big", output, big), assistant("done")]
    view = [*view, user("next")]
    view = [freeze(m) for m in view] if frozen else view
    counter, _ = make_counter()
    asked, count_text = list[str](), counter.count_text
    counter.count_text = lambda text: asked.append(text) or count_text(text)
    policy = CompactionPolicy(soft_threshold=600, hard_limit=40_000, keep_recent_messages=2)
    index = ViewIndex(counter)
    index.measure(view, policy)
    lines = [text.split(", ok")[0] for text in asked if text.startswith("- bash")]
    assert lines[0] == "- bash command=make small -> 2 chars"
    # only the cut's line, for the entry L1 leaves; it names the size its record holds
    big = [line for line in lines if "make big" in line]
    assert big == ([f"- bash command=make big -> {len(output):,} chars"] if frozen else [])
    assert index.facts()[3].calls is None  # (a frozen one's are in the cut: `caller_after`)
    result = compact_context(view, policy=policy, index=index)
    fresh = compact_context(view, policy=policy, counter=make_counter()[0])
    assert (result.messages, result.reports) == (fresh.messages, fresh.reports)
    assert "make big" in result.messages[1]["content"]  # the cut call is in the digest


def test_a_line_is_not_taken_from_facts_for_another_tool_use_block():
    """The line a result's facts hold names the tool_use block it was written for; a
    view whose call has the same id but a different block gets its own line."""
    use = tool_use("toolu_1", "bash", {"command": "make test"})
    view = [user("go"), {"role": "assistant", "content": [use]}, user([tool_result("toolu_1")])]
    index = ViewIndex(make_counter()[0])
    index.measure(view)
    other = {"role": "assistant", "content": [tool_use("toolu_1", "bash", {"command": "rm x"})]}
    changed = [view[0], other, view[2]]
    index.measure(changed)
    _, calls = collect_removed(changed, changed[:1], index.facts())
    assert [call.describe() for call in calls] == ["bash command=rm x -> 2 chars, ok"]


def test_reads_recorded_under_one_read_rule_are_not_taken_under_another():
    """The per-turn check keys reads by its own policy's rule; a compaction whose policy
    names other read tools finds its reads itself."""
    cat = {"path": "src/a.py"}
    view = [user("go")]
    for number in (1, 2):
        use = tool_use(f"toolu_{number}", "cat", cat)
        view += [{"role": "assistant", "content": [use]}, user([tool_result(use["id"])])]
    index = ViewIndex(make_counter()[0])
    index.measure(view, CompactionPolicy())  # reads: read_file
    counter, facts = index.counter, index.facts()
    plain_reads = build_dedup_outcome(view, CompactionPolicy(), counter, facts)
    assert plain_reads.removed_tool_use_ids == ()
    cat_reads = CompactionPolicy(read_tool_names={"cat"})
    assert build_dedup_outcome(view, cat_reads, counter, facts).removed_tool_use_ids == ("toolu_1",)


def _reads_history(turns: int = 40) -> list[dict[str, Any]]:
    view = [user("go")]
    for number in range(turns):
        view += [
            assistant([read_use(f"t{number}", f"src/{number % 5}.py")]),
            user([tool_result(f"t{number}", "x" * 80)]),
        ]
    return [freeze(m) for m in [*view, assistant("done"), user("next")]]


def test_an_equal_copy_of_the_view_gets_facts_that_name_its_own_blocks():
    """A copy of the measured view (equal, other objects) passes the index's prefix test,
    so nothing is recorded again; the facts a run is given still name the copy's own
    blocks, which L2 takes out by identity: the outcome is a fresh index's."""
    view = _reads_history(6)
    policy = CompactionPolicy()
    index = ViewIndex(make_counter()[0])
    index.measure(view, policy)
    copy = [freeze(deepcopy(dict(message))) for message in view]
    index.measure(copy, policy)
    facts = index.facts()
    for message, found in zip(copy, facts, strict=True):
        blocks = message["content"] if isinstance(message["content"], list) else []
        assert all(any(block is own for own in blocks) for block in (*found.uses, *found.results))
    kept = build_dedup_outcome(copy, policy, index.counter, facts)
    fresh = build_dedup_outcome(copy, policy, index.counter)
    assert kept.messages == fresh.messages and len(kept.messages) < len(copy)


def test_a_recorded_cut_gives_its_callers_facts_only_where_the_view_holds_that_caller():
    """L1 puts a recorded cut's caller facts (`CutFacts.caller_after`) in place only where the
    view holds the very message they were recorded for: an equal copy of the caller gets
    facts that name its own blocks, and L2 and L3 then make of the view what a fresh
    index makes of it."""
    policy = CompactionPolicy(max_tool_result_tokens=50, keep_recent_messages=2)
    view = [freeze(user("start"))]
    for number in range(4):
        call = f"big{number}"
        view += [
            freeze(assistant([text(f"reading {number}"), read_use(call, "same.py")])),
            freeze(user([tool_result(call, f"line {number}\n" * 400)])),
        ]
    index = ViewIndex(make_counter()[0])
    index.measure(view, policy)
    assert all(found.cut is not None for found in index.facts()[2::2])
    copied = [*view[:3], freeze(deepcopy(dict(view[3]))), *view[4:]]
    index.measure(copied, policy)
    cut = build_truncation_outcome(copied, policy, index.counter, index.facts())
    assert cut.facts is not None and cut.results_truncated == 4
    for message, found in zip(cut.messages, cut.facts, strict=True):
        blocks = message["content"] if isinstance(message["content"], list) else []
        entries = (found.calls or {}).values()
        named = [*found.uses, *(entry.use for entry in entries)]
        assert all(any(block is own for own in blocks) for block in named)
    runs = [_l2_l3(cut.messages, policy, index.counter, cut.facts)]
    runs.append(_l2_l3(cut.messages, policy, index.counter, None))  # facts built afresh
    assert runs[0] == runs[1] and len(runs[0][2]) == 3  # the three older reads


def _l2_l3(
    view: list[dict[str, Any]], policy: CompactionPolicy, counter: Any, facts: Any
) -> tuple[Any, ...]:
    """What L2 then L3 make of `view` and name as removed (lines written, counts of the
    line and of the blocks left out)."""
    deduped = build_dedup_outcome(view, policy, counter, facts)
    pruned = build_prune_outcome(deduped.messages, policy, counter, None, deduped.facts)
    named = [
        entry._replace(counted=None, block_tokens=None, line=entry.describe())
        for outcome in (deduped, pruned)
        for entry in (outcome.removed or ([], []))[1]
    ]
    return deduped.messages, deduped.tokens_saved, named, pruned.messages, pruned.tokens_saved


def test_an_interrupted_check_never_leaves_a_count_that_misses_the_new_messages(monkeypatch):
    """Ctrl-C while the per-turn check records a new message's facts: the index it was
    extending is emptied, not left claiming the new view with the old total."""
    import agent_cli.compaction.view_index as view_index

    view = _reads_history(4)
    big = [
        freeze(assistant([read_use("big", "big.py")])),
        freeze(user([tool_result("big", "y " * 5_000)])),
    ]
    index = ViewIndex(make_counter()[0])
    index.count(view)

    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(view_index, "record_facts", interrupted)
    with pytest.raises(KeyboardInterrupt):
        index.count([*view, *big])
    monkeypatch.undo()
    assert index.length == 0
    fresh = ViewIndex(make_counter()[0])
    assert index.count([*view, *big]) == fresh.count([*view, *big])


def test_reads_with_keys_of_mixed_types_are_keyed_without_an_error():
    from agent_cli.compaction.layers.read_keys import build_read_key

    block = {
        "type": "tool_use",
        "id": "t",
        "name": "read_file",
        "input": {"path": "a.py", 1: "x", "b": 2},
    }
    assert build_read_key(block, CompactionPolicy()) is not None


def test_the_check_with_the_sessions_policy_records_the_reads_l2_compares(monkeypatch):
    """The session's per-turn check passes its policy (`ViewIndex.count(view, policy)`),
    so a compaction keys no read again."""
    import agent_cli.compaction.layers.dedup as dedup

    keyed: list[int] = []
    original = dedup.find_reads
    monkeypatch.setattr(dedup, "find_reads", lambda *a, **k: keyed.append(1) or original(*a, **k))
    view, (counter, _) = _reads_history(), make_counter()
    policy = CompactionPolicy(soft_threshold=500, hard_limit=10**6, keep_recent_messages=400)
    index = ViewIndex(counter)
    for end in range(1, len(view) + 1, 2):
        index.count(view[:end], policy)
    compact_context(view, policy=policy, index=index)
    assert keyed == []


def test_a_call_whose_result_was_cut_is_named_with_the_result_that_left():
    """A call the per-turn check recorded in order is taken as recorded only when its
    result's message left with it: after L1 cut the result (a new message), L3 names
    the call with the cut result, as comparing the views finds it."""
    view = [user("go")]
    for number in range(6):
        use = tool_use(f"toolu_{number}", "bash", {"command": f"make {number}"})
        output = "line of output\n" * (4_000 if number == 1 else 2)
        view += [assistant([use]), user([tool_result(use["id"], output)])]
    view = [freeze(m) for m in [*view, assistant("done"), user("next")]]
    counter, _ = make_counter()
    policy = CompactionPolicy(soft_threshold=2_000, hard_limit=40_000, keep_recent_messages=2)
    index = ViewIndex(counter)
    index.measure(view, policy)
    truncated = build_truncation_outcome(view, policy, counter, index.facts())
    cut, facts = truncated.messages, truncated.facts
    assert cut[4] is not view[4]  # the long result was cut: its message is a new one
    pruned = build_prune_outcome(cut, policy, counter, None, facts)
    found = collect_removed(cut, pruned.messages, facts)
    assert _as_reference(found) == _reference_removed(cut, pruned.messages)
    named = {call.tool_use_id: call for call in found[1]}
    assert named["toolu_1"].result is cut[4]["content"][0]
    assert named["toolu_0"].result is view[2]["content"][0]  # recorded, taken as it was


def test_a_result_far_after_its_call_is_still_matched_when_both_leave():
    """A view may answer a call several messages later; when both halves leave and the
    result is not the one recorded (cut since), the removed call names the result that
    left, with facts as without them."""
    late = tool_use("toolu_late", "bash", {"command": "make slow"})
    view = [user("go"), assistant([text("starting"), late])]
    for number in range(12):
        view += [user(f"meanwhile {number}"), assistant(f"noted {number}")]
    view += [user([tool_result("toolu_late", "done at last")]), assistant("ok"), user("next")]
    view = [freeze(m) for m in view]
    index = ViewIndex(make_counter()[0])
    index.measure(view)
    cut = {**view[-3], "content": [tool_result("toolu_late", "cut")]}
    before = [*view[:-3], cut, *view[-2:]]
    recorded = index.facts()  # a layer that rebuilt a message gives it facts of its own
    facts = [*recorded[:-3], build_message_facts(cut, None), *recorded[-2:]]
    kept = [view[0], *view[-2:]]
    with_facts = collect_removed(before, kept, facts)
    assert _as_reference(with_facts) == _reference_removed(before, kept)
    assert [call.result for call in with_facts[1]] == [cut["content"][0]]


def _parallel_reads_history(turns: int, found: str = "found") -> list[dict[str, Any]]:
    """Each turn reads one of three files beside a search (that finds `found`), both
    answered in the next message: L2 takes the older reads out of messages whose other
    call stays."""
    view = [user("go")]
    for number in range(turns):
        read, search = f"r{number}", f"s{number}"
        view += [
            assistant(
                [text(f"step {number}"), read_use(read, f"src/{number % 3}.py"), tool_use(search)]
            ),
            user([tool_result(read, f"{number} " * 30), tool_result(search, found)]),
        ]
    return [freeze(m) for m in [*view, assistant("done"), user("next")]]


def test_a_message_l2_rebuilt_keeps_its_other_calls_entries_for_l3():
    """Where L2 takes a read out of a message whose other call stays, the facts it hands
    on keep that call's recorded entry and name the rebuilt message that now holds its
    result, so L3 takes the entry as recorded; L2 then L3 make of the view what they make
    of it with facts built afresh."""
    view = _parallel_reads_history(9)
    policy = CompactionPolicy(keep_recent_messages=4)
    index = ViewIndex(make_counter()[0])
    index.measure(view, policy)
    deduped = build_dedup_outcome(view, policy, index.counter, index.facts())
    assert deduped.facts is not None and len(deduped.removed_tool_use_ids) == 6
    rebuilt = [
        (position, found)
        for position, (message, found) in enumerate(
            zip(deduped.messages, deduped.facts, strict=True)
        )
        if message["role"] == "assistant" and message not in view and found.uses
    ]
    assert len(rebuilt) == 6
    for position, found in rebuilt:
        (search,) = found.uses
        assert [entry.tool_use_id for entry in found.in_order] == [search["id"]]
        assert found.answered_in == (deduped.messages[position + 1],)
        assert found.in_order[0].result is deduped.messages[position + 1]["content"][0]
        # both messages as the per-turn check recorded them without their reads
        for at in (position, position + 1):
            record = index.facts()[at].without_reads
            assert record is not None and deduped.messages[at] is record[0]
    runs = [_l2_l3(view, policy, index.counter, index.facts())]
    runs.append(_l2_l3(view, policy, index.counter, None))
    assert runs[0] == runs[1]


def test_after_l1_cut_their_results_l2_takes_reads_out_as_recorded_for_the_cut():
    """The per-turn check records what L2 makes of a call message without its reads, and
    again for its facts after L1 cuts the message answering it (`with_caller_after_cut`):
    after L1, the facts L2 hands on name the cut results and the rebuilt cut message, and
    L1, L2 then L3 make of the view what they make of it with facts built afresh."""
    view = _parallel_reads_history(9, found="match\n" * 400)
    policy = CompactionPolicy(keep_recent_messages=4, max_tool_result_tokens=100)
    index = ViewIndex(make_counter()[0])
    index.measure(view, policy)
    assert all(found.without_reads is not None for found in index.facts()[1:-2:2])
    cut = build_truncation_outcome(view, policy, index.counter, index.facts())
    assert cut.facts is not None and cut.results_truncated == 9  # the searches
    deduped = build_dedup_outcome(cut.messages, policy, index.counter, cut.facts)
    assert deduped.facts is not None
    changed = [
        (position, found)
        for position, (message, found) in enumerate(
            zip(deduped.messages, deduped.facts, strict=True)
        )
        if message["role"] == "assistant" and found.uses and message not in cut.messages
    ]
    assert len(changed) == 6
    for position, found in changed:  # its search's entry names the cut result L2 left
        holder = deduped.messages[position + 1]
        assert found.answered_in == (holder,)
        assert [entry.result for entry in found.in_order] == holder["content"]
        record = cut.facts[position + 1].without_reads  # the cut, as recorded without its read
        assert record is not None and holder is record[0]
    runs = [_l2_l3(cut.messages, policy, index.counter, cut.facts)]
    runs.append(_l2_l3(cut.messages, policy, index.counter, None))
    assert runs[0] == runs[1]


def test_a_dropped_message_with_two_texts_gives_them_newest_first_as_a_rescan_does():
    """L3 takes a dropped message's recorded requests as they are: newest first, in the
    order a rescan of the views finds them."""
    view = [user("start"), user([text("first ask"), text("second ask")]), assistant("ok")]
    view = [freeze(m) for m in _with_some_sources([*view, user("next"), assistant("done")], 0)]
    counter, _ = make_counter()
    index = ViewIndex(counter)
    index.measure(view)
    policy = CompactionPolicy(soft_threshold=10, hard_limit=40_000, keep_recent_messages=2)
    pruned = build_prune_outcome(view, policy, counter, None, index.facts())
    requests, _ = pruned.removed or ([], [])
    assert [request.text for request in requests] == ["second ask", "first ask"]
    rescanned, _ = collect_removed(view, pruned.messages)
    assert [request.text for request in rescanned] == ["second ask", "first ask"]
    assert all(request.counted is not None for request in requests)  # as recorded


def test_a_messages_result_counts_follow_its_results_when_calls_leave_it() -> None:
    """Each result's count is recorded beside it (`MessageFacts.result_tokens`, what L1
    cuts from); when some calls leave the message (`without_calls`), the counts left are
    those of the results left, in order, and L1 reads them instead of counting again."""
    from agent_cli.compaction.message_facts import without_calls
    from agent_cli.tokens import TokenCounter

    class RecordingCounter(TokenCounter):
        texts: list[str] = []

        def count_text(self, text: str) -> int:
            self.texts.append(text)
            return super().count_text(text)

    counter = RecordingCounter()
    results = [tool_result(f"t{n}", "word " * (50 * n + 1)) for n in range(1, 5)]
    found = build_message_facts(user(results), counter)
    counts = [counter.count_result_content(block) for block in results]
    assert found.result_tokens == tuple(counts) and found.largest_result == max(counts)
    left = without_calls(found, {"t2", "t3"})
    assert left.results == (results[0], results[3])
    assert left.result_tokens == (counts[0], counts[3])
    counter.texts.clear()
    policy = CompactionPolicy(max_tool_result_tokens=60)
    cut = build_truncation_outcome([user(results)], policy, counter, [found])
    assert cut.results_truncated == 3
    assert not {block["content"] for block in results} & set(counter.texts)  # read, not counted
