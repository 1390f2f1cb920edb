"""The view index kept by a session equals an index built afresh from the same view.

A session's index follows its view turn by turn and meets each compaction's output (a
digest message, perhaps a summary, results cut by L1, reads and messages gone). Whatever
sequence of appends and compactions came before, what the kept index says of the view
(its count, the facts of every message, what L1 and L2 make of the view with them) is what a fresh index on a
fresh counter finds: the index is never stale and never depends on what was cached.

L1's cut results count the same on any counter because the cut block carries its count
(`tokens.COUNT_KEY`); the last test shows it with cl100k.
"""

from __future__ import annotations

from typing import Any

from compaction_support import assistant, make_counter, policies, valid_histories
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_cli.compaction import CompactionPolicy, ViewIndex, compact_context
from agent_cli.compaction.digest.removed_items import (
    count_line,
    describe_interaction,
    request_line,
    with_pointer,
)
from agent_cli.compaction.layers.dedup import ReadHistory, build_dedup_outcome, note_superseded
from agent_cli.compaction.layers.prune import build_prune_outcome
from agent_cli.compaction.layers.truncate import build_truncation_outcome
from agent_cli.compaction.markers import SOURCE_KEY, is_digest_message, is_summary_message
from agent_cli.compaction.message_facts import COUNTED_REQUEST_CHARS
from agent_cli.errors import MessageViewLimitExceeded
from agent_cli.frozen import freeze
from agent_cli.tokens import TokenCounter

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
Message = dict[str, Any]


def _with_prefix(value: Any, prefix: str) -> Any:
    """`value` with every tool id prefixed, so chunks drawn apart never share an id."""
    if isinstance(value, list):
        return [_with_prefix(item, prefix) for item in value]
    if not isinstance(value, dict):
        return value
    renamed = {key: _with_prefix(item, prefix) for key, item in value.items()}
    for key in ("id", "tool_use_id"):
        if isinstance(renamed.get(key), str):
            renamed[key] = prefix + renamed[key]
    return renamed


def _summarize(old: list[Message]) -> str:
    return f"Summary of {len(old)} earlier messages: the user asked for work on src/."


def _chunk(history: list[Message], number: int, first_sequence: int) -> list[Message]:
    """A drawn history as the next turns of a session: ids unique, each message with the
    pointer the session gives it, frozen as the session keeps it."""
    turns = [assistant("noted"), *_with_prefix(history, f"c{number}_")]
    return [
        freeze({**message, SOURCE_KEY: f"transcript:s1:{first_sequence + offset}"})
        for offset, message in enumerate(turns)
    ]


def _comparable_facts(index: ViewIndex, entries: bool = True) -> list[Any]:
    """Every message's facts with the counter each digest line was counted by left out
    (the two indexes have counters of their own; a request line's count is kept), and
    with its calls' entries only when `entries`."""
    return [_comparable(facts, entries, index.counter) for facts in index.facts()]


def _comparable(facts: Any, entries: bool, counter: TokenCounter) -> Any:
    """`facts` (counted by `counter`) as `_comparable_facts` compares them, and so the
    facts L2's recorded removal of its reads holds (`without_reads`)."""
    calls, in_order, answered_in = None, (), ()
    if entries and facts.calls is not None:
        calls = {key: _as_written(entry, counter) for key, entry in facts.calls.items()}
        in_order = tuple(_as_written(entry, counter) for entry in facts.in_order)
        answered_in = facts.answered_in
    # L1's recorded cut (with its caller's facts after it) is left out: it is made
    # under the per-result budget of the check that recorded the message and taken
    # only under that budget; what L1, L2 and L3 make of the view with it is compared
    # in `_kept_outcome`
    requests = tuple(_without_counter(request, counter) for request in facts.requests)
    without_reads = facts.without_reads
    if without_reads is not None:
        without_reads = (without_reads[0], _comparable(without_reads[1], entries, counter))
    return facts._replace(
        calls=calls,
        in_order=in_order,
        answered_in=answered_in,
        cut=None,
        requests=requests,
        without_reads=without_reads,
    )


def _as_written(entry: Any, counter: TokenCounter) -> Any:
    """A call's digest entry with its line as the digest writes it and no count: a line
    the check wrote must be that line, counted (by `counter`) as the digest counts it; a
    check that indexed a long view at once writes none where no refit reaches
    (`ViewIndex.measure`), so whether it is written is not compared."""
    if entry.line:
        assert entry.line == describe_interaction(entry.use, entry.result)
        assert entry.counted[1] == count_line(with_pointer(entry.line, entry.pointer), counter)
    return entry._replace(counted=None, line=entry.describe())


