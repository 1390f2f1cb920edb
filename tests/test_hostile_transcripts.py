"""Damaged transcripts: reported precisely, never resumed into a broken view.

A real session writes a transcript (a question, a tool call and its result, an answer);
the tests then damage copies of it: random bytes, cuts, huge lines, NUL bytes, invalid
UTF-8, wrong JSON types, lying sequence numbers. Replay and `open_writer` either work or
raise `TranscriptCorrupt` naming a line of the file; `open_session(resume=...)` either
gives a view that passes `validate_tool_protocol` and the wire builder, or raises
`TranscriptCorrupt` / `SessionUnresumable`. No other exception type may escape. Whole
records with hostile payloads are in `test_hostile_resume.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from compaction_support import make_counter
from hostile_support import fuzz_settings
from hypothesis import event, given
from hypothesis import strategies as st
from session_support import ScriptedProvider, make_session, tool_use

from agent_cli.errors import SessionUnresumable, TranscriptCorrupt
from agent_cli.events import ModelRequest
from agent_cli.protocol import validate_tool_protocol
from agent_cli.provider.wire import build_wire_request
from agent_cli.store.paths import resolve_state_paths
from agent_cli.store.transcript import TranscriptStore

RESUME_ERRORS = (TranscriptCorrupt, SessionUnresumable)


def record_session(tmp_path: Path) -> tuple[Path, str, bytes]:
    """A workspace and the transcript of one real session in it: (workspace, id, bytes)."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("hello\n")
    provider = ScriptedProvider(
        [[tool_use("toolu_1", "read_file", path="notes.txt")], [{"type": "text", "text": "Done."}]]
    )
    session = make_session(workspace, provider, counter=make_counter()[0])
    list(session.run_turn("Read notes.txt please."))
    session.close()
    return workspace, session.session_id, Path(session.transcript_path).read_bytes()


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[Path, str, bytes]:
    return record_session(tmp_path)


def transcript_path(session_id: str) -> Path:
    return resolve_state_paths().transcripts / f"{session_id}.jsonl"


def line_count(data: bytes) -> int:
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def build_probe(view: list[dict[str, Any]]) -> ModelRequest:
    messages = list(view)
    if messages[-1].get("role") == "assistant":
        messages.append({"role": "user", "content": "next"})
    return ModelRequest(system="s", durable_context="", messages=tuple(messages), tools=())


def check_replay(session_id: str, data: bytes) -> None:
    """Replay and open_writer work, or raise TranscriptCorrupt naming a line of the file."""
    store = TranscriptStore(resolve_state_paths().transcripts)
    for attempt in (lambda: list(store.replay(session_id)), lambda: store.open_writer(session_id)):
        transcript_path(session_id).write_bytes(data)
        try:
            result = attempt()
        except TranscriptCorrupt as error:
            assert 1 <= error.line_number <= line_count(data)
            assert error.reason and error.session_id == session_id
            continue
        if not isinstance(result, list):
            result.close()


def check_resume(workspace: Path, session_id: str, data: bytes) -> str:
    """Resume either refuses with a typed error or yields a view the API would take."""
    transcript_path(session_id).write_bytes(data)
    try:
        session = make_session(
            workspace, ScriptedProvider(), resume=session_id, counter=make_counter()[0]
        )
    except RESUME_ERRORS as error:
        if error.line_number is not None:
            assert 1 <= error.line_number <= line_count(data)
        return type(error).__name__
    try:
        validate_tool_protocol(session.view)
        if session.view:
            build_wire_request(build_probe(session.view), "probe-model")
    finally:
        session.close()
    return "resumed"


# --- fuzzed damage ----------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
ENVELOPE_KEYS = (
    "schema_version",
    "session_id",
    "sequence",
    "event_id",
    "recorded_at",
    "kind",
    "payload",
)


