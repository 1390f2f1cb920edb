"""Long lines and many lines on a stdio MCP server's stdout (an outside attack: the SDK's
reader took time growing with the square of a line's size, so an answer of 80 MB failed
as "got no answer in 60 s" and the server was stopped, and it spent ~100 µs on each log
line a server wrote to stdout). agent-cli's own transport reads in time linear in what
the server writes: a 40 MiB answer is read, capped and saved; an answer over the 64 MiB
limit fails its call at once, saying how big it was, and the server stays ready; junk
and log lines are skipped. Each test runs `mcp_fixtures/long_lines_server.py` as a real
process over stdio and asserts words and results, never the time taken."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tools_support import make_toolbox

from agent_cli.mcp_servers.hub import McpHub
from agent_cli.mcp_servers.settings import McpServerSettings
from agent_cli.store.artifacts import ArtifactStore
from agent_cli.tools import Toolbox

LONG = Path(__file__).parent / "mcp_fixtures" / "long_lines_server.py"
NO_ANSWER = "got no answer"  # the timeout's words: none of these calls may end with them


def _state(hub: McpHub):
    return next(state for state in hub.states() if state.name == "long")


@pytest.fixture
def started(tmp_path) -> Iterator[tuple[McpHub, Toolbox, ArtifactStore]]:
    store = ArtifactStore(tmp_path / "home")
    toolbox = make_toolbox(tmp_path, artifacts=store, max_output_bytes=1_048_576)
    settings = McpServerSettings(
        "long", command=sys.executable, args=(str(LONG),), timeout=60, startup_timeout=30
    )
    hub = McpHub([settings], tmp_path, toolbox.secret_forms)
    toolbox.attach_mcp(hub)
    hub.start()
    try:
        assert hub.wait_for_start(40) == []
        assert _state(hub).status == "ready", _state(hub).reason
        yield hub, toolbox, store
    finally:
        hub.close()


def test_an_answer_of_40_mib_on_one_line_is_read_capped_and_saved(started):
    hub, toolbox, store = started
    result = toolbox.run("mcp__long__huge", {"mb": 40})
    assert not result.is_error, result.content[:400]
    assert "1.0 MB cap" in result.content and "dropped" in result.content
    pointer = result.content.split("saved as ", 1)[1].split()[0]
    assert pointer.startswith("artifact:session-1:")
    assert b"x" * 1_000 in store.read_range(pointer, 0, 4_096)
    assert result.size_bytes <= 1_048_576 + 4_096
    assert _state(hub).status == "ready"


@pytest.mark.parametrize("id_last", [False, True], ids=["id first", "id last"])
def test_an_answer_over_the_limit_fails_its_call_with_its_size_and_the_server_stays(
    started, id_last
):
    hub, toolbox, _ = started
    result = toolbox.run("mcp__long__over_limit", {"mb": 65, "id_last": id_last})
    assert result.is_error
    assert NO_ANSWER not in result.content, result.content
    assert "long answered over_limit with 65.0 MiB in one message, over agent-cli's " in (
        result.content
    )
    assert "limit of 64 MiB for one MCP message: the answer was dropped unread" in (result.content)
    assert _state(hub).status == "ready"
    after = toolbox.run("mcp__long__ok", {})
    assert not after.is_error and after.content.endswith("ok"), after.content


def test_junk_without_a_line_feed_then_an_answer_is_skipped_and_the_answer_read(started):
    hub, toolbox, _ = started
    result = toolbox.run("mcp__long__junk_then_answer", {"mb": 20})
    assert not result.is_error and "after the junk" in result.content, result.content[:400]
    assert _state(hub).status == "ready"


def test_many_log_lines_before_an_answer_are_skipped(started):
    hub, toolbox, _ = started
    result = toolbox.run("mcp__long__logs", {"n": 200_000})
    assert not result.is_error and "after the logs" in result.content, result.content[:400]
    assert _state(hub).status == "ready"


def test_log_lines_never_reach_the_sdk_as_items_but_are_noted(tmp_path):
    """The transport itself: each log line (a plain one, a JSON record) is given to
    `on_stray` and the session's first item is the answer, not a parser's error."""
    from mcp.shared.message import SessionMessage
    from mcp.types import JSONRPCRequest, JSONRPCResponse

    from agent_cli.mcp_servers.exit_probe import ExitProbe
    from agent_cli.mcp_servers.stdio_transport import open_stdio

    strays: list[str] = []

    async def first_item() -> object:
        request = JSONRPCRequest(
            jsonrpc="2.0",
            id=1,
            method="tools/call",
            params={"name": "logs", "arguments": {"n": 1_000}},
        )
        with (tmp_path / "stderr").open("w") as errlog:
            async with open_stdio(
                sys.executable,
                [str(LONG)],
                {},
                tmp_path,
                errlog,
                strays.append,
                list,
                ExitProbe(60.0),
            ) as (reads, writes):
                await writes.send(SessionMessage(request))
                return await reads.receive()

    item = asyncio.run(first_item())
    assert isinstance(item, SessionMessage), item
    assert isinstance(item.message, JSONRPCResponse) and item.message.id == 1
    assert len(strays) == 1_000
    assert strays[0].startswith("INFO 0 yyy") and strays[1] == '{"level": 30, "msg": "record 0"}'
