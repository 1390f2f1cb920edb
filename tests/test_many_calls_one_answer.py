"""An answer of thousands of small tool calls does not block the session (seventh outside
attack, loss: 3,000 distinct `read_file` calls made one message of 162,576 tokens, and every
later turn was blocked).

The real SDK talks to the strict fake Messages API. The calls that fit in one step run; the
others are not run, the model is told so after the results, and the whole answer is kept
as an artifact, so nothing it said is lost.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from faults_support import drive_with_interrupt, turn_end
from session_support import ScriptedProvider, drain, make_session, workspace_with

from agent_cli.events import ModelResponse, Notice, ToolStarted, TurnEnded, Usage
from agent_cli.provider.anthropic_provider import AnthropicProvider

API_KEY = "sk-ant-test-MANYCALLS"
CALLS = 3_000
ARTIFACT = "artifact:"


def model(body: dict[str, Any]) -> Reply:
    """The first request gets 3,000 reads; results get a short answer; later turns "ok"."""
    last = body["messages"][-1]["content"]
    if isinstance(last, list) and last[0].get("type") == "tool_result":
        return Reply([text_block("Read what ran.")])
    if len(body["messages"]) == 1:
        calls = [
            tool_use_block(f"toolu_{n:04d}", "read_file", {"path": f"missing/file_{n:04d}.txt"})
            for n in range(CALLS)
        ]
        return Reply(calls, stop_reason="tool_use")
    return Reply([text_block("ok")])


def test_an_answer_of_thousands_of_calls_runs_what_fits_and_the_session_goes_on(tmp_path):
    workspace = workspace_with(tmp_path, {})
    with start_fake_server(api_key=API_KEY, responder=model) as server:
        provider = AnthropicProvider(API_KEY, base_url=server.base_url)
        session = make_session(workspace, provider, message_limit=0)
        first = drain(session.run_turn("read every file"))
        second = drain(session.run_turn("and now?"))
        pointer_text = None
        bodies = server.accepted
        results = [b for b in bodies[1]["messages"][-1]["content"] if b["type"] == "tool_result"]
        notes = [b["text"] for b in bodies[1]["messages"][-1]["content"] if b["type"] == "text"]
        if notes:
            start = notes[0].index(ARTIFACT)
            pointer_text = session.expand(notes[0][start:].split()[0].rstrip(".")).excerpt
        session.close()

    ends = [e for e in first + second if isinstance(e, TurnEnded)]
    assert [e.outcome for e in ends] == ["ok", "ok"], ends
    said = [e for e in first if isinstance(e, Notice) and e.code == "calls_not_run"]
    assert said and said[0].fields["asked"] == CALLS
    ran = said[0].fields["ran"]
    assert 0 < ran < CALLS and len(results) == ran
    assert [r["tool_use_id"] for r in results] == [f"toolu_{n:04d}" for n in range(ran)]
    assert notes and f"asked for {CALLS:,} tool calls" in notes[0]
    # the whole answer is one recall away: every call, as the model sent it
    assert pointer_text is not None
    assert all(f"toolu_{n:04d}" in pointer_text for n in (0, ran, CALLS - 1))
    # no later request carries the calls left out (they would block it again)
    assert all(f"toolu_{CALLS - 1:04d}" not in json.dumps(body["messages"]) for body in bodies)


def test_only_calls_are_left_out_and_at_least_one_runs():
    """Texts and thinking stay; the leading calls that fit run (one at least, however
    large); an answer whose calls fit is given back itself, with nothing stored."""
    from agent_cli.session.call_limit import keep_calls_that_fit

    stored: list[str] = []

    def store(text: str) -> str:
        stored.append(text)
        return "artifact:s:whole.json:0"

    calls = [{"type": "tool_use", "id": f"t{n}", "name": "x", "input": {}} for n in range(5)]
    answer = {"role": "assistant", "content": [{"type": "text", "text": "Reading."}, *calls]}
    fits = keep_calls_that_fit(answer, 100, lambda block: 10, store)
    assert fits.message is answer and fits.note is None and not stored
    cut = keep_calls_that_fit(answer, 25, lambda block: 10, store)
    assert [b.get("id") for b in cut.message["content"]] == [None, "t0", "t1"]
    assert (cut.asked, cut.kept) == (5, 2) and json.loads(stored[0]) == answer
    assert "the first 2 fit" in (cut.note or "") and "artifact:s:whole.json:0" in cut.note
    one = keep_calls_that_fit(answer, 5, lambda block: 10, store)
    assert one.kept == 1


def _thousand_reads(stop_reason: str):
    def step(request):
        calls = [
            {
                "type": "tool_use",
                "id": f"toolu_{n:04d}",
                "name": "read_file",
                "input": {"path": f"missing/file_{n:04d}.txt"},
            }
            for n in range(1_000)
        ]
        yield ModelResponse({"role": "assistant", "content": calls}, stop_reason, Usage(0, 0))

    return step


def _note_in_last_results(session) -> str:
    """The text after the results of the last results message of the session's view."""
    results = [m for m in session.view if m["role"] == "user" and isinstance(m["content"], list)]
    texts = [b["text"] for b in results[-1]["content"] if b.get("type") == "text"]
    return "\n".join(texts)


