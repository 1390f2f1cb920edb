"""Record numbers of transcript pointers, read once where an entry is made."""

from __future__ import annotations

from agent_cli.compaction.digest.entries import sequence_of


def test_the_session_s_pointers_read_as_their_record_numbers() -> None:
    pointers = ["transcript:s1:12", "transcript:s1:0", "transcript:s1:40000", "artifact:s1:7"]
    assert [sequence_of(pointer) for pointer in pointers] == [12, 0, 40_000, None]


def test_a_tail_int_would_refuse_reads_as_no_number() -> None:
    """A damaged stored digest may hold a pointer ending in a superscript digit (a digit
    to `str.isdigit`, not to `int`): it has no record number, and a refit of such a digest
    folds it rather than failing."""
    from compaction_support import merge_digest

    from agent_cli.compaction.digest.entries import Digest, InteractionEntry
    from agent_cli.compaction.digest.removed_items import RemovedInteraction
    from agent_cli.tokens import TokenCounter

    assert sequence_of("transcript:s1:2²") is None
    assert sequence_of("transcript:s1:1") == 1 and sequence_of("transcript:s1:²") is None
    damaged = Digest(interactions=(InteractionEntry("bash", "transcript:s1:²"),) * 50)
    use = {"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "ls"}}
    removed = RemovedInteraction("t1", use, None, "transcript:s1:3")
    merged = merge_digest(damaged, [], [removed], 200, TokenCounter())
    assert merged.older.count > 0
    assert merged.interactions[0].pointer == "transcript:s1:3"


def test_a_call_recorded_by_the_index_carries_its_pointer_s_record_number() -> None:
    """The per-turn check reads each answered call's record number once, as it writes its
    digest entry (`RemovedInteraction.number`): the number of the pointer the entry
    holds, the result's record where the result carries one, else the call's."""
    from compaction_support import build_long_history

    from agent_cli.compaction import ViewIndex
    from agent_cli.compaction.markers import SOURCE_KEY
    from agent_cli.tokens import TokenCounter

    history = build_long_history(6)
    view = [
        message if number % 4 == 2 else {**message, SOURCE_KEY: f"transcript:s1:{number * 3}"}
        for number, message in enumerate(history)
    ]  # every fourth message (some results) without a pointer: those calls take the call's
    index = ViewIndex(TokenCounter())
    index.measure(view)
    entries = [entry for facts in index.facts() for entry in facts.in_order]
    assert len(entries) == 6
    assert all(entry.number == sequence_of(entry.pointer) for entry in entries)
    assert sorted(entry.number or 0 for entry in entries) == [3, 12, 15, 24, 27, 36]


def test_numbers_read_when_the_entries_were_made_order_the_digest_as_their_pointers_do() -> None:
    """A refit orders its lines by record number: taken as each entry recorded it, or
    read off the pointers where an entry recorded none, the digest is the same. The
    entries come in an order of their own, so only a sort by number gives that digest."""
    from compaction_support import merge_digest, tool_use

    from agent_cli.compaction.digest.entries import Digest, InteractionEntry
    from agent_cli.compaction.digest.removed_items import RemovedInteraction
    from agent_cli.compaction.digest.render import render_digest
    from agent_cli.tokens import TokenCounter

    order = [7, 31, 2, 19, 40, 11, 25, 3, 38, 16] * 4
    records = [number * 100 + copy for copy, number in enumerate(order)]

    def calls(numbered: bool) -> list[RemovedInteraction]:
        made = []
        for record in records:
            pointer = f"transcript:s1:{record}"
            use = tool_use(f"t{record}", "bash", {"command": f"make step{record}"})
            entry = RemovedInteraction(f"t{record}", use, None, pointer)
            made.append(entry._replace(number=record) if numbered else entry)
        return made

    def stored(numbered: bool) -> Digest:
        lines = [
            InteractionEntry(f"old {n}", f"transcript:s1:{n}", n if numbered else None)
            for n in range(5)
        ]
        return Digest(interactions=tuple(lines))

    counter = TokenCounter()
    by_recorded = merge_digest(stored(True), [], calls(True), 600, counter)
    by_pointer = merge_digest(stored(False), [], calls(False), 600, counter)
    assert render_digest(by_recorded) == render_digest(by_pointer)
    shown = [sequence_of(entry.pointer) or 0 for entry in by_recorded.interactions]
    assert shown == sorted(shown, reverse=True) and shown[0] == max(records)
    assert (
        by_recorded.older.count > 0
        and by_recorded.older.last == f"transcript:s1:{sorted(records)[-len(shown) - 1]}"
    )
