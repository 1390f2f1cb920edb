"""End to end against the strict fake Messages API, in a real terminal (tmux).

The real `agent-cli` runs the real SDK against `fake_anthropic` on 127.0.0.1 (started in
this test process); the fake plays a model that reads files with tools and writes short
summaries, and it rejects any request the real API would reject.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    LAYER_LINE,
    TOTAL_LINE,
    ReplDriver,
    TerminalPool,
    agent_cli_argv,
    build_env,
    count_prompts,
    output_after,
    require_tmux,
    write_demo_workspace,
)
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

from agent_cli.provider.summary_reuse import INSTRUCTIONS_HEADER

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-FAKEKEY-0123456789"
FLAGS = ("--soft-threshold", "2500", "--hard-limit", "60000", "--yes")
SUMMARY_TEXT = "Summary: the user had the assistant read README.md and big.txt."


class FileReadingModel:
    """Answers like a model: read the file the user names, then say what it found."""

    def __init__(self) -> None:
        self._tool_ids = itertools.count(1)

    def __call__(self, body: dict[str, Any]) -> Reply:
        if is_summary_request(body):  # a model asked for a summary writes one, tools or not
            return Reply([text_block(SUMMARY_TEXT)])
        content = body["messages"][-1]["content"]
        if isinstance(content, list) and any(b.get("type") == "tool_result" for b in content):
            return Reply([text_block("Done. The first heading of README.md is **Demo Project**.")])
        text = (
            content
            if isinstance(content, str)
            else " ".join(block.get("text", "") for block in content if block.get("type") == "text")
        )
        path = "big.txt" if "big.txt" in text else "README.md"
        tool_id = f"toolu_e2e_{next(self._tool_ids):04d}"
        return Reply(
            [text_block(f"Reading {path}."), tool_use_block(tool_id, "read_file", {"path": path})],
            "tool_use",
        )


@pytest.fixture()
def server():
    with start_fake_server(api_key=API_KEY, responder=FileReadingModel()) as fake:
        yield fake


@pytest.fixture()
def repl(tmp_path: Path, server) -> ReplDriver:
    pool = TerminalPool(require_tmux(), tmp_path)
    env = build_env(
        tmp_path / "home",
        {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url},
    )
    terminal = pool.open(env)
    terminal.start([*agent_cli_argv(), *FLAGS], cwd=write_demo_workspace(tmp_path / "ws"))
    driver = ReplDriver(terminal)
    try:
        driver.wait_for_prompt()
        yield driver
    finally:
        pool.kill_all()


def test_a_tool_using_turn_on_claude_renders_the_tool_and_the_answer(repl, server) -> None:
    assert "provider anthropic" in repl.terminal.screen()
    printed = repl.submit("read README.md and tell me its first heading")
    assert "╭─ read_file  path: README.md" in printed
    assert "Demo Project" in printed
    assert len(server.requests) == 2
    assert all(request.rejection is None for request in server.requests)


WAITING = re.compile(r"waiting for the model · (\d+)s · Ctrl-C cancels")


def test_a_spinner_counts_the_wait_for_the_first_token_and_the_answer_replaces_it(
    repl, server
) -> None:
    thought = threading.Event()  # the model thinks until the test has seen the count
    server.enqueue(Reply([text_block("A considered answer.")], held_until=thought))
    repl.send("think before you answer")
    waited = repl.terminal.wait_for(
        lambda text: any(int(n) >= 1 for n in WAITING.findall(text)),
        "the spinner counting the seconds since the request was sent",
        source=repl.terminal.visible,
    )
    assert "A considered answer." not in waited
    thought.set()
    answered = repl.terminal.wait_for_text("A considered answer.")
    assert "waiting for the model" not in output_after(answered, "think before you answer")
    assert "waiting for the model" not in repl.terminal.visible()


SUMMARIZING = re.compile(r"summarizing the older messages to make room · (\d+)s · Ctrl-C cancels")


def test_a_spinner_counts_the_wait_for_a_summary_and_the_compact_lines_replace_it(
    repl, server
) -> None:
    """`/compact` asks the model for a summary: the screen says so and counts the seconds
    until the summary comes (issue 23 item 9, for L4), then only the result stays."""
    for _ in range(3):
        repl.submit("read big.txt")
    repl.submit("read README.md")
    thought = threading.Event()  # the model writes the summary once the count was seen
    server.enqueue(Reply([text_block(SUMMARY_TEXT)], held_until=thought))
    prompts = count_prompts(repl.terminal.screen())
    repl.send("/compact")
    waited = repl.terminal.wait_for(
        lambda text: any(int(n) >= 1 for n in SUMMARIZING.findall(text)),
        "the spinner counting the seconds the summary takes",
        source=repl.terminal.visible,
    )
    assert "(requested with /compact)" not in output_after(waited, "/compact")
    thought.set()
    screen = repl.terminal.wait_for(
        lambda text: count_prompts(text) > prompts, "the prompt after /compact"
    )
    done = output_after(screen, "/compact")
    assert "(requested with /compact)" in done, done
    assert "summarizing the older messages" not in done
    assert "summarizing the older messages" not in repl.terminal.visible()


def is_summary_request(body: dict) -> bool:
    """Either shape the summarizer sends: the bounded one (no tools) or the one reusing
    the cached prefix (its instructions as the last user message)."""
    return not body.get("tools") or INSTRUCTIONS_HEADER in json.dumps(body["messages"][-1])


def test_compaction_and_stats_on_claude_send_only_requests_the_api_accepts(repl, server) -> None:
    printed = "".join(repl.submit("read big.txt") for _ in range(3))
    assert {"L1", "L2"} <= set(LAYER_LINE.findall(printed)), printed
    assert TOTAL_LINE.search(printed), printed
    repl.submit("read README.md")  # the big.txt read is now older than the recent tail
    summaries_before = len([body for body in server.accepted if is_summary_request(body)])
    forced = repl.submit("/compact")
    assert "(requested with /compact)" in forced
    assert "L4" in LAYER_LINE.findall(forced), forced

    panel = repl.submit("stats")
    assert "(anthropic)" in panel
    assert re.search(r"calibration\s+API / estimate = [\d.]+", panel)
    assert re.search(r"last request\s+input [\d,]+ · cache read [\d,]+", panel)

    repl.terminal.press("C-d")
    assert repl.terminal.wait_for_exit() == 0
    assert [request.rejection for request in server.requests if request.rejection] == []
    assert len(server.accepted) == len(server.requests) >= 7
    summary_requests = [body for body in server.accepted if is_summary_request(body)]
    # /compact asked the model for exactly one L4 summary (automatic firings may ask too:
    # the summary runs before pruning)
    assert len(summary_requests) == summaries_before + 1


def test_a_summary_holding_a_lone_surrogate_is_not_used_and_the_session_goes_on(
    repl, server
) -> None:
    """A summary whose text held `\\ud800` (a broken endpoint's JSON escape) was adopted: the
    view could then never be written or sent, and every later turn, `/compact` included,
    failed with "Not recorded ... (not_utf8)". L4 now leaves the view as it was and says why."""
    model = server.responder

    def broken_summaries(body: dict[str, Any]) -> Reply:
        if is_summary_request(body):
            return Reply([text_block("Summary: read big.txt \ud800 and README.md.")])
        return model(body)

    server.responder = broken_summaries
    "".join(repl.submit("read big.txt") for _ in range(3))
    repl.submit("read README.md")
    forced = " ".join(repl.submit("/compact").split())
    assert "not valid Unicode (a lone surrogate" in forced, forced
    after = repl.submit("read README.md")
    assert "Demo Project" in after
    assert "not_utf8" not in after and "Not recorded" not in after
    assert [request.rejection for request in server.requests if request.rejection] == []
    assert all("\\ud800" not in json.dumps(body) for body in server.accepted)
