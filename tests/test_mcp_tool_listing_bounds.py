"""A server's tool listing within bounds: past the most agent-cli offers of one server the
tools are counted and named as left out by that cap (not as tools the server does not
list), and a listing that pages in a loop (a repeated cursor, an empty page pointing on)
or without end is stopped at once, in words that blame the server's listing, not its
startup_timeout. Real processes: the raw paging server over stdio, the session's MCP part,
the toolbox, and for `/mcp` the installed CLI against the strict fake API."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import start_fake_server
from tools_support import make_toolbox

from agent_cli.mcp_servers.paged_listing import MAX_LISTED_PAGES, MAX_LISTED_TOOLS
from agent_cli.mcp_servers.settings import McpServerSettings
from agent_cli.session.mcp_part import McpPart
from agent_cli.tools import Toolbox

PAGING = Path(__file__).parent / "mcp_fixtures" / "paging_server.py"


class _Counter:
    def count_json(self, value: object) -> int:
        return 1


def _started(tmp_path: Path, *args: str) -> Iterator[tuple[Toolbox, McpPart, float]]:
    toolbox = make_toolbox(tmp_path)
    env = {"PAGING_COUNT_FILE": str(tmp_path / "asked")}
    settings = McpServerSettings(
        "p", command=sys.executable, args=(str(PAGING), *args), env=env, startup_timeout=30
    )
    part = McpPart([settings], tmp_path, _Counter(), toolbox.secret_forms)
    toolbox.attach_mcp(part)
    began = time.monotonic()
    part.start()
    try:
        list(part.before_request())  # waits for the server to be ready or failed
        yield toolbox, part, time.monotonic() - began
    finally:
        part.close()


@pytest.fixture
def many(tmp_path) -> Iterator[tuple[Toolbox, McpPart, float]]:
    yield from _started(tmp_path, "many", "2000")


def test_tools_past_the_cap_are_counted_in_mcp_and_a_call_of_one_says_the_cap(many) -> None:
    toolbox, part, _ = many
    [server] = part.servers()
    assert server.status == "ready", server.reason
    assert len(server.tools) == MAX_LISTED_TOOLS == 500 and server.left_out == 1_500
    outcome = toolbox.run("mcp__p__t1500", {})
    assert outcome.is_error
    assert "lists it, but past the first 500 tools, the most agent-cli offers" in outcome.content
    assert "not in the server's list of tools" not in outcome.content
    unlisted = toolbox.run("mcp__p__t2000", {}).content
    assert "not in the server's list of tools when agent-cli last read it" in unlisted
    assert "called t499" in toolbox.run("mcp__p__t499", {}).content


@pytest.mark.parametrize(
    "mode, asked, tools, words",
    [
        ("loop", 1, 0, "holds none yet points on to another page"),
        ("repeat", 2, 2, "points on to a cursor it gave before"),
        ("endless", MAX_LISTED_PAGES, MAX_LISTED_PAGES, f"more than {MAX_LISTED_PAGES} pages"),
    ],
)
def test_a_listing_that_pages_in_a_loop_stops_at_once_and_blames_the_server(
    tmp_path, mode: str, asked: int, tools: int, words: str
) -> None:
    for _toolbox, part, took in _started(tmp_path, mode):
        [server] = part.servers()
        assert server.status == "ready", server.reason
        assert took < 15  # not its 30 s startup_timeout, spinning
        assert int((tmp_path / "asked").read_text()) == asked
        assert len(server.tools) == tools
        assert words in server.listing_cut
        assert mode == "endless" or "pagination bug in the server" in server.listing_cut
        assert "startup_timeout" not in server.listing_cut


def test_mcp_says_how_many_tools_were_left_out_and_why(tmp_path) -> None:
    home = Path(os.environ["AGENT_CLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[mcp_servers.huge]\ncommand = "{sys.executable}"\nargs = ["{PAGING}", "many", "2000"]\n'
        f'env = {{ PAGING_COUNT_FILE = "{tmp_path / "asked"}" }}\nstartup_timeout = 60\n',
        encoding="utf-8",
    )
    with start_fake_server(api_key="sk-ant-listing-FAKE-2") as server:
        env = build_env(
            home,
            {"ANTHROPIC_API_KEY": "sk-ant-listing-FAKE-2", "ANTHROPIC_BASE_URL": server.base_url},
        )
        done = run_piped(["--yes"], cwd=tmp_path, env=env, stdin_text="hello\n/mcp\n")
    out = " ".join(done.stdout.split())
    assert done.returncode == 0, done.stderr
    assert "huge ready · 500 tools (1,500 more left out)" in out
    assert (
        "1,500 more tools it lists past the first 500, the most agent-cli offers of one server"
        in out
    )