def _without_counter(request: Any, counter: TokenCounter) -> Any:
    """A request's entry with each line's count (checked against `counter`) kept and its
    counter left out, also in the heads recorded with it (`removed_items.with_heads`:
    their texts and counts are compared); a long text's count, which a check that
    indexed a long view at once makes only where a refit reaches, is left out."""
    if request is None:
        return None
    counted = request.counted
    if counted is not None:
        assert counted[1] == count_line(request_line(request), counter)
        counted = None if len(request.text) > COUNTED_REQUEST_CHARS else (None, counted[1])
    heads = request.heads and (
        request.heads[0],
        *(_without_counter(head, counter) for head in request.heads[1:]),
    )
    return request._replace(counted=counted, heads=heads)


def _assert_same_facts(index: ViewIndex, fresh: ViewIndex) -> None:
    """The facts of both indexes are equal, and so are the calls' entries of each message
    for which both wrote them: whether a message has them depends on the per-result
    budget of the check that recorded it (`note_calls`), so one may lack them."""
    assert _comparable_facts(index, entries=False) == _comparable_facts(fresh, entries=False)
    for kept, made in zip(_comparable_facts(index), _comparable_facts(fresh), strict=True):
        if kept.calls is not None and made.calls is not None:
            assert kept == made


def _kept_outcome(index: ViewIndex, view: list[Message], policy: CompactionPolicy) -> Any:
    """What L1, L2 and L3 make of the view (minus its digest) with the index's facts: the
    cuts it recorded, the reads and calls it keyed."""
    pairs = [
        pair for pair in zip(view, index.facts(), strict=True) if not is_digest_message(pair[0])
    ]
    base, facts = [message for message, _ in pairs], [found for _, found in pairs]
    cut = build_truncation_outcome(base, policy, index.counter, facts)
    deduped = build_dedup_outcome(cut.messages, policy, index.counter, cut.facts)
    pruned = build_prune_outcome(deduped.messages, policy, index.counter, None, deduped.facts)
    removed = [  # each entry's line as the digest writes it, whether written already or not
        entry._replace(counted=None, block_tokens=None, line=entry.describe())
        for outcome in (deduped, pruned)
        for entry in (outcome.removed or ([], []))[1]
    ]
    return (
        cut.messages,
        cut.tokens_saved,
        deduped.messages,
        deduped.tokens_saved,
        pruned.messages,
        [_without_counter(request, index.counter) for request in (pruned.removed or ([], []))[0]],
        removed,
    )


def _walked_reads(index: ViewIndex, policy: CompactionPolicy) -> dict[str, int]:
    """The superseded reads L2 finds walking the whole view measured last."""
    history = ReadHistory()
    note_superseded(index.facts(), 0, policy, history)
    return history.superseded


def _assert_equals_a_fresh_index(
    index: ViewIndex, view: list[Message], policy: Any, fresh_counter: Any = None
) -> None:
    tokens = index.measure(view, policy)
    fresh = ViewIndex(make_counter()[0] if fresh_counter is None else fresh_counter)
    assert tokens == fresh.measure(view, policy)
    assert index.length == fresh.length == len(view)
    _assert_same_facts(index, fresh)
    assert index.superseded_reads == fresh.superseded_reads == _walked_reads(index, policy)
    assert _kept_outcome(index, view, policy) == _kept_outcome(fresh, view, policy)


@SETTINGS
@given(
    first=valid_histories(),
    later=st.lists(st.tuples(valid_histories(), policies(), st.booleans()), min_size=2, max_size=4),
)
def test_the_kept_index_equals_a_fresh_one_after_appends_and_compactions(first, later):
    """Appends turn by turn, then a compaction (with or without a summarizer), several
    times in a row: after every step the kept index equals a fresh one."""
    index = ViewIndex(make_counter()[0])
    view = _chunk(first, 0, 1)[1:]
    sequence = len(view) + 1
    for number, (history, settings_, summarizing) in enumerate(later, 1):
        policy = CompactionPolicy(**settings_)
        for message in _chunk(history, number, sequence):
            view.append(message)
            sequence += 1
            index.count(view, policy)  # the per-turn check, also mid-call
        _assert_equals_a_fresh_index(index, view, policy)
        try:
            result = compact_context(
                view, policy=policy, summarizer=_summarize if summarizing else None, index=index
            )
        except MessageViewLimitExceeded:
            continue
        view = [freeze(message) for message in result.messages]
        _assert_equals_a_fresh_index(index, view, policy)


