"""Whole transcript records with hostile payloads: resume refuses them, naming the line.

Each record has a perfect envelope (schema, session, sequence, event id, zoned time)
but its payload is not what the API would take: a message that is a string, content of
the wrong type, a tool_use without an id, a compaction view of numbers, a view nested
too deep to send. `open_session(resume=...)` must raise `SessionUnresumable` with the
record's line and leave the file untouched, or (for fuzzed payloads) resume into a view
that passes the protocol check and the wire builder. The REPL says why in one line.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from compaction_support import make_counter
from hostile_support import fuzz_settings
from hypothesis import event, given
from hypothesis import strategies as st
from session_support import ScriptedProvider, make_session
from test_hostile_transcripts import (
    check_resume,
    json_values,
    line_count,
    record_session,
    transcript_path,
)

from agent_cli.errors import SessionUnresumable
from agent_cli.repl.main import main


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[Path, str, bytes]:
    return record_session(tmp_path)


def append_record(data: bytes, session_id: str, kind: str, payload: Any) -> bytes:
    sequence = line_count(data) + 1
    record = {
        "schema_version": 1,
        "session_id": session_id,
        "sequence": sequence,
        "event_id": f"transcript:{session_id}:{sequence}",
        "recorded_at": "2026-12-02T09:30:00+00:00",
        "kind": kind,
        "payload": payload,
    }
    return data + json.dumps(record).encode() + b"\n"


HOSTILE_PAYLOADS = {
    "message that is a string": ("message", {"message": "hello"}),
    "message that is a list": ("message", {"message": [{"role": "user"}]}),
    "message without a message": ("message", {"text": "hi"}),
    "content of the wrong type": ("message", {"message": {"role": "user", "content": 5}}),
    "content that is a dict": ("message", {"message": {"role": "user", "content": {"a": 1}}}),
    "a role the API does not know": ("message", {"message": {"role": "system", "content": "x"}}),
    "a block that is a string": ("message", {"message": {"role": "user", "content": ["x"]}}),
    "a block type that is a list": (
        "message",
        {"message": {"role": "user", "content": [{"type": ["text"]}]}},
    ),
    "a text block without text": (
        "message",
        {"message": {"role": "user", "content": [{"type": "text"}]}},
    ),
    "a tool_use without an id": (
        "message",
        {
            "message": {
                "role": "assistant",
                "content": [{"type": "tool_use", "name": "bash", "input": {}}],
            }
        },
    ),
    "a tool_use whose input is a list": (
        "message",
        {
            "message": {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t9", "name": "bash", "input": []}],
            }
        },
    ),
    "a result for no call": (
        "message",
        {
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "nobody", "content": "x"}],
            }
        },
    ),
    "a compaction view of numbers": ("compaction", {"view": [1, 2, 3]}),
    "a compaction view that is a string": ("compaction", {"view": "everything"}),
    "a compaction without a view": ("compaction", {"layers": ["x"]}),
    "a compaction view starting with the assistant": (
        "compaction",
        {"view": [{"role": "assistant", "content": "hi"}]},
    ),
    "a compaction view with a dangling result": (
        "compaction",
        {"view": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}]}]},
    ),
}


@pytest.mark.parametrize("kind, payload", HOSTILE_PAYLOADS.values(), ids=list(HOSTILE_PAYLOADS))
def test_a_whole_record_with_a_hostile_payload_is_refused_with_its_line(recorded, kind, payload):
    workspace, session_id, data = recorded
    hostile = append_record(data, session_id, kind, payload)
    transcript_path(session_id).write_bytes(hostile)
    with pytest.raises(SessionUnresumable) as caught:
        make_session(workspace, ScriptedProvider(), resume=session_id, counter=make_counter()[0])
    assert caught.value.session_id == session_id
    assert caught.value.line_number == line_count(hostile)
    assert caught.value.reason
    assert transcript_path(session_id).read_bytes() == hostile  # nothing was appended


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def test_a_tool_input_nested_deeper_than_a_request_can_carry_is_refused(recorded):
    workspace, session_id, data = recorded
    use = {"type": "tool_use", "id": "t9", "name": "bash", "input": nested(900)}
    answer = {"type": "tool_result", "tool_use_id": "t9", "content": "ok"}
    for role, block in (("assistant", use), ("user", answer)):
        data = append_record(
            data, session_id, "message", {"message": {"role": role, "content": [block]}}
        )
    transcript_path(session_id).write_bytes(data)
    with pytest.raises(SessionUnresumable) as caught:
        make_session(workspace, ScriptedProvider(), resume=session_id, counter=make_counter()[0])
    assert caught.value.reason == "wire:too_deeply_nested"


@pytest.mark.parametrize(
    "payload",
    [
        {"view": [], "layers": 5, "tokens_before": "many", "tokens_after": None},
        {"view": [], "layers": [None, 3], "tokens_before": [1], "forced": "yes"},
    ],
)
def test_garbage_figures_in_a_compaction_record_do_not_stop_a_resume(recorded, payload):
    """Figures only feed `stats`; the view (here empty) is what must be sound."""
    workspace, session_id, data = recorded
    transcript_path(session_id).write_bytes(append_record(data, session_id, "compaction", payload))
    session = make_session(
        workspace, ScriptedProvider(), resume=session_id, counter=make_counter()[0]
    )
    try:
        assert session.view == []
        assert session.stats().compactions
    finally:
        session.close()


messages = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["user", "assistant", "system", ""]) | json_values,
        "content": st.one_of(
            st.text(max_size=10),
            json_values,
            st.lists(
                st.fixed_dictionaries(
                    {
                        "type": st.sampled_from(
                            ["text", "tool_use", "tool_result", "image", "thinking"]
                        )
                        | json_values
                    },
                    optional={
                        "text": json_values | st.text(max_size=5),
                        "id": st.sampled_from(["toolu_1", "t2", ""]),
                        "tool_use_id": st.sampled_from(["toolu_1", "t2", ""]),
                        "name": st.text(max_size=5),
                        "input": json_values,
                        "content": json_values,
                    },
                ),
                max_size=3,
            ),
        ),
    }
)


hostile_records = st.one_of(
    st.tuples(st.just("message"), st.fixed_dictionaries({"message": messages | json_values})),
    st.tuples(
        st.just("compaction"),
        st.fixed_dictionaries({"view": st.lists(messages, max_size=3) | json_values}),
    ),
)


@pytest.mark.fuzz
@fuzz_settings(0.2)
@given(records=st.lists(hostile_records, min_size=1, max_size=3))
def test_fuzzed_whole_records_either_resume_into_a_valid_view_or_are_refused(recorded, records):
    workspace, session_id, data = recorded
    hostile = data
    for kind, payload in records:
        hostile = append_record(hostile, session_id, kind, payload)
    event(check_resume(workspace, session_id, hostile))


# --- the REPL in front of it ----------------------------------------------------------------


def test_the_repl_refuses_to_resume_a_hostile_transcript_with_one_clear_line(recorded, tmp_path):
    workspace, session_id, data = recorded
    hostile = append_record(
        data, session_id, "message", {"message": {"role": "user", "content": 5}}
    )
    transcript_path(session_id).write_bytes(hostile)
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(
        ["--workspace", str(workspace), "--provider", "offline", "--resume", session_id],
        stdin=io.StringIO(""),
        stdout=stdout,
        stderr=stderr,
    )
    shown = stdout.getvalue() + stderr.getvalue()
    assert code == 1
    assert f"line {line_count(hostile)}" in shown and session_id in shown
    assert "Traceback" not in shown
