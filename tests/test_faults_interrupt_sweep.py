"""Ctrl-C thrown into a turn at each of its events, as the REPL does when the user presses
it while an event is being shown: a compaction line, streamed text, an answer with a tool
call, a tool starting or finishing, the final answer.

Wherever it lands the interrupt never escapes the session, the turn ends "cancelled", a
call left without results is answered, the history stays sound and the next turn works.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import text_block
from faults_support import assert_history_is_valid, drive_with_interrupt, turn_end
from session_support import ScriptedProvider, drain, make_session, tool_use, workspace_with

from agent_cli.compaction import CompactionPolicy
from agent_cli.events import ModelResponse, TextDelta, TurnEnded, Usage


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    return workspace_with(tmp_path, {"notes.txt": "the build uses make\n"})


# --- at any event: Ctrl-C while the REPL shows it -----------------------------------------


def streamed(blocks: list[dict[str, Any]], stop: str):
    def step(request):
        for block in blocks:
            if block["type"] == "text":
                yield TextDelta(block["text"][:5])
                yield TextDelta(block["text"][5:])
        yield ModelResponse({"role": "assistant", "content": blocks}, stop, Usage(0, 0))

    return step


def start_session_due_for_compaction(workspace: Path) -> Any:
    """A session with some history whose next request is over the soft threshold."""
    # a long summary leaves the view above its aim, so the guard holds (a skipped event)
    provider = ScriptedProvider(
        summarizer=lambda messages: "Earlier: setup talk. " + "detail " * 250
    )
    session = make_session(workspace, provider, keep_recent=2)
    for index in range(3):
        drain(session.run_turn(f"setup {index} " + "words " * 300))
    session.compactor.use_policy(
        CompactionPolicy(
            soft_threshold=session.gauge().tokens,
            hard_limit=60_000,
            keep_recent_messages=2,
            summary_keep_recent=2,
        )
    )
    provider.steps = [
        streamed([text_block("Let me look."), tool_use("t1", "list_dir", path=".")], "tool_use"),
        streamed([text_block("There is one file.")], "end_turn"),
    ]
    return session


def test_the_reference_turn_passes_through_every_stage(workspace: Path) -> None:
    session = start_session_due_for_compaction(workspace)
    kinds = [type(e).__name__ for e in drain(session.run_turn("what is here?"))]
    assert kinds == [
        "CompactionFired",
        "CompactionSkipped",  # the summary left the view above its aim: the guard holds
        "AssistantText",
        "AssistantText",
        "AssistantDone",
        "ToolStarted",
        "ToolFinished",
        "AssistantText",
        "AssistantText",
        "AssistantDone",
        "TurnEnded",
    ]


@pytest.mark.parametrize("at_index", range(10))
def test_ctrl_c_at_any_event_of_a_turn_cancels_it_and_keeps_the_history_sound(
    workspace: Path, at_index: int
) -> None:
    session = start_session_due_for_compaction(workspace)

    run = drive_with_interrupt(session.run_turn("what is here?"), at_index)

    shown = type(run.interrupted_at).__name__
    assert run.interrupted_at is not None and not isinstance(run.interrupted_at, TurnEnded)
    assert not run.escaped, f"Ctrl-C while showing {shown} escaped the session"
    assert turn_end(run.events).outcome == "cancelled", shown
    assert_history_is_valid(session)
    assert turn_end(drain(session.run_turn("carry on"))).outcome == "ok", shown
    assert_history_is_valid(session)
