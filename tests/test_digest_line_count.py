"""The count a merged digest comes back with is its rendered text's, line by line.

A merge adds up its lines' tokens as it fits them (`merge.fit_digest`) and the digest
message carries that sum (`build_counted_message`), so the rendered text is never split
and counted again; these tests hold the sum equal to counting the text's lines
(`count_line` of `render_digest`) on every path: a first digest, an appended part, a
refit with shortened requests, folded lines and the "older" line made room for.
"""

from __future__ import annotations

from typing import Any

from compaction_support import call_pair, make_counter, read_use, tool_result, tool_use, user
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_cli.compaction import CompactionPolicy, ViewIndex, compact_context
from agent_cli.compaction.digest.entries import Digest, digest_from_message
from agent_cli.compaction.digest.layer_step import RunningDigest
from agent_cli.compaction.digest.merge import (
    build_counted_message,
    count_digest,
    count_rendered_message,
    fit_digest,
)
from agent_cli.compaction.digest.removed_items import (
    RemovedInteraction,
    RequestEntry,
    count_line,
    describe_interaction,
    with_pointer,
)
from agent_cli.compaction.digest.render import render_digest
from agent_cli.compaction.markers import SOURCE_KEY, is_digest_message
from agent_cli.compaction.results import APPLIED
from agent_cli.tokens import COUNT_KEY, TokenCounter

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
_words = st.text(alphabet="abcdef gh\n上下文", min_size=1, max_size=30)
_pointers = st.one_of(
    st.none(),
    st.integers(1, 500).map(lambda n: f"transcript:s1:{n}"),
    st.just("artifact:s1:out.txt:0123456789ab"),
)


def _lines_count(digest: Digest, counter: TokenCounter) -> int:
    return count_line(render_digest(digest), counter)


@st.composite
def _requests(draw: st.DrawFn) -> list[RequestEntry]:
    texts = draw(st.lists(_words.map(lambda w: w * 3), max_size=4))
    long_texts = draw(st.lists(_words.map(lambda w: w * 40), max_size=2))
    # the same request asked again and again (`digest.repeats`): one line, its asks counted
    repeated = draw(st.lists(st.sampled_from(["fix it", " fix it", "日志 " * 90]), max_size=5))
    return [RequestEntry(t, draw(_pointers)) for t in [*texts, *long_texts, *repeated]]


@st.composite
def _interactions(draw: st.DrawFn, counter: TokenCounter) -> list[RemovedInteraction]:
    """Removed calls, some with their line written and counted for `counter` (as the
    per-turn check leaves them), some for another counter, some not written yet."""
    calls = []
    for n in range(draw(st.integers(0, 40))):
        use = tool_use(f"t{n}", "bash", {"command": draw(_words)})
        result = draw(st.sampled_from([None, tool_result(f"t{n}", "x" * 300)]))
        pointer = draw(_pointers)
        entry = RemovedInteraction(f"t{n}", use, result, pointer)
        how = draw(st.sampled_from(["unwritten", "counted", "other counter"]))
        if how != "unwritten":
            line = describe_interaction(use, result)
            owner = counter if how == "counted" else TokenCounter()
            tokens = count_line(with_pointer(line, pointer), counter)
            entry = entry._replace(line=line, counted=(owner, tokens))
        calls.append(entry)
    return calls


@SETTINGS
@given(st.data())
def test_every_merge_comes_back_with_its_rendered_lines_count(data: st.DataObject) -> None:
    """Merge after merge (each from the digest its message holds, with the tokens read
    off that message as a layer step reads them), the count is the rendered lines'."""
    counter, _ = make_counter()
    budget = data.draw(st.integers(40, 1_500), label="budget")
    digest = Digest()
    for _ in range(data.draw(st.integers(1, 4), label="merges")):
        requests = data.draw(_requests(), label="requests")
        interactions = data.draw(_interactions(counter), label="interactions")
        message = build_counted_message(fit_digest(digest, [], [], budget, counter), counter)
        rendered = data.draw(st.sampled_from([None, count_rendered_message(message, counter)]))
        fitted = fit_digest(digest, requests, interactions, budget, counter, rendered)
        assert fitted.line_tokens == _lines_count(fitted.digest, counter)
        unknown = fit_digest(digest, requests, interactions, budget, counter)  # no rendered count
        assert fitted.digest == unknown.digest
        digest = digest_from_message(build_counted_message(fitted, counter))


