"""A durable item whose source record was changed after it was made is shown as changed.

Found by an outside attack: `/remember "the size is ten"`, then the record it points at
edited to "the size is 99!": the next session rendered the fact `source_status=available`
with the new record's digest, as if its source still said it. An item now keeps the
sha256 its source had when it was made; the real SDK against the strict fake API checks
what reaches the wire, and the session's /facts view and stats say the same.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import Reply, text_block
from rich.console import Console
from session_support import drain, make_session

from agent_cli.durable import DurableContextState, DurableFact, state_from_dict, state_to_dict
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.repl.facts_view import build_facts_view
from agent_cli.store.memory import MemoryStore
from agent_cli.store.paths import resolve_state_paths

API_KEY = "sk-ant-durable-changes-FAKE"
DIGEST = "ab" * 32


def answer(body: dict[str, Any]) -> Reply:
    return Reply([text_block("ok")])


def open_on(workspace: Path, server: Any) -> Any:
    provider = AnthropicProvider(API_KEY, "claude-test", base_url=server.base_url)
    return make_session(workspace, provider)


def item_line(server: Any, item_id: str) -> str:
    """The durable block's line for `item_id` in the last request the API accepted."""
    body = json.dumps(server.accepted[-1], ensure_ascii=False)
    return re.search(rf"- (fact|pending) id={item_id} [^\\]*", body).group(0)


def edit_transcript(path: str, old: str, new: str) -> None:
    text = Path(path).read_text()
    assert old in text
    Path(path).write_text(text.replace(old, new))


def shown_facts(session: Any) -> str:
    console = Console(file=io.StringIO(), width=400, color_system=None)
    console.print(build_facts_view(session.durable_state, session.resolve_sources()))
    return " ".join(console.file.getvalue().split())


def test_a_fact_whose_source_record_was_changed_is_sent_as_changed_not_available(
    workspace: Path, server: Any
) -> None:
    server.responder = answer
    first = open_on(workspace, server)
    fact = first.remember("the size is ten")
    drain(first.run_turn("hello"))
    assert "source_status=available" in item_line(server, "F1")
    assert fact.evidence_sha256 is not None
    first.close()
    edit_transcript(first.transcript_path, "the size is ten", "the size is 99!")
    second = open_on(workspace, server)
    drain(second.run_turn("next"))
    line = item_line(server, "F1")
    assert "source_status=changed" in line and "source_status=available" not in line
    assert f"confirmed_sha256={fact.evidence_sha256}" in line
    assert second.stats().source_statuses["changed"] == 1
    assert "changed (its source no longer says what it said when this was saved" in (
        shown_facts(second)
    )
    second.close()


def test_a_pending_item_moved_after_its_source_changed_is_checked_against_the_new_record(
    workspace: Path, server: Any
) -> None:
    server.responder = answer
    first = open_on(workspace, server)
    first.add_pending("write the migration")
    first.close()
    edit_transcript(first.transcript_path, "write the migration", "drop the whole table")
    second = open_on(workspace, server)
    drain(second.run_turn("next"))
    assert "source_status=changed" in item_line(server, "T1")
    second.mark_done("T1")  # confirmed again, by a record of its own
    drain(second.run_turn("again"))
    assert "source_status=available" in item_line(server, "T1")
    assert "changed" not in shown_facts(second)
    second.close()


def test_an_item_saved_before_digests_were_kept_loads_and_renders_as_before(
    workspace: Path, server: Any
) -> None:
    """A memory file written before items kept a digest has no `evidence_sha256`: it loads,
    writes back without one, and its item shows the source's own status."""
    server.responder = answer
    first = open_on(workspace, server)
    fact = first.remember("the size is ten")
    first.close()
    store = MemoryStore(resolve_state_paths().memory)
    older = DurableFact(fact.fact_id, fact.content, fact.source_pointer, fact.last_confirmed_at)
    path = store.save(workspace, DurableContextState(facts=(older,)))
    assert "evidence_sha256" not in path.read_text()
    edit_transcript(first.transcript_path, "the size is ten", "the size is 99!")
    second = open_on(workspace, server)
    drain(second.run_turn("next"))
    assert "source_status=available" in item_line(server, "F1")
    second.close()


def test_a_digest_survives_the_codec_and_is_left_out_when_there_is_none() -> None:
    kept = DurableFact("F1", "x", "transcript:s:1", "2026-12-05T00:00:00+00:00", DIGEST)
    older = DurableFact("F2", "y", "transcript:s:2", "2026-12-05T00:00:00+00:00")
    data = state_to_dict(DurableContextState(facts=(kept, older)))
    assert data["facts"][0]["evidence_sha256"] == DIGEST
    assert "evidence_sha256" not in data["facts"][1]
    assert state_from_dict(data) == DurableContextState(facts=(kept, older))


def test_a_fact_another_session_forgets_leaves_this_sessions_next_request(tmp_path: Path):
    """Seventh outside attack (left open until now): two sessions in one workspace share
    the memory file; B's `/forget` and `/remember` were saved, but A went on sending the
    forgotten fact, and not B's, until A changed the memory itself. Each rendering now
    adopts what the file holds when it changed since A last read it."""
    from session_support import ScriptedProvider

    workspace = tmp_path / "ws"
    workspace.mkdir()
    first_provider = ScriptedProvider()
    first = make_session(workspace, first_provider)
    second = make_session(workspace, ScriptedProvider())
    wrong = first.remember("the deploy target is prod-us")
    drain(first.run_turn("deploy?"))
    assert "prod-us" in first_provider.requests[-1].durable_context

    second.forget(wrong.fact_id)
    second.remember("the deploy target is staging-eu")
    drain(first.run_turn("deploy now?"))
    sent = first_provider.requests[-1].durable_context
    first.close()
    second.close()
    assert "staging-eu" in sent and "prod-us" not in sent, sent


def test_an_id_forgotten_in_one_session_is_never_given_to_another_item(tmp_path: Path):
    """An id names one item for good. Before, ids were the highest one left plus one:
    B forgot A's F1 and its next `/remember` was F1 again, so A's user, who had seen
    "F1: prod-us", typed `/forget F1` and deleted B's new fact instead. Now the memory
    file keeps the highest number forgotten, and an id is never issued twice."""
    from session_support import ScriptedProvider

    from agent_cli.errors import DurableItemNotFound

    workspace = tmp_path / "ws"
    workspace.mkdir()
    first = make_session(workspace, ScriptedProvider())
    second = make_session(workspace, ScriptedProvider())
    wrong = first.remember("the deploy target is prod-us")
    task = first.add_pending("ship the release")
    assert (wrong.fact_id, task.item_id) == ("F1", "T1")

    second.forget(wrong.fact_id)
    second.forget(task.item_id)
    right = second.remember("the deploy target is staging-eu")
    again = second.add_pending("ship it after the review")
    assert (right.fact_id, again.item_id) == ("F2", "T2")

    with pytest.raises(DurableItemNotFound):
        first.forget("F1")  # what A's user saw as F1 is gone; B's fact is not touched
    first.close()
    second.close()
    third = make_session(workspace, ScriptedProvider())  # a later session, from the file
    contents = [fact.content for fact in third.durable_state.facts]
    assert contents == ["the deploy target is staging-eu"]
    assert third.remember("the region is eu-west-3").fact_id == "F3"
    third.close()
