"""Listing a server's tools again, when it says they changed, holds no call and cannot be
flooded (an outside attack: a server that never answered the listing it asked for held
each finished call open for its `startup_timeout`, 30 s and more; one that said its tools
changed after every listing kept an idle session listing ten thousand times in 20 s).
Real stdio servers (`mcp_fixtures/changing_server.py` in its `hang` and `flood` modes)
through the hub, read the way `/mcp` shows them."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from agent_cli.mcp_servers.settings import McpServerSettings
from agent_cli.mcp_servers.states import CallInterrupted, CallOutcome
from agent_cli.mcp_servers.tool_list_changes import MAX_INTERVAL
from agent_cli.repl.mcp_view import build_mcp_view
from agent_cli.session.mcp_part import McpPart, McpServerView
from agent_cli.tools.output import ToolInterrupted

SERVER = Path(__file__).parent / "mcp_fixtures" / "changing_server.py"


class _Counter:
    def count_json(self, value: object) -> int:
        return 1


@pytest.fixture
def serve(tmp_path: Path) -> Iterator:
    """Start the changing server in a mode, through the session's MCP part; ready."""
    parts: list[McpPart] = []

    def start(mode: str, startup_timeout: float) -> tuple[McpPart, Path]:
        log = tmp_path / f"{mode}.log"
        settings = McpServerSettings(
            "chg",
            command=sys.executable,
            args=(str(SERVER), mode),
            env={"LISTING_LOG": str(log)},
            startup_timeout=startup_timeout,
            timeout=60,
        )
        part = McpPart([settings], tmp_path, _Counter())
        parts.append(part)
        part.start()
        list(part.before_request())
        assert _view(part).status == "ready", _view(part).reason
        return part, log

    yield start
    for part in parts:
        part.close()


def _view(part: McpPart) -> McpServerView:
    [view] = part.servers()
    return view


def _shown(part: McpPart) -> str:
    console = Console(width=200, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(build_mcp_view(part.servers()))
    return console.export_text()


def _lines(log: Path, word: str) -> int:
    return log.read_text(encoding="utf-8").split().count(word) if log.exists() else 0


def _until(condition, limit: float = 30.0) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.05)


def test_calls_are_answered_while_their_server_never_answers_the_listing_it_asked_for(serve):
    part, log = serve("hang", 60)
    began = time.monotonic()
    outcomes = [part.call("chg", "same", {}) for _ in range(3)]  # each says tools changed
    took = time.monotonic() - began
    assert [outcome.items[0]["text"] for outcome in outcomes] == ["same ran"] * 3
    assert took < 30, took  # generous: each waited its startup_timeout (60 s) before
    # one listing asked, hung, and the notices after it merged, not a listing each
    assert _lines(log, "hung") == 1
    relisting = _view(part).relisting
    assert relisting.notices == 3 and relisting.listings == 0 and relisting.waiting > 0
    _until(lambda: _view(part).relisting.waiting >= 1)
    assert "listing its tools again: no answer for" in _shown(part)
    assert [tool.tool for tool in part.offered_tools()] == ["gone", "grow", "same"]


def test_a_listing_that_gets_no_answer_is_said_in_mcp_and_the_tools_stay(serve):
    part, _log = serve("hang", 5)
    assert part.call("chg", "same", {}).items[0]["text"] == "same ran"
    _until(lambda: bool(_view(part).relisting.failed))
    shown = " ".join(_shown(part).split())
    said = "its last listing again failed: no answer to tools/list in 5 s (startup_timeout)"
    assert said in shown, shown
    assert "the tools listed before are offered" in shown
    assert _view(part).status == "ready"
    assert [tool.tool for tool in part.offered_tools()] == ["gone", "grow", "same"]


def test_a_server_that_says_its_tools_changed_after_every_listing_is_listed_a_few_times(serve):
    part, log = serve("flood", 30)
    _until(lambda: _lines(log, "list") >= 3)  # it follows: the start's listing and more
    time.sleep(4)  # idle, as at the prompt
    listed = _lines(log, "list")
    assert listed <= 8, listed  # paced and backing off: it made hundreds a second before
    relisting = _view(part).relisting
    assert relisting.notices >= relisting.listings >= 2
    assert relisting.interval >= 4 and relisting.interval <= MAX_INTERVAL
    shown = " ".join(_shown(part).split())
    assert re.search(r"said its tools changed [\d,]+ times; listed again [\d,]+ times", shown)
    assert "notices merged: one listing at most every" in shown
    # a change said during a call is still read before the call returns, past the pace
    assert part.call("chg", "grow", {}).items[0]["text"] == "grow ran"
    assert [tool.tool for tool in part.offered_tools()] == ["fresh", "grow", "same"]


def test_ctrl_c_once_the_server_answered_keeps_its_answer_as_the_tool_result(tmp_path):
    """The toolbox records the answer a `CallInterrupted` carries, and Ctrl-C still ends
    the turn (a KeyboardInterrupt)."""
    from tools_support import make_toolbox

    from agent_cli.mcp_servers.offered_tools import OfferedTool

    class _Answered:
        version = 1

        def offered_tools(self) -> list[OfferedTool]:
            return [OfferedTool({"name": "mcp__chg__deploy"}, "chg", "deploy")]

        def not_offered(self, name: str) -> None:
            return None

        def call(self, server: str, tool: str, arguments: dict) -> CallOutcome:
            answer = CallOutcome(({"type": "text", "text": "deployed to prod"},))
            raise CallInterrupted(answer)

    toolbox = make_toolbox(tmp_path)
    toolbox.attach_mcp(_Answered())
    with pytest.raises(ToolInterrupted) as stopped:
        toolbox.run("mcp__chg__deploy", {"target": "prod"})
    assert isinstance(stopped.value, KeyboardInterrupt)
    kept = stopped.value.outcome
    assert kept is not None and not kept.is_error and "deployed to prod" in kept.content
