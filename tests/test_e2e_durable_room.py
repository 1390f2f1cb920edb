"""/remember and /todo refuse an item that would leave the conversation less than a
quarter of the hard limit (every request carries the durable block, and no compaction
shrinks it), saying why in numbers and what to do, and show the words back; a session
opened with such a block already saved says so once, naming /forget and never /compact
or /new (twenty-second outside test: a fact put the fixed part at 3,016 of a 3,000 hard
limit and every later turn, resumed ones too, was blocked). Real processes against the
strict fake API."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, text_block

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-durable-room-FAKE-0123456789"
TIGHT = ["--soft-threshold", "2000", "--hard-limit", "3000"]
FACTS = [f"FACT-{i:04d} the code word for batch {i} is CW{i * 7}" for i in range(12)]


def env_for(home: Path, server: Any) -> dict[str, str]:
    return build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url})


def saved_facts(home: Path) -> list[str]:
    [memory_file] = (home / "memory").glob("*.json")
    return [fact["content"] for fact in json.loads(memory_file.read_text())["state"]["facts"]]


def test_a_fact_that_would_crowd_out_the_conversation_is_refused_and_turns_still_go(
    home: Path, workspace: Path, server: Any
) -> None:
    server.enqueue(Reply([text_block("answered with the facts that fit")]))
    lines = [f"/remember {fact}" for fact in FACTS] + ["/todo finish the report", "hello"]

    run = run_piped(
        ["--yes", *TIGHT], cwd=workspace, env=env_for(home, server), stdin_text="\n".join(lines)
    )

    said = run.stdout + run.stderr
    assert run.returncode == 0, said[-2000:]
    refusal = re.search(
        r"/remember refused, nothing added: with it every request would carry ([\d,]+) tokens "
        r"besides the conversation \(the durable block ([\d,]+) of them\), leaving the "
        r"conversation ([\d,]+) of the hard limit 3,000, under the 750 \(a quarter\) it keeps\. "
        r"/forget F1 or another fact or item no longer needed \(/facts lists them\), or raise "
        r"--hard-limit",
        " ".join(said.split()),
    )
    assert refusal, said[-3000:]
    fixed, left = (int(refusal.group(n).replace(",", "")) for n in (1, 3))
    assert fixed + left == 3_000 and left < 750
    kept = saved_facts(home)
    refused = FACTS[len(kept)]
    assert kept == FACTS[: len(kept)] and kept, (kept, said[-3000:])
    assert f"not added, to retype: /remember {refused}" in said  # the words are not lost
    assert "not added, to retype: /todo finish the report" in said
    transcript = next((home / "transcripts").glob("*.jsonl")).read_text()
    assert refused not in transcript  # refused before anything was recorded
    # the turn after them is sent, not blocked, with every fact that was kept
    assert "answered with the facts that fit" in run.stdout
    assert "blocked" not in said
    assert all(fact in json.dumps(server.accepted[-1]) for fact in kept)


def test_a_resumed_session_whose_facts_fill_the_hard_limit_says_so_once_naming_forget(
    home: Path, workspace: Path, server: Any
) -> None:
    env = env_for(home, server)
    lines = "\n".join(f"/remember {fact}" for fact in FACTS)
    first = run_piped(
        ["--yes", "--soft-threshold", "10000", "--hard-limit", "20000"],
        cwd=workspace,
        env=env,
        stdin_text=lines,
    )
    assert len(saved_facts(home)) == len(FACTS), first.stdout[-1500:]
    session_id = re.search(r"--resume (\S+)", first.stdout).group(1)  # type: ignore[union-attr]

    run = run_piped(
        ["--yes", *TIGHT, "--resume", session_id],
        cwd=workspace,
        env=env,
        stdin_text="first question\nsecond question\n",
    )

    said = " ".join((run.stdout + run.stderr).split())
    assert said.count("Your facts and pending items (the durable block") == 1, said[-2500:]
    assert re.search(
        r"make every request carry [\d,]+ tokens besides the conversation, over the hard "
        r"limit 3,000: every request will be blocked\. Neither compacting nor a new session shrinks them: "
        r"/forget those no longer needed \(/facts lists them; F1 is the oldest\), or raise "
        r"--hard-limit\.",
        said,
    ), said[-2500:]
    assert "/compact <focus>" not in said and "or /new to start" not in said
    assert server.accepted == []  # nothing could be sent, and nothing was


def saved_pending(home: Path) -> list[dict[str, Any]]:
    [memory_file] = (home / "memory").glob("*.json")
    return list(json.loads(memory_file.read_text())["state"]["pending_items"])


def test_a_block_reason_is_held_to_the_room_and_length_a_todo_is_held_to(
    home: Path, workspace: Path, server: Any
) -> None:
    """`/block`'s reason goes into the durable block of every request as a `/todo` text
    does (a reason of 1,900 characters took the fixed part past the hard limit, and every
    later turn was blocked): it is refused the same way, the item stays open, the words
    are shown back, and nothing is recorded."""
    server.enqueue(Reply([text_block("answered with the item still open")]))
    reason = " ".join(f"waiting-on-vendor-{i}-ticket-{i * 31}" for i in range(60))[:1_900]
    too_long = "x" * 2_500
    lines = [
        "/todo finish the report",
        f"/block T1 {reason}",
        f"/block T1 {too_long}",
        "hello",
        "/block T1 waiting for the API key",
    ]

    run = run_piped(
        ["--yes", *TIGHT], cwd=workspace, env=env_for(home, server), stdin_text="\n".join(lines)
    )

    said = " ".join((run.stdout + run.stderr).split())
    assert run.returncode == 0, said[-2000:]
    assert re.search(
        r"/block refused, nothing changed: with it every request would carry [\d,]+ tokens "
        r"besides the conversation",
        said,
    ), said[-3000:]
    assert "not blocked, to retype: /block T1 waiting-on-vendor-0-ticket-0" in said
    assert "/block takes a reason of at most 2,000 characters; this has 2,500" in said
    transcript = next((home / "transcripts").glob("*.jsonl")).read_text()
    assert "waiting-on-vendor-0" not in transcript and too_long not in transcript
    # the turn between went out (not blocked) with the item still open in its block
    assert "answered with the item still open" in run.stdout
    assert "request blocked" not in said
    assert "status=open" in json.dumps(server.accepted[-1])
    # a reason that fits still blocks the item
    assert "T1 is blocked: waiting for the API key" in said
    [item] = saved_pending(home)
    assert item["status"] == "blocked" and item["blocked_reason"] == "waiting for the API key"
