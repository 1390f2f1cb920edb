"""Compaction end to end: the real SDK against the strict fake Messages API on loopback.

A scripted model reads one of 30 files per turn and counts its functions. What is
checked is what reaches the API: every user request and every file read is still named
in the last request after many compactions, `/compact <focus>` sends one summary request
with the focus and the oldest turns, and a 1 MB first message no longer blocks.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from session_support import drain, make_session, transcript_records

from agent_cli.compaction.markers import is_digest_message
from agent_cli.events import CompactionFired, RequestBlocked
from agent_cli.models import ModelPrices, lookup_model
from agent_cli.protocol import validate_tool_protocol
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.provider.summary_reuse import INSTRUCTIONS_HEADER

API_KEY = "sk-ant-compaction-e2e-FAKE"
FILES = 30
SUMMARY_MARK = "SUMMARY-FROM-THE-FAKE-MODEL"


# The issue's figures (the old policy left 5 of the 60 requests in a 20,000-token view)
# put a turn at 3,000 to 4,000 tokens: files of 200 such functions read as about 3,000.
ISSUE_SIZE_FUNCTIONS = 200
PRICED_AS_THE_ISSUE = "claude-sonnet-4-6"


def write_files(root: Path, functions: int) -> Path:
    root.mkdir()
    for number in range(FILES):
        body = "".join(
            f"def f{number:02d}_function_{k}(value):\n    return value * {k} + {number}\n\n"
            for k in range(functions)
        )
        (root / f"f{number:02d}.py").write_text(body)
    return root


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    return write_files(tmp_path / "ws", 40)


def request_text(turn: int) -> str:
    return f"Turn {turn}: read f{turn % FILES:02d}.py and count its functions."


def is_summary_request(body: dict[str, Any]) -> bool:
    """Either shape the summarizer sends: the bounded one (its own system prompt) or the
    one reusing the cached prefix (the instructions as the last user message)."""
    if "handoff summar" in json.dumps(body.get("system", "")).lower():
        return True
    return INSTRUCTIONS_HEADER in json.dumps(body["messages"][-1]["content"])


def scripted_model(body: dict[str, Any]) -> Reply:
    """Summary requests get a summary; a request gets a read; a result gets a count."""
    if is_summary_request(body):
        return Reply([text_block(f"{SUMMARY_MARK}: the user counts functions file by file.")])
    last = body["messages"][-1]["content"]
    if last[0].get("type") == "tool_result":
        return Reply([text_block("It has 40 functions.")])
    name = re.findall(r"read (f\d\d\.py)", json.dumps(last))[-1]
    call_id = f"toolu_{len(body['messages'])}_{name[1:3]}"
    return Reply([tool_use_block(call_id, "read_file", {"path": name})], "tool_use")


def make_provider(server: Any) -> AnthropicProvider:
    return AnthropicProvider(API_KEY, "claude-test", base_url=server.base_url, timeout_seconds=10)


def main_requests(server: Any) -> list[dict[str, Any]]:
    return [body for body in server.accepted if not is_summary_request(body)]


def run_sixty_turns(
    workspace: Path, soft: int, hard: int, model: str = "claude-test"
) -> tuple[Any, int, list[dict[str, Any]]]:
    """The scripted 60 turns on a fresh fake: the session, how often compaction fired, and
    the main (not summary) requests the API accepted."""
    with start_fake_server(api_key=API_KEY) as server:
        server.responder = scripted_model
        provider = AnthropicProvider(API_KEY, model, base_url=server.base_url, timeout_seconds=10)
        session = make_session(workspace, provider, soft=soft, hard=hard, message_limit=0)
        fired = 0
        for turn in range(60):
            events = drain(session.run_turn(request_text(turn)))
            assert events[-1].outcome == "ok", (turn, events[-3:])
            fired += sum(isinstance(e, CompactionFired) for e in events)
        assert all(r.rejection is None for r in server.requests)
        return session, fired, main_requests(server)


def assert_every_request_and_file_is_named(request: dict[str, Any]) -> None:
    last = json.dumps(request["messages"], ensure_ascii=False)
    missing_requests = [t for t in range(60) if request_text(t) not in last]
    missing_files = [n for n in range(FILES) if f"path=f{n:02d}.py" not in last]
    missing_files = [n for n in missing_files if f'"path": "f{n:02d}.py"' not in last]
    assert missing_requests == [] and missing_files == []
    assert re.search(r"\(transcript:[\w.-]+:\d+\)", last)  # lines point at their records


def test_sixty_turns_keep_every_request_and_name_every_file_read(workspace: Path) -> None:
    session, fired, requests = run_sixty_turns(workspace, soft=20_000, hard=60_000)
    assert_every_removed_call_resolves_to_its_record(session)
    assert fired >= 2  # the view outgrew the soft threshold more than once
    assert_every_request_and_file_is_named(requests[-1])


def test_sixty_turns_of_the_issues_size_cost_at_most_0_28_of_the_uncompacted_session(
    tmp_path: Path,
) -> None:
    """Issue 10's cost goal, in dollars as the session prices what the API reported (the
    fake's prompt-cache model), summary requests included: the 60 turns with compaction
    against the same 60 turns without it. On a model whose prices are the issue's rules
    (cache write 1.25x, cache read 0.1x the input price; output 5x). Where reads cost
    0.05x (Sonnet 5.5), the uncompacted session is cheaper and the ratio higher (0.37
    when this was written), as `make bench` shows."""
    files = write_files(tmp_path / "ws", ISSUE_SIZE_FUNCTIONS)
    assert lookup_model(PRICED_AS_THE_ISSUE).prices == ModelPrices(3.0, 15.0, 3.75, 0.30)
    compacted, fired, requests = run_sixty_turns(files, 20_000, 60_000, PRICED_AS_THE_ISSUE)
    uncompacted, never, _ = run_sixty_turns(files, 10**9, 2 * 10**9, PRICED_AS_THE_ISSUE)
    assert fired >= 5 and never == 0
    assert_every_request_and_file_is_named(requests[-1])
    ours, baseline = compacted.gauge().cost_usd, uncompacted.gauge().cost_usd
    assert ours is not None and baseline is not None
    assert ours <= 0.28 * baseline, ours / baseline


def assert_every_removed_call_resolves_to_its_record(session: Any) -> None:
    """Each call the view lost is named in the digest by the pointer of the record that
    holds its result, or lies in the folded range, and that pointer resolves to it."""
    digest = next(m["content"] for m in session.view if is_digest_message(m))
    kept = set(validate_tool_protocol(session.view))
    folded = (
        [int(n) for n in re.findall(r"older interactions?: .*?:(\d+) to .*?:(\d+)", digest)[0]]
        if "older interaction" in digest
        else [0, -1]
    )
    checked = 0
    for record in transcript_records(session):
        blocks = (
            record["payload"].get("message", {}).get("content")
            if record["kind"] == "message"
            else None
        )
        for block in blocks if isinstance(blocks, list) else ():
            if block.get("type") != "tool_result" or block["tool_use_id"] in kept:
                continue
            pointer = record["event_id"]
            assert f"({pointer})" in digest or folded[0] <= record["sequence"] <= folded[1]
            resolved = session.recall.resolve(pointer)
            assert resolved.status.value == "available"
            assert f"[tool_result for {block['tool_use_id']}]" in resolved.excerpt
            checked += 1
    assert checked >= 40


def test_compact_with_a_focus_sends_one_summary_request_and_the_next_request_carries_it(
    workspace: Path,
) -> None:
    with start_fake_server(api_key=API_KEY) as server:
        server.responder = scripted_model
        session = make_session(workspace, make_provider(server), soft=50_000, hard=90_000)
        for turn in range(8):
            assert drain(session.run_turn(request_text(turn)))[-1].outcome == "ok"
        sent_before = len(server.requests)
        events = drain(session.compact_now("the functions of f00.py"))
        [fired] = [e for e in events if isinstance(e, CompactionFired)]
        assert fired.forced and fired.focus == "the functions of f00.py"
        assert fired.layers[0].layer == "L4"
        assert len(server.requests) == sent_before + 1  # exactly one summary request
        summary_request = json.dumps(server.requests[-1].body, ensure_ascii=False)
        assert "the functions of f00.py" in summary_request
        assert request_text(0) in summary_request and request_text(1) in summary_request
        assert SUMMARY_MARK in (session.last_summary() or "")
        assert drain(session.run_turn(request_text(8)))[-1].outcome == "ok"
        following = json.dumps(main_requests(server)[-2]["messages"], ensure_ascii=False)
        assert all(r.rejection is None for r in server.requests)
    assert SUMMARY_MARK in following
    assert request_text(0) in following  # the digest keeps the user's words as well


def run_print_mode(workspace: Path, base_url: str, args: list[str], stdin: Any) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(ANTHROPIC_API_KEY=API_KEY, ANTHROPIC_BASE_URL=base_url)
    command = [sys.executable, "-m", "agent_cli", "--soft-threshold", "20000"]
    command += ["--hard-limit", "60000", *args]
    return subprocess.run(
        command, cwd=workspace, env=env, capture_output=True, timeout=180, stdin=stdin
    )


def test_a_one_megabyte_first_message_from_a_file_does_not_block_the_session(
    workspace: Path, tmp_path: Path
) -> None:
    big = tmp_path / "big-prompt.txt"
    big.write_text("Summarize this log.\n" + "log line with some words\n" * 42_000 + "THE END\n")
    assert big.stat().st_size > 1_000_000
    with start_fake_server(api_key=API_KEY) as server:
        server.responder = lambda body: Reply([text_block("Noted.")])
        with big.open("rb") as stdin:
            first = run_print_mode(workspace, server.base_url, ["-p", "-"], stdin)
        assert first.returncode == 0, first.stderr.decode()
        second = run_print_mode(
            workspace, server.base_url, ["--continue", "-p", "and now?"], subprocess.DEVNULL
        )
        assert second.returncode == 0, second.stderr.decode()
        assert b"blocked" not in first.stderr + second.stderr
        bodies = [json.dumps(body) for body in server.accepted]
        assert all(r.rejection is None for r in server.requests)
    assert len(bodies) == 2 and all(len(body) < 200_000 for body in bodies)
    assert "Summarize this log." in bodies[1] and "THE END" in bodies[1]
    assert "stored whole as artifact:" in bodies[1] and "and now?" in bodies[1]


@pytest.mark.parametrize("huge", ["tool input", "answer text"])
def test_a_huge_answer_of_the_model_does_not_block_the_session(workspace: Path, huge: str) -> None:
    """Seventh attack: one answer with a 675 KB `write_file` input (or a 1.4 MB text)
    blocked the next turns ("one message alone ... start a fresh session"). The call runs
    with its whole input; later requests carry a preview and the artifact's pointer."""
    content = "".join(f"line {n} of the generated file\n" for n in range(3_000))
    if huge == "tool input":
        answer = Reply(
            [tool_use_block("toolu_w", "write_file", {"path": "out.txt", "content": content})],
            "tool_use",
        )
    else:
        answer = Reply([text_block(content)])
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(answer, Reply([text_block("Written.")]), Reply([text_block("ok")]))
        session = make_session(
            workspace, make_provider(server), soft=20_000, hard=60_000, message_limit=0
        )
        first = drain(session.run_turn("write the file"))
        second = drain(session.run_turn("and now?"))
        bodies = [json.dumps(body) for body in server.accepted]
        assert all(r.rejection is None for r in server.requests)
    assert first[-1].outcome == "ok" and second[-1].outcome == "ok", second[-3:]
    assert not any(isinstance(e, RequestBlocked) for e in [*first, *second])
    if huge == "tool input":
        assert (workspace / "out.txt").read_text() == content  # ran with all of it
    pointer = re.search(r"stored whole as (artifact:\S+?)\. Its", bodies[-1])
    assert pointer and len(bodies[-1]) < 100_000
    assert session.read_tool_output(pointer.group(1)) == content  # nothing lost


