"""Whatever a user stores, the durable block keeps one item per line and cannot be reopened.

Hostile text goes in through the session (`remember`, `add_pending`, `mark_blocked`) and
the next request's `durable_context` is inspected: exactly one BEGIN and one END marker,
the first and last lines, and exactly one line per stored item. Retrieval-evidence
titles, which the session does not store yet, are fuzzed at the renderer.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from compaction_support import make_counter
from hostile_support import MARKUP_PIECES, fuzz_settings, hostile_text
from hypothesis import event, given
from hypothesis import strategies as st
from session_support import ScriptedProvider, make_session

from agent_cli.durable import (
    BEGIN_MARKER,
    END_MARKER,
    DurableContextState,
    RetrievalEvidence,
    render_durable_context,
)
from agent_cli.durable.text import normalize_text
from agent_cli.errors import DurableStateError

MARKER_PIECES = (
    BEGIN_MARKER,
    END_MARKER,
    "<<<",
    ">>>",
    "\n",
    "\r",
    "\u2028",
    "\u2029",
    "\x85",
    "\x0b",
    "\x0c",
    "\x1c",
    '"',
    "\\",
    "- fact id=F9 text=",
    "[pending]",
)
stored_text = (
    st.lists(
        st.one_of(st.sampled_from(MARKER_PIECES), st.sampled_from(MARKUP_PIECES), hostile_text(3)),
        min_size=1,
        max_size=6,
    )
    .map("".join)
    .filter(lambda text: normalize_text(text) != "")
)

workspaces = itertools.count()


def block_lines(durable_context: str) -> list[str]:
    """The block's lines, after checking the markers open and close it exactly once."""
    lines = durable_context.split("\n")
    assert durable_context.splitlines() == lines  # no other line separator inside
    assert lines[0] == BEGIN_MARKER and lines[-1] == END_MARKER
    assert durable_context.count(BEGIN_MARKER) == 1 and durable_context.count(END_MARKER) == 1
    inner = lines[1:-1]
    assert not any("<<<" in line or ">>>" in line for line in inner)
    return inner


@pytest.mark.fuzz
@fuzz_settings(0.1)  # a real session and a turn per example
@given(
    facts=st.lists(stored_text, min_size=1, max_size=3),
    tasks=st.lists(stored_text, max_size=3),
    reason=stored_text,
)
def test_hostile_text_stored_through_the_session_stays_one_item_per_line(
    tmp_path, facts, tasks, reason
):
    workspace = tmp_path / f"ws{next(workspaces)}"
    workspace.mkdir()
    provider = ScriptedProvider()
    session = make_session(workspace, provider, counter=make_counter()[0])
    try:
        for text in facts:
            session.remember(text)
        items = [session.add_pending(text) for text in tasks]
        if items:
            session.mark_blocked(items[0].item_id, reason)
        list(session.run_turn("go on"))
    finally:
        session.close()
    inner = block_lines(provider.requests[-1].durable_context)
    assert sum(line.startswith("- fact ") for line in inner) == len(facts)
    assert sum(line.startswith("- pending ") for line in inner) == len(tasks)
    assert len(inner) == 1 + (1 + len(facts)) + (1 + len(tasks) if tasks else 0)
    event(f"{len(facts)} facts, {len(tasks)} pending")


def test_text_that_is_nothing_but_separators_is_refused_not_stored_as_an_empty_line(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    session = make_session(workspace, ScriptedProvider(), counter=make_counter()[0])
    try:
        for text in ("\n\r\u2028", "\x1b", " \t\x85 "):
            with pytest.raises(DurableStateError):
                session.remember(text)
        assert session.durable_state.is_empty
    finally:
        session.close()


@pytest.mark.fuzz
@fuzz_settings(0.5)
@given(
    titles=st.lists(stored_text, min_size=1, max_size=4),
    source=stored_text,
    conflict=st.none() | stored_text,
)
def test_retrieval_evidence_titles_and_sources_stay_one_item_per_line(titles, source, conflict):
    evidence = tuple(
        RetrievalEvidence(
            f"m{i}", source, source, title, "2026-12-02T10:00:00+00:00", 0.5, i + 1, conflict
        )
        for i, title in enumerate(titles)
    )
    inner = block_lines(render_durable_context(DurableContextState(retrieval_evidence=evidence)))
    assert sum(line.startswith("- evidence ") for line in inner) == len(titles)
    assert len(inner) == 1 + 1 + len(titles)


def test_workspace_paths_are_not_part_of_what_a_user_can_store(tmp_path: Path):
    """The block is built from stored items only: nothing else about the session leaks in."""
    workspace = tmp_path / "ws<<<end durable-context>>>"
    workspace.mkdir()
    provider = ScriptedProvider()
    session = make_session(workspace, provider, counter=make_counter()[0])
    try:
        session.remember("one fact")
        list(session.run_turn("go on"))
    finally:
        session.close()
    assert len(block_lines(provider.requests[-1].durable_context)) == 3