def test_the_generated_sessions_reach_a_digest_a_summary_and_repeated_compactions():
    """The property above is only as good as its histories: a fixed session of the same
    shape goes through several compactions and leaves both a digest and a summary."""
    big = [
        {"role": "user", "content": "tidy src/"},
        *[
            message
            for number in range(30)
            for message in (
                assistant([_read(f"r{number}", f"src/{number % 3}.py")]),
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": f"r{number}", "content": "x" * 800}
                    ],
                },
            )
        ],
    ]
    index = ViewIndex(make_counter()[0])
    policy = CompactionPolicy(
        soft_threshold=1_500, hard_limit=30_000, keep_recent_messages=4, summary_keep_recent=4
    )
    view = _chunk(big, 1, 1)[1:]
    kinds = set()
    for number, summarizing in enumerate((False, True, False), 10):
        talk = [
            message
            for turn in range(3)
            for message in (
                {"role": "user", "content": f"step {number}.{turn}: " + "please go on " * 60},
                assistant(f"done {number}.{turn} " * 80),
            )
        ]
        view = [*view, *_chunk(talk, number, 100 * number)[1:]]
        result = compact_context(
            view, policy=policy, summarizer=_summarize if summarizing else None, index=index
        )
        view = [freeze(message) for message in result.messages]
        kinds |= {"digest"} if any(map(is_digest_message, view)) else set()
        kinds |= {"summary"} if any(map(is_summary_message, view)) else set()
        _assert_equals_a_fresh_index(index, view, policy)
    assert kinds == {"digest", "summary"}


def _read(tool_id: str, path: str) -> Message:
    return {"type": "tool_use", "id": tool_id, "name": "read_file", "input": {"path": path}}


def test_a_view_with_a_cut_result_counts_the_same_on_a_fresh_counter():
    """L1 estimates the count of each text it cuts (the kept characters at the density of
    the result they came from) and the cut block carries it, so a fresh counter takes the
    same figure instead of tokenizing the cut (cl100k, mixed density: 100 against 88
    when the estimate lived in the cutting counter's memo)."""
    policy = CompactionPolicy(soft_threshold=300, hard_limit=10_000, max_tool_result_tokens=120)
    body = "def f(x):\n    return x + 1\n" * 40 + "上下文压缩 " * 200
    view = [
        {"role": "user", "content": "go"},
        assistant([_read("r1", "src/a.py")]),
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "r1", "content": body}],
        },
        assistant("done"),
        {"role": "user", "content": "ok"},
    ]
    index = ViewIndex(TokenCounter())
    result = compact_context(view, policy=policy, index=index)
    assert result.reports[0].results_truncated == 1
    compacted = [freeze(m) for m in result.messages]
    _assert_equals_a_fresh_index(index, compacted, policy, TokenCounter())


@SETTINGS
@given(
    histories=st.lists(valid_histories(), min_size=1, max_size=4),
    policy_settings=policies(),
    run=st.integers(min_value=1, max_value=6),
)
def test_a_view_indexed_in_runs_equals_one_indexed_at_once(histories, policy_settings, run):
    """A long view is indexed in runs that each end where every call made in it is
    answered (`closed_runs`), so the counter's memo still holds a run's texts when its
    facts count them again; whatever the run length, the index equals one built at once
    (but for the digest lines it writes only as far back as a refit reaches)."""
    from unittest import mock

    from agent_cli.compaction import view_index

    policy = CompactionPolicy(**policy_settings)
    view: list[Message] = []
    for number, history in enumerate(histories):
        view += _chunk(history, number, len(view) + 1)
    index = ViewIndex(make_counter()[0])
    with mock.patch.object(view_index, "RUN_MESSAGES", run):
        tokens = index.measure(view, policy)
        runs = list(view_index.closed_runs(view, 0, _answers(view), run))
    assert [message for _, part in runs for message in part] == view
    assert [at for at, _ in runs] == [sum(len(p) for _, p in runs[:n]) for n in range(len(runs))]
    _assert_equals_a_fresh_index(index, view, policy)
    assert tokens == index.tokens


def _answers(view: list[Message]) -> dict[str, tuple[int, int]]:
    from agent_cli.protocol import ProtocolScan

    scan = ProtocolScan()
    scan.feed(view, 0)
    return scan.finish()