def test_without_the_per_message_limit_the_same_message_blocks(workspace: Path) -> None:
    """The guard for the test above: this is the failure it prevents."""
    with start_fake_server(api_key=API_KEY) as server:
        server.responder = lambda body: Reply([text_block("Noted.")])
        session = make_session(
            workspace, make_provider(server), soft=20_000, hard=60_000, message_limit=10**9
        )
        events = drain(session.run_turn("log line with some words\n" * 42_000))
    assert any(isinstance(e, RequestBlocked) for e in events)


def fill_memory_past_the_limit(session: Any) -> None:
    from agent_cli.durable import DurableFact, add_fact, issue_id

    def add_many(state: Any) -> Any:
        for number in range(160):
            text = f"fact {number}: component {number} uses port {8000 + number}"
            moment = f"2026-12-06T09:00:{number % 60:02d}+00:00"
            fact = DurableFact(issue_id(state, "F"), text, "transcript:other:1", moment)
            state = add_fact(state, fact)
        return state

    session.durable.memory.update_stamped(session.workspace, add_many)


def test_a_durable_block_alone_over_the_hard_limit_blocks_without_paying_for_a_summary(
    workspace: Path,
) -> None:
    """Found by an outside attack: with /remember facts filling the reserve past the hard
    limit, every turn was blocked, yet each first sent a summary request (itself over the
    limit). No layer can help then: nothing reaches the API, and the blocked line names
    the durable block and /forget."""
    from agent_cli.repl.compact_lines import format_blocked

    with start_fake_server(api_key=API_KEY) as server:
        server.responder = scripted_model
        session = make_session(workspace, make_provider(server), soft=4_000, hard=9_000)
        drain(session.run_turn(request_text(0)))
        # saved as another session (or an older version, before /remember kept room for
        # the conversation) would have: /remember itself now refuses such a block
        fill_memory_past_the_limit(session)
        sent = len(server.requests)
        blocked = []
        for turn in range(1, 4):
            events = drain(session.run_turn(request_text(turn)))
            blocked += [e for e in events if isinstance(e, RequestBlocked)]
            assert events[-1].outcome == "blocked"
        session.close()
    assert len(server.requests) == sent  # not a summary, not a main request
    assert len(blocked) == 3 and blocked[0].durable_tokens > 0
    _, advice = format_blocked(blocked[0])
    assert "durable block" in advice and "/forget" in advice
