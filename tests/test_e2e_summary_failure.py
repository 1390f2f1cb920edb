"""A summary request the API keeps refusing as overloaded, in a real terminal (tmux).

The real `agent-cli` runs the real SDK against `fake_anthropic` on 127.0.0.1; the fake
answers every summary request with HTTP 529 (retry-after 0, so the retries take no time)
and plays a model that reads three files in one turn, each read taking the view over the
soft threshold. What the user sees: each retry of the summary request as a
`retrying (overloaded)` line, as an ordinary request's, one warning that says the API
was overloaded, and one series of attempts in the turn, not one per compaction.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    ReplDriver,
    TerminalPool,
    agent_cli_argv,
    build_env,
    require_tmux,
)
from fake_anthropic import HttpError, Reply, start_fake_server, text_block, tool_use_block

from agent_cli.provider.anthropic_provider import DEFAULT_MAX_RETRIES
from agent_cli.provider.summary_reuse import INSTRUCTIONS_HEADER

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-SUMFAIL-0123456789"
FLAGS = ("--soft-threshold", "4000", "--hard-limit", "60000", "--yes")
FILES = ("a.txt", "b.txt", "c.txt")
ATTEMPTS = DEFAULT_MAX_RETRIES + 1


def is_summary_request(body: dict[str, Any]) -> bool:
    """Either shape the summarizer sends: the bounded one (no tools) or the one reusing
    the cached prefix (its instructions as the last user message)."""
    return not body.get("tools") or INSTRUCTIONS_HEADER in json.dumps(body["messages"][-1])


class ThreeReadsModel:
    """Reads a.txt, b.txt and c.txt one by one, then answers; a summary request gets a
    529."""

    def __init__(self) -> None:
        self._turns = itertools.count(1)
        self._turn = 0

    def __call__(self, body: dict[str, Any]) -> Any:
        if is_summary_request(body):
            return HttpError(529, retry_after="0")
        content = body["messages"][-1]["content"]
        done = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
        read = int(done[-1]["tool_use_id"].rsplit("_", 1)[1]) + 1 if done else 0
        if read == len(FILES):
            return Reply([text_block("All three files are read.")])
        if read == 0:
            self._turn = next(self._turns)
        call_id = f"toolu_e2e_{self._turn}_{read}"
        call = tool_use_block(call_id, "read_file", {"path": FILES[read]})
        return Reply([text_block(f"Reading {FILES[read]}."), call], "tool_use")


def write_workspace(root: Path) -> Path:
    root.mkdir()
    text = "".join(f"line {n} of a file that takes room in the view\n" for n in range(180))
    for name in FILES:
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture()
def server():
    with start_fake_server(api_key=API_KEY, responder=ThreeReadsModel()) as fake:
        yield fake


@pytest.fixture()
def repl(tmp_path: Path, server: Any) -> Any:
    pool = TerminalPool(require_tmux(), tmp_path)
    env = build_env(
        tmp_path / "home",
        {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url},
    )
    terminal = pool.open(env)
    terminal.start([*agent_cli_argv(), *FLAGS], cwd=write_workspace(tmp_path / "ws"))
    driver = ReplDriver(terminal)
    try:
        driver.wait_for_prompt()
        yield driver
    finally:
        pool.kill_all()


def summary_requests(server: Any) -> int:
    return sum(1 for r in server.requests if r.body is not None and is_summary_request(r.body))


def test_an_overloaded_summary_shows_its_retries_says_why_and_is_asked_once_a_turn(
    repl: Any, server: Any
) -> None:
    repl.submit("read the three files")  # the view is over the soft threshold from here
    before = summary_requests(server)

    printed = " ".join(repl.submit("read them again").split())

    assert "All three files are read." in printed
    assert summary_requests(server) - before == ATTEMPTS  # one series, not one per read
    assert printed.count("retrying (overloaded) in 0.0 s") == ATTEMPTS - 1, printed
    warning = (
        f"L4: the summary request failed after {ATTEMPTS} attempts (HTTP 529): "
        "the API was overloaded."
    )
    assert printed.count(warning) == 1, printed
    assert "until your next message, compaction prunes older messages" in printed
    assert "no summarizer is available" not in printed
    assert all(r.rejection is None for r in server.requests)
