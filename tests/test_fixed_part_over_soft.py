"""A fixed part that fills the soft threshold pays for no futile summary (27th outside
attack, t19).

200 MCP tool schemas weighed about 88,000 tokens under the default soft threshold of
80,000: no run could get under it, so every run the loop guard let through ran every
layer and asked for a summary of the little that came since the last one (6 summary
requests in 30, each saving 91-98 tokens). After a compaction that made no room, a run now
tries the layers that cost no request alone and asks for a summary only when it would
replace a worthwhile part (`session.budget.worthwhile_summary_tokens`). The same shape is
checked with the fixed part made of tool schemas, of a large AGENTS.md and of many durable
facts. The session goes through the real SDK to the strict fake; summary requests are
counted as it sees them.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from session_support import drain, make_session, workspace_with
from test_compaction_e2e_anthropic import is_summary_request
from test_hard_limit_uncounted import billed_tokens

from agent_cli.events import CompactionFired, CompactionSkipped, TurnEnded
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.repl.compact_lines import format_skipped
from agent_cli.tools import Toolbox

API_KEY = "sk-ant-test-FIXEDPART"
SOFT, HARD = 8_000, 16_000
TURNS = 12
DATA = "".join(f"row {i} some data here, with a few more words\n" for i in range(130))
SCHEMAS = [
    {
        "name": f"mcp__srv__t{i:03d}",
        "description": f"tool {i}",
        "input_schema": {
            "type": "object",
            "properties": {"q": {"type": "string", "enum": [f"value {i} {k}" for k in range(9)]}},
        },
    }
    for i in range(100)
]
AGENTS_MD = "# Project rules\n\n" + "".join(
    f"{i}. Keep module {i} small, typed and documented; run its tests before a commit.\n"
    for i in range(420)
)
CALL_IDS = itertools.count()
FACTS = [f"Service {i} listens on port {8000 + i} and logs to /var/log/svc{i}." for i in range(80)]


class ToolboxWithManySchemas(Toolbox):
    """The real toolbox offering, besides its own tools, schemas as MCP servers add them."""

    def schemas(self) -> list[dict[str, Any]]:
        return [*super().schemas(), *SCHEMAS]


def reader(body: dict[str, Any]) -> Reply:
    """Every turn reads data.txt and answers in a line; summaries get a short summary."""
    if is_summary_request(body):
        return Reply([text_block("Summary of earlier turns.")])
    last = body["messages"][-1]["content"]
    if isinstance(last, list) and any(block.get("type") == "tool_result" for block in last):
        return Reply([text_block("read it " + "word " * 50)])
    call = tool_use_block(f"toolu_{next(CALL_IDS)}", "read_file", {"path": "data.txt"})
    return Reply([call], "tool_use")


def open_with_fixed_part(kind: str, workspace: Path, provider: AnthropicProvider) -> Any:
    """A session whose fixed part (about 9,000 billed tokens, over `SOFT`) is made of
    `kind`: tool schemas, project instructions or durable facts."""
    if kind == "tools":
        return make_session(
            workspace,
            provider,
            soft=SOFT,
            hard=HARD,
            toolbox_factory=lambda ws, artifacts, sid, ask, yes, recall: ToolboxWithManySchemas(
                ws, artifacts, sid, ask_permission=ask, auto_approve=yes, recall=recall
            ),
        )
    session = make_session(workspace, provider, soft=SOFT, hard=HARD)
    if kind == "facts":
        for fact in FACTS:
            session.remember(fact)
    return session


def run_turns(session: Any, server: Any) -> list[tuple[list[Any], int]]:
    """Each turn's events and the summary requests the fake saw during it."""
    turns = []
    for turn in range(TURNS):
        before = sum(map(is_summary_request, server.accepted))
        events = drain(session.run_turn(f"turn {turn}"))
        turns.append((events, sum(map(is_summary_request, server.accepted)) - before))
    return turns


@pytest.mark.parametrize("kind", ["tools", "instructions", "facts"])
def test_a_fixed_part_over_the_soft_threshold_pays_for_no_summary_that_frees_little(
    tmp_path: Path, kind: str
) -> None:
    files = {"data.txt": DATA, **({"AGENTS.md": AGENTS_MD} if kind == "instructions" else {})}
    workspace = workspace_with(tmp_path, files)
    with start_fake_server(api_key=API_KEY, responder=reader) as server:
        provider = AnthropicProvider(API_KEY, base_url=server.base_url)
        session = open_with_fixed_part(kind, workspace, provider)
        turns = run_turns(session, server)
        session.close()
        sent = [billed_tokens(b) for b in server.accepted if not is_summary_request(b)]

    events = [e for turn_events, _ in turns for e in turn_events]
    assert all(e.outcome == "ok" for e in events if isinstance(e, TurnEnded))
    assert min(sent) > SOFT * 0.9 and max(sent) < HARD, sent  # the fixed part fills soft
    held = [i for i, (turn_events, _) in enumerate(turns) if any(map(is_over_soft, turn_events))]
    assert held, events  # a firing could not get under the soft threshold
    later = turns[held[0] + 1 :]
    assert sum(asked for _, asked in later) == 0  # before: 10 or 11 in the later turns
    fired = [e for turn_events, _ in later for e in turn_events if isinstance(e, CompactionFired)]
    assert fired and {line.layer for e in fired for line in e.layers} <= {"L1", "L2"}, fired
    # a hold after the free layers says a summary was not worth it, not that nothing could go
    reasons = {e.held for turn_events, _ in later for e in turn_events if is_over_soft(e)}
    assert "nothing_freed" not in reasons, reasons


