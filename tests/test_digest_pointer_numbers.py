"""Record numbers of many pointers at once read as each one alone would."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agent_cli.compaction.digest.entries import sequence_numbers, sequence_of

_tails = st.one_of(
    st.integers(0, 10**6).map(str),
    st.just("007"),
    st.text(alphabet="0123456789²٣x", max_size=4),
)
_pointers = st.one_of(
    _tails.map(lambda tail: f"transcript:s1:{tail}"),
    _tails.map(lambda tail: f"artifact:s1:{tail}"),
    _tails.map(lambda tail: f"transcript{tail}"),
    st.just("transcript:"),
    st.just(""),
)


@given(st.lists(_pointers, max_size=12))
def test_many_pointers_read_as_each_alone(pointers: list[str]) -> None:
    assert sequence_numbers(pointers) == [sequence_of(pointer) for pointer in pointers]


def test_the_session_s_pointers_are_read_in_one_pass() -> None:
    pointers = [f"transcript:s1:{number}" for number in (12, 3, 0, 40_000)]
    assert sequence_numbers(pointers) == [12, 3, 0, 40_000]
    assert sequence_numbers([*pointers, "artifact:s1:7"]) == [12, 3, 0, 40_000, None]


def test_a_tail_int_would_refuse_reads_as_no_number() -> None:
    """A damaged stored digest may hold a pointer ending in a superscript digit (a digit
    to `str.isdigit`, not to `int`): it has no record number, and a refit of such a digest
    folds it rather than failing."""
    from compaction_support import merge_digest

    from agent_cli.compaction.digest.entries import Digest, InteractionEntry
    from agent_cli.compaction.digest.removed_items import RemovedInteraction
    from agent_cli.tokens import TokenCounter

    assert sequence_of("transcript:s1:2²") is None
    assert sequence_numbers(["transcript:s1:1", "transcript:s1:²"]) == [1, None]
    damaged = Digest(interactions=(InteractionEntry("bash", "transcript:s1:²"),) * 50)
    use = {"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "ls"}}
    removed = RemovedInteraction("t1", use, None, "transcript:s1:3")
    merged = merge_digest(damaged, [], [removed], 200, TokenCounter())
    assert merged.older.count > 0
    assert merged.interactions[0].pointer == "transcript:s1:3"
