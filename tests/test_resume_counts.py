"""Token counts kept with each transcript record: a resume counts its view from them
instead of tokenizing the history again, and refuses counts that cannot be right."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from session_support import drain, make_session, plain, workspace_with

from agent_cli.compaction import CompactionPolicy
from agent_cli.provider.offline import OfflineProvider
from agent_cli.token_estimation import load_offline_encoding
from agent_cli.tokens import COUNT_KEY, TokenCounter, with_recorded_counts

NOTES = "\n".join(f"line {n}: the quick brown fox jumps over the lazy dog" for n in range(80))
PROMPTS = ("read notes.txt", "read other.txt", "what did the notes say?")


class SpyEncoding:
    """The offline cl100k encoding, keeping every text it is asked to encode."""

    def __init__(self) -> None:
        self.encoding = load_offline_encoding()
        self.texts: list[str] = []

    def encode_ordinary(self, text: str) -> list[int]:
        self.texts.append(text)
        return self.encoding.encode_ordinary(text)


def _recorded_session(tmp_path: Path) -> tuple[Path, str]:
    workspace = workspace_with(tmp_path, {"notes.txt": NOTES, "other.txt": NOTES.upper()})
    session = make_session(workspace, OfflineProvider())
    for prompt in PROMPTS:
        drain(session.run_turn(prompt))
    session_id, transcript = session.session_id, Path(session.transcript_path)
    session.close()
    return transcript, session_id


def _resume(transcript: Path, session_id: str) -> tuple[Any, SpyEncoding]:
    spy = SpyEncoding()
    counter = TokenCounter(load_encoding=lambda: spy)
    session = make_session(
        transcript_workspace(transcript), OfflineProvider(), resume=session_id, counter=counter
    )
    return session, spy


def transcript_workspace(transcript: Path) -> Path:
    """The workspace the recorded session ran in (tmp_path/ws, beside the home)."""
    return Path(_records(transcript)[0]["payload"]["workspace"])


def _records(transcript: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in transcript.read_text().splitlines()]


def _rewrite(transcript: Path, change: Any) -> None:
    """Rewrite each message record's payload through `change` (as an older version or a
    hand edit would have left the file)."""
    records = _records(transcript)
    for record in records:
        if record["kind"] == "message":
            record["payload"] = change(record["payload"])
    transcript.write_text("".join(json.dumps(record) + "\n" for record in records))


def _counted_texts(messages: list[dict[str, Any]]) -> set[str]:
    """Every text a count of `messages` would tokenize that a record can carry a count for."""
    texts = set()
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            texts.add(content)
        for block in content if isinstance(content, list) else ():
            if block.get("type") == "text":
                texts.add(block["text"])
            elif block.get("type") == "tool_result" and isinstance(block.get("content"), str):
                texts.add(block["content"])
            elif block.get("type") == "tool_use":
                texts.add(json.dumps(block["input"], ensure_ascii=False))
    return texts


def _honest_figure(messages: list[dict[str, Any]]) -> int:
    """Tokens of `messages` counted from scratch, nothing carried."""
    return TokenCounter().count_messages(plain(messages))


def test_a_record_keeps_its_message_s_counts_beside_it_not_in_it(tmp_path: Path) -> None:
    transcript, _ = _recorded_session(tmp_path)
    messages = [r["payload"] for r in _records(transcript) if r["kind"] == "message"]
    assert messages and all(payload["tokens"]["estimator"] for payload in messages)
    assert COUNT_KEY not in json.dumps([payload["message"] for payload in messages])


def test_a_resumed_session_does_not_tokenize_its_recorded_messages(tmp_path: Path) -> None:
    transcript, session_id = _recorded_session(tmp_path)
    resumed, spy = _resume(transcript, session_id)
    tokens = resumed.conversation.measure_view(CompactionPolicy())
    recorded = plain(resumed.view)
    assert len(recorded) >= 2 * len(PROMPTS)
    assert tokens == _honest_figure(recorded)
    assert not _counted_texts(recorded) & set(spy.texts)
    resumed.close()


@pytest.mark.parametrize(
    "forge",
    [
        lambda counts: [0, counts[1]],  # too few for the characters
        lambda counts: [10**7, counts[1]],  # more than the text's bytes
        lambda counts: [counts[0], counts[1] + 1],  # counted for another text
    ],
    ids=["too-small", "huge", "other-length"],
)
def test_a_forged_count_in_a_record_is_refused_and_recounted(tmp_path: Path, forge: Any) -> None:
    transcript, session_id = _recorded_session(tmp_path)

    def forged(payload: dict[str, Any]) -> dict[str, Any]:
        blocks = payload["tokens"].get("blocks")
        if blocks:
            payload["tokens"]["blocks"] = [None if c is None else forge(c) for c in blocks]
        return payload

    _rewrite(transcript, forged)
    resumed, spy = _resume(transcript, session_id)
    tokens = resumed.conversation.measure_view(CompactionPolicy())
    recorded = plain(resumed.view)
    assert tokens == _honest_figure(recorded)
    notes_result = json.dumps(recorded)
    assert "line 79" in notes_result and any("line 79: the quick" in t for t in spy.texts)
    resumed.close()


def test_a_count_under_another_estimator_is_refused_and_recounted(tmp_path: Path) -> None:
    transcript, session_id = _recorded_session(tmp_path)

    def other_estimator(payload: dict[str, Any]) -> dict[str, Any]:
        payload["tokens"]["estimator"] = "heuristic"
        return payload

    _rewrite(transcript, other_estimator)
    resumed, spy = _resume(transcript, session_id)
    tokens = resumed.conversation.measure_view(CompactionPolicy())
    recorded = plain(resumed.view)
    assert tokens == _honest_figure(recorded)
    assert _counted_texts(recorded) <= set(spy.texts)
    resumed.close()


def test_an_older_transcript_without_counts_resumes_with_the_same_figures(tmp_path: Path) -> None:
    transcript, session_id = _recorded_session(tmp_path)
    with_counts, _ = _resume(transcript, session_id)
    figure, view = (
        with_counts.conversation.measure_view(CompactionPolicy()),
        plain(with_counts.view),
    )
    with_counts.close()
    _rewrite(transcript, lambda payload: {"message": payload["message"]})
    older, spy = _resume(transcript, session_id)
    assert plain(older.view) == view
    assert not any(COUNT_KEY in json.dumps(m) for m in older.view)
    assert older.conversation.measure_view(CompactionPolicy()) == figure
    assert _counted_texts(view) <= set(spy.texts)  # counted as before counts were kept
    older.close()


@pytest.mark.parametrize(
    "recorded",
    [
        None,
        "cl100k",
        {"blocks": [[3, 5]]},
        {"estimator": 7, "blocks": [[3, 5]]},
        {"estimator": "e", "blocks": "3"},
        {"estimator": "e", "blocks": [["3", 5]]},
        {"estimator": "e", "blocks": [[True, 5]]},
        {"estimator": "e", "blocks": [[3, 5, 7]]},
        {"estimator": "e", "content": [3, 5]},  # string counts for a list of blocks
    ],
)
def test_counts_of_the_wrong_shape_leave_the_message_as_recorded(recorded: Any) -> None:
    message = {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}
    assert with_recorded_counts(message, recorded) is message


def test_recorded_counts_are_carried_where_they_count_and_nowhere_else() -> None:
    message = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "source": {}},
            {"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "ls"}},
        ],
    }
    counter = TokenCounter()
    counts = counter.record_counts(message)
    assert counts is not None and counts["blocks"][1] is None
    carried = with_recorded_counts(message, counts)
    assert [COUNT_KEY in block for block in carried["content"]] == [True, False, True]
    assert TokenCounter().count_message(carried) == TokenCounter().count_message(message)
