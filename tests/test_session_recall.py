"""Recall by pointer (the model's tool and /expand), and oversized user messages."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from session_support import ScriptedProvider, drain, make_session, tool_use

from agent_cli.compaction.markers import is_digest_message
from agent_cli.events import ModelResponse, RequestBlocked, ToolFinished, TurnEnded, Usage
from agent_cli.provider.offline import OfflineProvider
from agent_cli.sources import SourceResolutionStatus

SECRET_LINE = "The secret word is pelican."


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text(SECRET_LINE + "\n" + "filler line\n" * 300)
    (root / "other.txt").write_text("other content line\n" * 300)
    return root


def digest_of(messages: Any) -> str:
    return next((m["content"] for m in messages if is_digest_message(m)), "")


def pointer_for(digest: str, needle: str) -> str:
    line = next(line for line in digest.splitlines() if needle in line)
    return re.findall(r"\((transcript:[^)]+)\)", line)[-1]


def recall_what_the_digest_names(request: Any) -> Any:
    """A model step: find the notes.txt read in the digest and recall it by pointer."""
    pointer = pointer_for(digest_of(request.messages), "path=notes.txt")
    message = {"role": "assistant", "content": [tool_use("rc1", "recall", pointer=pointer)]}
    yield ModelResponse(message, "tool_use", Usage(0, 0))


def read_turn(tool_id: str, path: str) -> list[Any]:
    return [[tool_use(tool_id, "read_file", path=path)], [{"type": "text", "text": "read"}]]


def test_the_model_recalls_a_pruned_read_by_the_pointer_in_the_digest(workspace: Path) -> None:
    steps = read_turn("t1", "notes.txt") + read_turn("t2", "other.txt")
    steps += read_turn("t3", "other.txt") + [recall_what_the_digest_names]
    provider = ScriptedProvider(steps)
    session = make_session(workspace, provider, soft=3_000, hard=60_000, keep_recent=2)
    for request in ("read notes", "read other", "read other again"):
        assert drain(session.run_turn(request))[-1].outcome == "ok"
    assert "path=notes.txt" in digest_of(session.view)
    assert not any("pelican" in str(m["content"]) for m in session.view if "_digest" not in m)
    events = drain(session.run_turn("what was the secret word?"))
    [finished] = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.name == "recall" and not finished.is_error
    recalled = next(
        b["content"]
        for m in session.view
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("tool_use_id") == "rc1"
    )
    assert SECRET_LINE in recalled and "[tool_result for t1]" in recalled
    assert "recall" in [t["name"] for t in provider.requests[-1].tools]


def test_recall_refuses_another_sessions_records_and_names_each_status(workspace: Path) -> None:
    session = make_session(workspace, OfflineProvider())
    drain(session.run_turn("hello"))
    own = f"transcript:{session.session_id}:2"
    answer = session.toolbox.run("recall", {"pointer": own})
    assert not answer.is_error and "user message:\nhello" in answer.content
    cases = {
        "transcript:another-session:2": "denied (not_authorized)",
        f"transcript:{session.session_id}:9999": "missing",
        "transcript:../x:1": "corrupt",
        "https://example.com/x": "unsupported",
    }
    for pointer, words in cases.items():
        refused = session.toolbox.run("recall", {"pointer": pointer})
        assert refused.is_error and words in refused.content, (pointer, refused.content)


def test_expand_takes_the_same_path_with_the_users_authority(workspace: Path) -> None:
    first = make_session(workspace, OfflineProvider())
    drain(first.run_turn("an earlier session's words"))
    earlier = f"transcript:{first.session_id}:2"
    first.close()
    session = make_session(workspace, OfflineProvider())
    drain(session.run_turn("hello"))
    mine = session.expand(f"transcript:{session.session_id}:2")
    assert mine.status is SourceResolutionStatus.AVAILABLE
    assert mine.excerpt == "user message:\nhello"
    theirs = session.expand(earlier)
    assert theirs.status is SourceResolutionStatus.AVAILABLE
    assert "an earlier session's words" in (theirs.excerpt or "")
    assert session.toolbox.run("recall", {"pointer": earlier}).is_error  # not for the model


def test_a_forgotten_facts_record_is_not_recalled_but_a_live_ones_is(workspace: Path) -> None:
    # /remember then /forget before any request: the model never saw it, and recall of
    # the command's record must not give it back (sixteenth outside attack)
    session = make_session(workspace, OfflineProvider())
    drain(session.run_turn("hello"))
    dropped = session.remember("oops: the prod db password is hunter2-Xy77-correct-horse")
    kept = session.remember("deploy with make deploy-prod")
    item = session.add_pending("rotate the db password")
    session.forget(dropped.fact_id)
    answers = {
        pointer: session.toolbox.run("recall", {"pointer": pointer})
        for pointer in (dropped.source_pointer, kept.source_pointer, item.source_pointer)
    }
    refused = answers[dropped.source_pointer]
    assert refused.is_error and "hunter2" not in refused.content
    assert "a record of the user's commands to agent-cli" in refused.content
    assert "deploy with make deploy-prod" in answers[kept.source_pointer].content
    assert "rotate the db password" in answers[item.source_pointer].content
    walked = [  # every record of the session, by number, as the attack walked them
        session.toolbox.run("recall", {"pointer": f"transcript:{session.session_id}:{number}"})
        for number in range(1, 16)
    ]
    assert not any("hunter2" in answer.content for answer in walked)
    assert "hunter2" in (session.expand(dropped.source_pointer).excerpt or "")  # the user's own


def test_a_long_record_is_recalled_in_pages_that_say_where_to_go_on(workspace: Path) -> None:
    (workspace / "long.txt").write_text("".join(f"line {n:05d}\n" for n in range(1_200)))
    provider = ScriptedProvider(read_turn("t1", "long.txt"))
    session = make_session(workspace, provider)
    drain(session.run_turn("read long.txt"))
    pointer = session.view[2]["_source"]  # the results message
    first = session.toolbox.run("recall", {"pointer": pointer})
    assert "line 00000" in first.content and "line 01199" not in first.content
    offset = int(re.search(r"offset=(\d+)", first.content).group(1))
    second = session.toolbox.run("recall", {"pointer": pointer, "offset": offset})
    assert "line 01199" in second.content and second.content.rstrip().endswith("[end]")


def test_an_offset_at_the_very_end_of_a_record_is_refused_not_answered_with_an_empty_page(
    workspace: Path,
) -> None:
    session = make_session(workspace, OfflineProvider())
    drain(session.run_turn("hello there"))
    pointer = f"transcript:{session.session_id}:2"
    length = len(session.recall.resolve(pointer).excerpt or "")
    last = session.toolbox.run("recall", {"pointer": pointer, "offset": length - 1})
    assert not last.is_error and last.content.rstrip().endswith("e\n[end]")
    for offset in (length, length + 1):
        past = session.toolbox.run("recall", {"pointer": pointer, "offset": offset})
        assert past.is_error and f"offset is past the end ({length}" in past.content


# --- oversized user messages ----------------------------------------------------------------


def test_a_one_megabyte_first_message_no_longer_blocks_the_session(workspace: Path) -> None:
    huge = "HEAD-MARK " + "y" * 1_000_000 + " TAIL-MARK"
    session = make_session(workspace, OfflineProvider(), soft=20_000, hard=60_000, message_limit=0)
    events = drain(session.run_turn(huge))
    assert isinstance(events[-1], TurnEnded) and events[-1].outcome == "ok"
    first = session.view[0]["content"]
    assert "HEAD-MARK" in first and "TAIL-MARK" in first and len(first) < 20_000
    pointer = re.search(r"(artifact:\S+?)\. ", first).group(1)
    recalled = session.toolbox.run("recall", {"pointer": pointer})
    assert not recalled.is_error and "HEAD-MARK yyyy" in recalled.content
    assert session.artifacts.read_range(pointer, 0, 2_000_000).decode() == huge
    for text in ("second", "third"):
        assert drain(session.run_turn(text))[-1].outcome == "ok"
    assert not [e for e in drain(session.compact_now()) if isinstance(e, RequestBlocked)]


def test_a_resumed_session_that_holds_a_huge_message_is_unblocked(workspace: Path) -> None:
    huge = "START " + "word " * 100_000
    old = make_session(  # as before this fix: no per-message limit
        workspace, OfflineProvider(), soft=20_000, hard=60_000, message_limit=10**9
    )
    events = drain(old.run_turn(huge))
    assert any(isinstance(e, RequestBlocked) for e in events)  # the bug this fixes
    session_id = old.session_id
    old.close()
    resumed = make_session(
        workspace, OfflineProvider(), soft=20_000, hard=60_000, message_limit=0, resume=session_id
    )
    assert "stored whole as artifact:" in resumed.view[0]["content"]
    assert resumed.view[0]["_source"] == f"transcript:{session_id}:2"
    assert drain(resumed.run_turn("go on"))[-1].outcome == "ok"


def test_a_recall_page_fits_the_tool_result_limit_of_a_small_budget(workspace: Path) -> None:
    (workspace / "long.txt").write_text("".join(f"line {n:05d}\n" for n in range(1_200)))
    session = make_session(workspace, ScriptedProvider(read_turn("t1", "long.txt")), soft=2_000)
    drain(session.run_turn("read long.txt"))
    page = session.toolbox.run("recall", {"pointer": session.view[2]["_source"]})
    assert "offset=800" in page.content  # 1.6 characters a token of the 500-token limit
    assert session.counter.count_text(page.content) <= session.policy.soft_threshold // 4