@st.composite
def damaged(draw: st.DrawFn, data: bytes) -> bytes:
    """`data` with one to three kinds of damage applied."""
    lines = data.split(b"\n")[:-1]
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(
            st.sampled_from(
                [
                    "bytes",
                    "cut",
                    "insert",
                    "retype",
                    "sequence",
                    "dup",
                    "swap",
                    "nul",
                    "utf8",
                    "huge",
                    "nonewline",
                ]
            )
        )
        index = draw(st.integers(0, max(len(lines) - 1, 0)))
        lines = apply_damage(draw, kind, lines, index)
    return b"".join(line + b"\n" for line in lines)


def apply_damage(draw: st.DrawFn, kind: str, lines: list[bytes], index: int) -> list[bytes]:
    if not lines:
        return [draw(st.binary(max_size=40))]
    line = lines[index]
    if kind == "bytes":
        at = draw(st.integers(0, len(line)))
        lines[index] = line[:at] + draw(st.binary(min_size=1, max_size=8)) + line[at + 1 :]
    elif kind == "cut":
        return lines[:index] + [line[: draw(st.integers(0, len(line)))]]
    elif kind == "insert":
        lines.insert(
            index,
            draw(
                st.one_of(
                    st.binary(max_size=60),
                    json_values.map(lambda value: json.dumps(value).encode()),
                )
            ),
        )
    elif kind in ("retype", "sequence"):
        lines[index] = retyped(draw, kind, line)
    elif kind == "dup":
        lines.insert(index, line)
    elif kind == "swap" and len(lines) > 1:
        other = draw(st.integers(0, len(lines) - 1))
        lines[index], lines[other] = lines[other], lines[index]
    elif kind == "nul":
        lines[index] = line.replace(b",", b",\x00", 1)
    elif kind == "utf8":
        lines[index] = line.replace(b'"', b'"\xc3\x28', 1)
    elif kind == "huge":
        lines.insert(index, b'{"pad":"' + b"x" * draw(st.sampled_from([70_000, 300_000])) + b'"}')
    elif kind == "nonewline":
        return lines[:index] + [b"".join(lines[index:]).replace(b"\n", b"")]
    return lines


def retyped(draw: st.DrawFn, kind: str, line: bytes) -> bytes:
    try:
        record = json.loads(line)
    except ValueError:
        return line
    if not isinstance(record, dict):
        return line
    if kind == "sequence":
        record["sequence"] = draw(st.one_of(st.integers(-2, 40), st.text(max_size=3)))
    else:
        record[draw(st.sampled_from(ENVELOPE_KEYS))] = draw(json_values)
    return json.dumps(record).encode()


@pytest.mark.fuzz
@fuzz_settings(0.2)
@given(draw=st.data())
def test_a_fuzzed_corrupt_transcript_is_reported_by_line_or_resumes_into_a_valid_view(
    recorded, draw
):
    workspace, session_id, data = recorded
    damaged_data = draw.draw(damaged(data), label="damaged transcript")
    check_replay(session_id, damaged_data)
    event(check_resume(workspace, session_id, damaged_data))


noise_lines = st.lists(st.binary(max_size=120), min_size=1, max_size=6).map(b"\n".join)


@pytest.mark.fuzz
@fuzz_settings(0.2)
@given(noise=noise_lines, keep_prefix=st.booleans(), end_with_newline=st.booleans())
def test_random_bytes_in_or_in_place_of_a_transcript_are_reported_or_resumed_validly(
    recorded, noise, keep_prefix, end_with_newline
):
    workspace, session_id, data = recorded
    hostile = (data if keep_prefix else b"") + noise + (b"\n" if end_with_newline else b"")
    check_replay(session_id, hostile)
    event(check_resume(workspace, session_id, hostile))


def test_a_record_nested_too_deep_for_the_parser_is_corrupt_not_a_crash(recorded):
    workspace, session_id, data = recorded
    deep = b"[" * 100_000 + b"]" * 100_000 + b"\n"
    for damaged_data in (deep + data, data + deep + data.split(b"\n")[0] + b"\n"):
        check_replay(session_id, damaged_data)
        assert check_resume(workspace, session_id, damaged_data) == "TranscriptCorrupt"
