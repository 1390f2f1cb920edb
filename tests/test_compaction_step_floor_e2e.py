"""Ten parallel reads at a tight hard limit, end to end (20th outside attack).

The real session and SDK against the strict fake Messages API, at the tester's settings
(soft 2,000 / hard 4,000): one answer reads ten 150 KB files at once. Cut to the
per-result budget, the one message holding the ten results was over the hard limit
alone; the shared pass judged its cap by arithmetic (each result charged its whole cap),
found it under the floor and gave up, so the step and the next two requests were
refused with "compacting cannot help", and only the fourth went out. Now the first
request after the reads is sent, under the limit, every result in it (cut), and the
user's next requests are answered.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from session_support import drain, make_session, transcript_records

from agent_cli.events import RequestBlocked
from agent_cli.protocol import validate_tool_protocol
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.provider.summary_reuse import INSTRUCTIONS_HEADER
from bench.prompt_cache import build_prompt_blocks, count_block_tokens

API_KEY = "sk-ant-step-floor-FAKE"
HARD = 4_000
READS = 10
# the tester's first answer: the offline model's long introduction (about 190 tokens)
INTRODUCTION = "I can read, list, grep, run, write and edit files. " * 14
LATER = ["after the reads, one", "after the reads, two", "after the reads, three"]


def write_big_files(root: Path) -> Path:
    """Ten files of 3,000 lines (about 150 KB each), as the tester's repro made them."""
    root.mkdir()
    for number in range(1, READS + 1):
        rng = random.Random(number)
        lines = (f"def f{j}(): return {rng.randint(0, 10**6)}  # {'x' * 40}" for j in range(3_000))
        (root / f"big{number}.py").write_text("\n".join(lines) + "\n")
    return root


def is_summary_request(body: dict[str, Any]) -> bool:
    """Either shape the summarizer sends (its own system prompt, or the instructions
    after the cached prefix)."""
    if "handoff summar" in json.dumps(body.get("system", "")).lower():
        return True
    return INSTRUCTIONS_HEADER in json.dumps(body["messages"][-1]["content"])


def scripted_model(body: dict[str, Any]) -> Reply:
    """Ten reads when asked for them (said first, as the offline model says them), a short
    answer to their results, the long introduction to the first request and a short answer
    to any other."""
    if is_summary_request(body):
        return Reply([text_block("Summary: the user asked for reads; work goes on.")])
    last = body["messages"][-1]["content"]
    said = json.dumps(last)
    if isinstance(last, list) and last[0].get("type") == "tool_result":
        return Reply([text_block("Read all ten files.")])
    if "read every big file" in said:
        files = [f"big{n}.py" for n in range(1, READS + 1)]
        saying = text_block(
            " ".join(f"Reading `{name}`, then telling you its first line." for name in files)
        )
        calls = [
            tool_use_block(f"toolu_read_{n}", "read_file", {"path": name})
            for n, name in enumerate(files, start=1)
        ]
        return Reply([saying, *calls], "tool_use")
    if "first request" in said:
        return Reply([text_block(INTRODUCTION)])
    return Reply([text_block("Noted: " + re.sub(r"\W+", " ", said)[-40:])])


def api_tokens(body: dict[str, Any]) -> int:
    """What the fake API counts (and reports) for a request: system, tools and messages."""
    return sum(block.tokens for block in build_prompt_blocks(body, count_block_tokens))


def results_in(body: dict[str, Any]) -> list[dict[str, Any]]:
    last = body["messages"][-1]["content"]
    blocks = last if isinstance(last, list) else []
    return [block for block in blocks if block.get("type") == "tool_result"]


def test_ten_parallel_reads_at_a_4000_hard_limit_are_sent_at_once_and_the_session_goes_on(
    tmp_path: Path,
) -> None:
    workspace = write_big_files(tmp_path / "ws")
    with start_fake_server(api_key=API_KEY) as server:
        server.responder = scripted_model
        provider = AnthropicProvider(
            API_KEY, "claude-test", base_url=server.base_url, timeout_seconds=10
        )
        session = make_session(workspace, provider, soft=2_000, hard=HARD, message_limit=0)
        turns = ["first request", "read every big file", *LATER]
        events = [drain(session.run_turn(text)) for text in turns]
        assert all(r.rejection is None for r in server.requests)
        bodies = [body for body in server.accepted if not is_summary_request(body)]

    blocked = [e for turn in events for e in turn if isinstance(e, RequestBlocked)]
    assert blocked == []
    assert [turn[-1].outcome for turn in events] == ["ok"] * len(turns)
    # first, the reads' call, their results, then one per later request: nothing refused
    assert len(bodies) == 3 + len(LATER)
    # The session decides on its calibrated estimate, and a request goes as estimated when
    # no layer can make more room (README). Its digest lines carry pointers whose session id
    # is random, so the API's count of a request at the limit moves by a few tokens from run
    # to run (4,002 once in six): within 1% of the limit, never more.
    counted = [api_tokens(body) for body in bodies]
    assert all(tokens < HARD * 1.01 for tokens in counted), counted
    assert api_tokens(bodies[2]) < HARD  # the step itself, cut to the floor

    step = bodies[2]  # the first request after the reads
    results = results_in(step)
    assert [r["tool_use_id"] for r in results] == [f"toolu_read_{n}" for n in range(1, 11)]
    assert all("cut by context compaction" in r["content"] for r in results)
    validate_tool_protocol(step["messages"])
    for later, body in zip(LATER, bodies[3:], strict=True):
        assert later in json.dumps(body["messages"][-1]["content"])
    answered = [m for m in session.view if m["role"] == "assistant"]
    assert "Noted" in json.dumps(answered[-1]["content"])  # the last request got its answer

    # nothing lost: each result is recorded as the tool returned it, naming the artifact
    # that holds its whole output, which recall reads from its first line to its last
    recorded = {
        block["tool_use_id"]: block["content"]
        for record in transcript_records(session)
        if record["kind"] == "message"
        for block in record["payload"]["message"]["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    }
    assert sorted(recorded) == sorted(r["tool_use_id"] for r in results)
    for number in range(1, READS + 1):
        text = recorded[f"toolu_read_{number}"]
        assert len(text) > max(len(r["content"]) for r in results)  # whole, not the cut
        pointer = re.search(r"artifact:[\w.-]+:[\w.-]+:[0-9a-f]{12,64}", text)
        assert pointer is not None, text[:200]
        whole = session.recall.resolve(pointer.group(0))
        assert whole.status.value == "available"
        size = int(re.search(r"Output was ([\d,]+) bytes", text).group(1).replace(",", ""))
        first = session.recall.answer(pointer.group(0)).text
        end = session.recall.answer(pointer.group(0), offset=size - 2_000).text
        for _ in range(20):  # page on to the end
            more = re.search(r"\[more follows: call recall again with offset=(\d+)\]", end)
            if more is None:
                break
            end = session.recall.answer(pointer.group(0), offset=int(more.group(1))).text
        # the tool's whole output: the file's first 2,000 lines (read_file's window)
        assert "     1\tdef f0()" in first and "  2000\tdef f1999()" in end