def test_an_appended_part_and_a_refit_each_count_as_rendered() -> None:
    """Both ways a merge goes, on a real encoder: a part appended after the first, then a
    refit that folds lines into the "older" line."""
    counter = TokenCounter()
    request = RequestEntry("tidy up\n\n  please", "transcript:s1:1")
    calls = [
        RemovedInteraction(f"t{n}", tool_use(f"t{n}", "bash", {"command": f"make {n}"}), None, None)
        for n in range(120, 0, -1)
    ]
    first = fit_digest(Digest(), [request], calls[-5:], 600, counter)
    rendered = count_rendered_message(build_counted_message(first, counter), counter)
    appended = fit_digest(first.digest, [], calls[-8:-5], 600, counter, rendered)
    refitted = fit_digest(appended.digest, [], calls[:-8], 600, counter)
    assert len(appended.digest.parts) == 2
    assert refitted.digest.older.count > 0
    for fitted in (first, appended, refitted):
        assert fitted.line_tokens == _lines_count(fitted.digest, counter)


def test_the_digest_a_compaction_leaves_carries_its_lines_count() -> None:
    """After a run whose two digest steps (L2's and L3's) both add to it, the digest
    message carries its lines' count, and every figure counts it so."""
    history = [user("Please tidy the repository.")]
    for number in range(600):  # every other call reads the same file again (L2's work)
        use = read_use(f"t{number}", "src/a.py") if number % 2 else None
        history += call_pair(f"t{number}", "x" * 1_200, use)
    view: list[dict[str, Any]] = [
        {**message, SOURCE_KEY: f"transcript:s1:{number + 1}"}
        for number, message in enumerate(history)
    ]
    counter = TokenCounter()
    policy = CompactionPolicy(soft_threshold=60_000, hard_limit=80_000)
    result = compact_context(view, policy=policy, index=ViewIndex(counter))
    assert [r.layer for r in result.reports if r.outcome == APPLIED] == [2, 3]
    digest = next(message for message in result.messages if is_digest_message(message))
    lines = count_line(digest["content"], counter)
    assert digest[COUNT_KEY][1] == lines
    assert count_digest(digest, counter) == count_rendered_message(digest, counter)


def _second_compaction(carried: bool) -> tuple[Any, int]:
    """A view that holds an earlier compaction's digest, twenty turns later, compacted
    again on a fresh counter: the result and how many texts that counter encoded. The
    digest message keeps the count it carries unless `carried` is False."""
    history = [user("Please tidy the repository.")]
    for number in range(400):
        history += call_pair(f"t{number}", f"output {number} " * 150)
    view = [{**m, SOURCE_KEY: f"transcript:s1:{n + 1}"} for n, m in enumerate(history)]
    policy = CompactionPolicy(soft_threshold=40_000, hard_limit=200_000, digest_tokens=4_000)
    first = compact_context(view, policy=policy, counter=make_counter()[0]).messages
    more = [call_pair(f"u{n}", f"later {n} " * 150) for n in range(300)]
    later = [
        {**m, SOURCE_KEY: f"transcript:s1:{len(view) + n + 1}"}
        for n, m in enumerate(m for pair in more for m in pair)
    ]
    at = next(n for n, m in enumerate(first) if is_digest_message(m))
    digest = dict(first[at])
    if not carried:
        digest.pop(COUNT_KEY)
    second_view = [*first[:at], digest, *first[at + 1 :], *later]
    counter, encoding = make_counter()
    result = compact_context(second_view, policy=policy, counter=counter)
    return result, encoding.calls


def test_a_second_compaction_takes_the_earlier_digests_count_from_its_message() -> None:
    """The digest a view holds from an earlier run carries its lines' count; a run that
    merges into it takes that count (its text being its entries rendered) instead of
    counting each of its lines again, and ends where counting them would."""
    taken, taken_calls = _second_compaction(carried=True)
    counted, counted_calls = _second_compaction(carried=False)
    assert taken.messages == counted.messages  # (a message without its count weighs its
    assert _what_happened(taken) == _what_happened(counted)  # text whole: figures differ)
    assert counted_calls - taken_calls >= 50  # the earlier digest's lines, not counted again


def test_an_earlier_digest_is_taken_at_its_count_only_when_its_text_is_its_entries() -> None:
    """A run merging into the digest its view came with takes the count the message
    carries when its text is its entries rendered; a text written otherwise (here of the
    same length, so the carried count still matches it) is not taken at it."""
    counter = TokenCounter()
    fitted = fit_digest(Digest(), [RequestEntry("tidy up", "transcript:s1:1")], [], 600, counter)
    message = build_counted_message(fitted, counter)
    digest, rendered = RunningDigest(message).earlier(counter)
    assert digest == digest_from_message(message)
    assert rendered == count_rendered_message(message, counter)
    edited = {**message, "content": message["content"].replace("tidy", "TIDY")}
    assert counter.carried_count(edited, edited["content"]) is not None
    assert RunningDigest(edited).earlier(counter) == (digest, None)


def _what_happened(result: Any) -> list[tuple[Any, ...]]:
    """Each layer's outcome and what it removed, its token figures left out."""
    return [
        (r.layer, r.outcome, r.removed_tool_use_ids, r.messages_removed) for r in result.reports
    ]
