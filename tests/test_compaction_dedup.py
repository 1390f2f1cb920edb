"""L2 dedup_file_reads: only the newest read of a file stays, as whole interactions."""

from __future__ import annotations

import copy

import pytest
from compaction_support import (
    assistant,
    call_pair,
    make_counter,
    read_use,
    text,
    tool_result,
    tool_use,
    user,
)

from agent_cli.compaction import (
    CompactionPolicy,
    ToolProtocolError,
    ViewIndex,
    dedup_file_reads,
    validate_tool_protocol,
)
from agent_cli.tokens import TokenCounter


def _read(tool_id, path, body="file body " * 20, **extra):
    return call_pair(tool_id, body, read_use(tool_id, path, **extra))


def _ids(view):
    return set(validate_tool_protocol(view))


def test_an_older_read_of_the_same_file_goes_with_its_result():
    counter, _ = make_counter()
    history = [user("go"), *_read("old", "src/a.py"), *_read("new", "src/a.py"), user("ok")]
    view, saved = dedup_file_reads(history, counter=counter)
    assert _ids(view) == {"new"}
    assert view == [history[0], *history[3:]]
    assert saved == counter.count_messages(history[1:3])


def test_paths_that_differ_only_cosmetically_are_the_same_file():
    history = [
        user("go"),
        *_read("a", "./src/a.py"),
        *_read("b", "src//a.py"),
        *_read("c", "src/./a.py/"),
    ]
    view, _ = dedup_file_reads(history)
    assert _ids(view) == {"c"}


def test_a_path_with_a_blank_at_either_end_names_another_file():
    """`read_file` reads `data.txt ` as a file of its own: its read supersedes no read of
    `data.txt`, whose only copy of the data must stay."""
    history = [
        user("go"),
        *_read("a", "data.txt"),
        *_read("b", "data.txt "),
        *_read("c", " data.txt"),
    ]
    view, saved = dedup_file_reads(history)
    assert (_ids(view), saved) == ({"a", "b", "c"}, 0)


def test_a_failed_read_supersedes_nothing_and_a_later_good_read_does():
    """Seventh attack: `read data.txt`, `mv data.txt data.old`, `read data.txt` ("no such
    file") made L2 drop the only copy of the data and keep the error."""
    failed = [
        assistant([read_use("b", "data.txt")]),
        user([{**tool_result("b", "data.txt: no such file"), "is_error": True}]),
    ]
    history = [user("go"), *_read("a", "data.txt"), *failed]
    view, saved = dedup_file_reads(history)
    assert (_ids(view), saved) == ({"a", "b"}, 0)
    view, _ = dedup_file_reads([*history, *_read("c", "data.txt")])
    assert _ids(view) == {"b", "c"}  # the newest good read supersedes the older good one


@pytest.mark.parametrize("failed", [False, True])
def test_the_index_extended_by_a_later_read_finds_what_a_fresh_walk_finds(failed):
    """The per-turn index walks each turn's messages as they come: a later read's result,
    good or failed, decides there as in a walk of the whole view."""
    index, policy = ViewIndex(TokenCounter()), CompactionPolicy()
    first = [user("go"), *_read("a", "data.txt")]
    index.measure(first, policy)
    later = [
        assistant([read_use("b", "data.txt")]),
        user([{**tool_result("b", "rows"), "is_error": failed}]),
    ]
    index.measure([*first, *later], policy)
    assert dict(index.superseded_reads) == ({} if failed else {"a": 1})


def test_reads_of_different_ranges_are_not_duplicates():
    history = [user("go"), *_read("a", "a.py", offset=0), *_read("b", "a.py", offset=200)]
    view, saved = dedup_file_reads(history)
    assert (_ids(view), saved) == ({"a", "b"}, 0)


def test_other_blocks_of_the_same_messages_stay():
    history = [
        user("go"),
        assistant([text("reading and listing"), read_use("r1", "a.py"), tool_use("ls")]),
        user([tool_result("ls", "a.py"), tool_result("r1", "old body"), text("go on")]),
        *_read("r2", "a.py"),
    ]
    view, _ = dedup_file_reads(history)
    assert view[1]["content"] == [text("reading and listing"), tool_use("ls")]
    assert view[2]["content"] == [tool_result("ls", "a.py"), text("go on")]
    assert _ids(view) == {"ls", "r2"}


def test_tools_that_do_not_read_files_are_left_alone():
    history = [user("go"), *call_pair("x"), *call_pair("y")]
    view, saved = dedup_file_reads(history)
    assert (view, saved) == (history, 0)


def test_the_read_tools_and_path_key_come_from_the_policy():
    policy = CompactionPolicy(read_tool_names={"cat"}, read_path_key="file")
    history = [
        user("go"),
        *call_pair("a", "body", tool_use("a", "cat", {"file": "a.py"})),
        *call_pair("b", "body", tool_use("b", "cat", {"file": "a.py"})),
        *_read("c", "a.py"),
        *_read("d", "a.py"),
    ]
    view, _ = dedup_file_reads(history, policy)
    assert _ids(view) == {"b", "c", "d"}


def test_no_private_key_is_needed_or_added():
    history = [user("go"), *_read("a", "a.py"), *_read("b", "a.py")]
    view, _ = dedup_file_reads(history)
    keys = {
        key
        for message in view
        for block in message["content"]
        if isinstance(block, dict)
        for key in block
    }
    assert keys <= {"type", "text", "id", "name", "input", "tool_use_id", "content"}


def test_dedup_never_mutates_and_refuses_an_invalid_history():
    history = [user("go"), *_read("a", "a.py"), *_read("b", "a.py")]
    before = copy.deepcopy(history)
    dedup_file_reads(history)
    assert history == before
    with pytest.raises(ToolProtocolError):
        dedup_file_reads([user("go"), assistant([read_use("a", "a.py")])])
