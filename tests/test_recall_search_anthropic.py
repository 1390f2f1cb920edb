"""A folded read found again: the real SDK against the strict fake Messages API.

A scripted model reads one file per turn until the digest has folded the oldest reads
into its "older interactions" line. Asked about a fact only the third file held, it does
what the fold line tells it: `recall` with a search, then `recall` with the pointer the
search answered, and it quotes the fact. Everything it reads comes through the API.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from session_support import drain, make_session

from agent_cli.compaction.markers import is_digest_message
from agent_cli.provider.anthropic_provider import AnthropicProvider

API_KEY = "sk-ant-recall-search-FAKE"
FACT = "The deploy token rotates every Tuesday at 04:00 UTC."
QUESTION = "When does the deploy token rotate?"
FILES = 24


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    for number in range(FILES):
        lines = [f"# module {number}", *(f"value_{number}_{k} = {k}" for k in range(60))]
        if number == 3:
            lines.insert(30, f"# {FACT}")
        (root / f"m{number:02d}.py").write_text("\n".join(lines) + "\n")
    return root


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    last = body["messages"][-1]["content"]
    return [b for b in last if isinstance(b, dict) and b.get("type") == "tool_result"]


def result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content or [])


def scripted_model(body: dict[str, Any]) -> Reply:
    """Reads the file a turn names; asked the question, searches, then recalls."""
    results = tool_results(body)
    if results:
        block = results[0]
        text = result_text(block)
        if block["tool_use_id"].startswith("search_"):
            pointer = re.findall(r"^- (transcript:\S+) ", text, re.MULTILINE)[0]
            call = tool_use_block("recall_1", "recall", {"pointer": pointer})
            return Reply([call], "tool_use")
        if block["tool_use_id"].startswith("recall_"):
            found = re.search(r"# (The deploy token [^\n]*)", text)
            return Reply([text_block(f"Answer: {found.group(1) if found else 'not found'}")])
        return Reply([text_block("Read it.")])
    request = json.dumps(body["messages"][-1]["content"])
    if QUESTION in request:
        call = tool_use_block("search_1", "recall", {"search": "deploy token rotates"})
        return Reply([call], "tool_use")
    name = re.findall(r"read (m\d\d\.py)", request)[-1]
    call = tool_use_block(f"toolu_{len(body['messages'])}", "read_file", {"path": name})
    return Reply([call], "tool_use")


def test_a_fact_inside_the_folded_range_is_found_by_search_and_read_by_pointer(
    workspace: Path,
) -> None:
    with start_fake_server(api_key=API_KEY) as server:
        server.responder = scripted_model
        provider = AnthropicProvider(API_KEY, "claude-test", base_url=server.base_url)
        session = make_session(workspace, provider, soft=6_000, hard=60_000, keep_recent=4)
        session.compactor.use_policy(dataclasses.replace(session.policy, digest_tokens=220))
        try:
            for number in range(FILES):
                events = drain(session.run_turn(f"Turn {number}: read m{number:02d}.py"))
                assert events[-1].outcome == "ok", events[-3:]
            digest = next(m["content"] for m in session.view if is_digest_message(m))
            fold = next(line for line in digest.splitlines() if "older interaction" in line)
            assert "recall search" in fold  # the fold line says how to find what it holds
            assert "path=m03.py" not in digest  # the read is in the fold: no line names it
            assert not any(FACT in json.dumps(m) for m in session.view)

            events = drain(session.run_turn(QUESTION))
            assert events[-1].outcome == "ok"
            final = session.view[-1]
        finally:
            session.close()
        assert all(request.rejection is None for request in server.requests)
        searched = result_text(tool_results(server.accepted[-2])[0])
        assert re.search(r"^- transcript:\S+ \(user\): .*deploy token rotates", searched, re.M)
        assert FACT in result_text(tool_results(server.accepted[-1])[0])  # read by pointer
        assert final["role"] == "assistant" and f"Answer: {FACT}" in json.dumps(final)