def is_over_soft(event: Any) -> bool:
    """The loop guard's notice that a compaction could not get under the soft threshold."""
    held = ("over_soft", "nothing_freed", "summary_not_worth_it")
    return isinstance(event, CompactionSkipped) and event.held in held


def test_a_summary_still_comes_when_the_conversation_grows_past_the_room(tmp_path: Path) -> None:
    """Distinct files each turn: nothing for L2 to drop, so summaries are still asked for,
    as the conversation's room above the fixed part fills, and each frees a worthwhile
    part (a quarter of the soft threshold's room or more), not a few dozen tokens."""
    files = {f"f{k:02d}.txt": DATA.replace("row", f"file {k} row") for k in range(TURNS)}
    workspace = workspace_with(tmp_path, files)

    def distinct(body: dict[str, Any]) -> Reply:
        asked = re.search(r"turn (\d+)", json.dumps(body["messages"][-1]["content"]))
        if is_summary_request(body) or asked is None:
            return reader(body)
        name = f"f{int(asked.group(1)):02d}.txt"
        call = tool_use_block(f"toolu_{next(CALL_IDS)}", "read_file", {"path": name})
        return Reply([call], "tool_use")

    with start_fake_server(api_key=API_KEY, responder=distinct) as server:
        provider = AnthropicProvider(API_KEY, base_url=server.base_url)
        session = open_with_fixed_part("tools", workspace, provider)
        events = [e for turn in range(TURNS) for e in drain(session.run_turn(f"turn {turn}"))]
        session.close()
        sent = [billed_tokens(b) for b in server.accepted if not is_summary_request(b)]

    assert max(sent) < HARD, sent
    summaries = [line for e in events if isinstance(e, CompactionFired) for line in e.layers]
    summaries = [line for line in summaries if line.layer == "L4"]
    assert summaries, events
    assert all(line.tokens_before - line.tokens_after >= SOFT // 8 for line in summaries), [
        line.tokens_before - line.tokens_after for line in summaries
    ]


def test_a_resumed_session_still_pays_for_no_summary_that_frees_little(tmp_path: Path) -> None:
    """The hold is recorded without an aim after a compaction that made no room; a resume
    holds where the session held and keeps asking for a summary only when it is worth it."""
    workspace = workspace_with(tmp_path, {"data.txt": DATA})
    with start_fake_server(api_key=API_KEY, responder=reader) as server:
        provider = AnthropicProvider(API_KEY, base_url=server.base_url)
        session = open_with_fixed_part("facts", workspace, provider)
        first = run_turns(session, server)
        session.close()
        assert any(map(is_over_soft, (e for events, _ in first for e in events)))
        resumed = make_session(workspace, provider, soft=SOFT, hard=HARD, resume=session.session_id)
        later = run_turns(resumed, server)
        resumed.close()

    assert sum(asked for _, asked in later) == 0
    assert any(isinstance(e, CompactionFired) for events, _ in later for e in events)


def test_a_held_summary_is_said_as_not_worth_its_request_not_as_nothing_to_remove(
    tmp_path: Path,
) -> None:
    """Long typed turns (nothing the free layers can cut) beside a large AGENTS.md: once a
    compaction made no room, a run whose summary would replace too little holds with its
    own reason (it said "no layer found anything to remove" before, while `/compact` then
    freed thousands: 28th outside attack), and the REPL words it so."""
    sentence = "Keep every module small, typed and documented; run its tests first. "
    workspace = workspace_with(tmp_path, {"AGENTS.md": "# Rules\n" + sentence * 290})
    typed = ("plain words typed by the user, nothing a tool returned " * 55)[:3_000]

    def answer(body: dict[str, Any]) -> Reply:
        if is_summary_request(body):
            return Reply([text_block("Summary: " + "earlier turn " * 40)])
        return Reply([text_block("answer " + "word " * 120)])

    with start_fake_server(api_key=API_KEY, responder=answer) as server:
        provider = AnthropicProvider(API_KEY, base_url=server.base_url)
        session = make_session(workspace, provider, soft=10_000, hard=16_000)
        events = [e for n in range(30) for e in drain(session.run_turn(f"turn {n}: {typed}"))]
        session.close()

    reasons = [e.held for e in events if isinstance(e, CompactionSkipped)]
    assert "summary_not_worth_it" in reasons, reasons
    assert "nothing_freed" not in reasons, reasons
    held = next(e for e in events if getattr(e, "held", None) == "summary_not_worth_it")
    line = format_skipped(held)
    assert "too little to be worth its request" in line and "/compact" in line, line
    assert "no layer found anything" not in line