@pytest.mark.parametrize("ends", ["ctrl-c during the calls", "ctrl-c at the notice", "max_tokens"])
def test_the_calls_left_out_are_named_however_the_step_ends(tmp_path, ends):
    """Eighth outside attack: a Ctrl-C while the kept calls ran, or an answer that stopped
    at max_tokens, recorded the kept calls' results without the note: the calls left out
    (and the pointer to the whole answer) vanished from what the model is sent."""
    stop = "max_tokens" if ends == "max_tokens" else "tool_use"
    provider = ScriptedProvider([_thousand_reads(stop)])
    session = make_session(workspace_with(tmp_path, {}), provider, soft=8_000, hard=16_000)
    if ends == "max_tokens":
        drain(session.run_turn("read every file"))
    elif ends == "ctrl-c at the notice":  # before any call started (a review found it)
        run = drive_with_interrupt(session.run_turn("read every file"), 1)
        assert isinstance(run.interrupted_at, Notice) and not run.escaped
        assert turn_end(run.events).outcome == "cancelled"
    else:  # Ctrl-C while the second call's panel is shown
        run = drive_with_interrupt(session.run_turn("read every file"), 4)
        assert isinstance(run.interrupted_at, ToolStarted) and not run.escaped
        assert turn_end(run.events).outcome == "cancelled"
    note = _note_in_last_results(session)
    session.close()
    assert "asked for 1,000 tool calls" in note and ARTIFACT in note, note


def test_two_large_writes_in_one_answer_both_run(tmp_path):
    """Eighth outside attack (a regression of the first version): the step's budget
    counted each write's whole input, though the recorded answer keeps only a preview of
    an input over the per-message limit: of two 30 KB writes only the first ran."""
    bodies = ["".join(f"line {k} of file {name}\n" for k in range(1_500)) for name in "ab"]
    calls = [
        {
            "type": "tool_use",
            "id": f"toolu_w{name}",
            "name": "write_file",
            "input": {"path": f"gen_{name}.py", "content": body},
        }
        for name, body in zip("ab", bodies, strict=True)
    ]
    provider = ScriptedProvider([calls, [{"type": "text", "text": "Both written."}]])
    workspace = workspace_with(tmp_path, {})
    session = make_session(workspace, provider, soft=20_000, hard=60_000, message_limit=0)
    events = drain(session.run_turn("write both files"))
    session.close()
    assert not [e for e in events if isinstance(e, Notice) and e.code == "calls_not_run"]
    assert (workspace / "gen_a.py").read_text() == bodies[0]
    assert (workspace / "gen_b.py").read_text() == bodies[1]
