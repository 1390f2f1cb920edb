"""A fifth outside attack on the MCP servers: ordinary error answers, a flood of stderr,
tool names that collide across servers, a server that exits once ready, huge results,
structured-only results and images that are none. Each test runs the hand-written
hostile server (`mcp_fixtures/hostile_server.py`) as a real process over stdio, through
the hub and, where the result's shape matters, the toolbox."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tools_support import FakeArtifactStore, make_toolbox

from agent_cli.mcp_servers.hub import McpHub
from agent_cli.mcp_servers.settings import McpServerSettings
from agent_cli.session.mcp_part import McpPart
from agent_cli.tools import Toolbox

HOSTILE = Path(__file__).parent / "mcp_fixtures" / "hostile_server.py"
SECRET = "ghp_hostileROBUST0123456789abcdefXYZ"


def hostile(name: str = "h", mode: str = "normal", **extra) -> McpServerSettings:
    extra.setdefault("startup_timeout", 20)
    extra.setdefault("timeout", 30)
    env = {"HOSTILE_SECRET": SECRET, **extra.pop("env", {})}
    return McpServerSettings(
        name, command=sys.executable, args=(str(HOSTILE), mode), env=env, **extra
    )


def _toolbox(tmp_path: Path, **options) -> Toolbox:
    return make_toolbox(tmp_path, secret_environment={"HOSTILE_TOKEN": SECRET}, **options)


def _state(hub: McpHub, name: str):
    return next(state for state in hub.states() if state.name == name)


@pytest.fixture
def started(tmp_path) -> Iterator[tuple[McpHub, Toolbox]]:
    toolbox = _toolbox(tmp_path)
    hub = McpHub([hostile()], tmp_path, toolbox.secret_forms)
    toolbox.attach_mcp(hub)
    hub.start()
    try:
        assert hub.wait_for_start(30) == []
        assert _state(hub, "h").status == "ready", _state(hub, "h").reason
        yield hub, toolbox
    finally:
        hub.close()


@pytest.mark.parametrize("tool, code", [("invalid_params", "-32602"), ("server_error", "-32000")])
def test_a_json_rpc_error_answer_is_an_error_result_and_the_server_stays_ready(started, tool, code):
    hub, toolbox = started
    outcome = toolbox.run(f"mcp__h__{tool}", {})
    assert outcome.is_error and code in outcome.content, outcome.content
    assert SECRET not in outcome.content and "[REDACTED]" in outcome.content
    assert "\x1b" not in outcome.content and "stopped" not in outcome.content
    state = _state(hub, "h")
    assert state.status == "ready", state.reason
    again = toolbox.run("mcp__h__echo", {})
    assert not again.is_error and "ok" in again.content


def test_a_server_that_dies_during_a_call_says_its_last_stderr_lines_redacted(started):
    """It said "its connection broke during a call of die (MCPError: Connection closed)"
    and no more, where a server failing at start or exiting once ready shows why; and
    its way back named only /mcp restart, which -p has not."""
    hub, toolbox = started
    outcome = toolbox.run("mcp__h__die", {})
    assert outcome.is_error
    assert "the MCP server h stopped: its connection broke during a call of die" in (
        outcome.content
    )
    assert "its last stderr lines: dying mid call: the backend refused [REDACTED]" in (
        outcome.content
    )
    assert SECRET not in outcome.content
    assert "(/mcp restart h at agent-cli's prompt, or a new run of agent-cli)" in outcome.content
    state = _state(hub, "h")
    assert state.status == "failed" and state.failed_in_call, state
    assert "dying mid call: the backend refused [REDACTED]" in state.reason


def _open_files_over(limit: int) -> list[tuple[str, int]]:
    """This process's open regular files (deleted ones too) bigger than `limit` bytes
    (with `limit` 0 their sizes read as 0: which files, not how big)."""
    big = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            info = os.stat(f"/proc/self/fd/{fd}")
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if (info.st_mode & 0o170000) == 0o100000 and (limit == 0 or info.st_size > limit):
            big.append((target, info.st_size if limit else 0))
    return big


def _resident_bytes() -> int:
    status = Path("/proc/self/status").read_text()
    line = next(line for line in status.splitlines() if line.startswith("VmRSS:"))
    return int(line.split()[1]) * 1024


def test_a_server_flooding_stderr_fills_no_disk_and_no_memory(tmp_path):
    """Only a bounded tail of stderr is kept, whatever the server writes; its last lines
    still explain its failure, redacted."""
    open_before = set(_open_files_over(0))  # (files other tests of this worker left open)
    hub = McpHub([hostile("flood", "stderr_flood")], tmp_path)
    hub.start()
    try:
        assert hub.wait_for_start(30) == []
        assert _state(hub, "flood").status == "ready"
        before = _resident_bytes()
        time.sleep(3)  # the old errlog (a deleted temporary file) grew ~500 MB in 3 s
        grown = [f for f in _open_files_over(1_048_576) if (f[0], 0) not in open_before]
        assert grown == []
        assert _resident_bytes() - before < 64 * 1_048_576
        assert _state(hub, "flood").status == "ready"
    finally:
        hub.close()
    toolbox = _toolbox(tmp_path)
    env = {"FLOOD_MB": "40"}
    dying = McpHub([hostile("dying", "stderr_flood_exit", env=env)], tmp_path, toolbox.secret_forms)
    dying.start()
    try:
        assert dying.wait_for_start(60) == []
        state = _state(dying, "dying")
        assert state.status == "failed" and "last words [REDACTED]" in state.reason, state.reason
    finally:
        dying.close()


def test_tool_names_colliding_across_servers_skip_the_later_one_with_a_reason(tmp_path):
    toolbox = _toolbox(tmp_path)
    hub = McpHub([hostile("a__b"), hostile("a", "collide")], tmp_path, toolbox.secret_forms)
    toolbox.attach_mcp(hub)
    hub.start()
    try:
        assert hub.wait_for_start(30) == []
        names = [schema["name"] for schema in toolbox.schemas()]
        assert len(names) == len(set(names)), names
        assert "mcp__a__b__esc" in names
        skipped = [s for state in hub.states() for s in state.skipped]
        assert len(skipped) == 1 and "mcp__a__b__esc" in skipped[0].problem, skipped
        assert "already offered" in skipped[0].problem
    finally:
        hub.close()


def test_a_server_that_exits_once_ready_turns_failed_and_its_tools_go(tmp_path):
    from agent_cli.session.mcp_part import McpPart

    toolbox = _toolbox(tmp_path)
    part = McpPart([hostile("dies", "die_after_ready")], tmp_path, _Counter(), toolbox.secret_forms)
    toolbox.attach_mcp(part)
    part.start()
    try:
        notices = list(part.before_request())
        assert any(tool.name == "mcp__dies__echo" for tool in part.offered_tools()) or any(
            notice.code == "mcp_failed" for notice in notices
        )
        deadline = time.monotonic() + 10
        while part.servers()[0].status == "ready" and time.monotonic() < deadline:
            time.sleep(0.05)
        server = part.servers()[0]
        assert server.status == "failed", server
        assert "exited" in server.reason and "bye [REDACTED]" in server.reason, server.reason
        assert part.offered_tools() == []
        assert not any(s["name"].startswith("mcp__") for s in toolbox.schemas())
        failed = [n for n in part.before_request() if n.code == "mcp_failed"]
        assert len(failed) == 1 and failed[0].fields["server"] == "dies"
        assert list(part.before_request()) == []  # reported once
    finally:
        part.close()


class _Counter:
    def count_json(self, value: object) -> int:
        return 1


def test_a_huge_result_is_capped_like_command_output(tmp_path):
    store = FakeArtifactStore()
    toolbox = _toolbox(tmp_path, artifacts=store, max_output_bytes=1_048_576)
    hub = McpHub([hostile()], tmp_path, toolbox.secret_forms)
    toolbox.attach_mcp(hub)
    hub.start()
    try:
        assert hub.wait_for_start(30) == []
        outcome = toolbox.run("mcp__h__big", {"n": 6})
        assert not outcome.is_error
        assert "1.0 MB cap" in outcome.content, outcome.content[-400:]
        assert "dropped" in outcome.content
        assert all(len(data) <= 1_048_576 + 4_096 for data in store.saved.values())
        assert outcome.size_bytes <= 1_048_576 + 4_096
    finally:
        hub.close()


def test_structured_only_content_is_shown_to_the_model(started):
    _, toolbox = started
    outcome = toolbox.run("mcp__h__structured_only", {})
    assert "(no content)" not in outcome.content
    assert '"temperature": 22.5' in outcome.content and '"city": "Paris"' in outcome.content


def test_an_image_whose_bytes_are_no_image_is_never_sent(started):
    _, toolbox = started
    outcome = toolbox.run("mcp__h__bogus_image", {})
    assert outcome.images == ()
    assert "not sent" in outcome.content and "not a PNG" in outcome.content, outcome.content


@pytest.fixture
def fat_started(tmp_path) -> Iterator[tuple[Toolbox, McpPart]]:
    """A toolbox with the session's MCP part attached, its one server (the hostile one)
    ready and listing, besides its usual tools, `fat`, left out for its size."""
    toolbox = _toolbox(tmp_path)
    part = McpPart([hostile(mode="fat_schema")], tmp_path, _Counter(), toolbox.secret_forms)
    toolbox.attach_mcp(part)
    part.start()
    try:
        assert [n.code for n in part.before_request()] == ["mcp_waiting"]
        assert part.servers()[0].status == "ready", part.servers()[0].reason
        yield toolbox, part
    finally:
        part.close()


def test_a_call_of_a_listed_tool_left_out_says_why_and_names_the_offered_ones(fat_started):
    """Found by an outside attack: the model, calling a tool the server lists but
    agent-cli left out (its schema is over 1 MB), was told the server may have failed,
    and the tool list it got back left out the server's ready tools."""
    toolbox, part = fat_started
    [(tool, why)] = part.servers()[0].skipped  # what /mcp shows
    outcome = toolbox.run("mcp__h__fat", {"q": "x"})
    assert outcome.is_error and tool == "fat"
    assert outcome.content.startswith("That tool is not offered: the MCP server h lists it")
    assert f"because {why};" in outcome.content
    assert "input schema is" in why and "(at most 64,000)" in why
    assert "may have failed" not in outcome.content and "mcp__h__fat" not in outcome.content
    listed = outcome.content.split("Available tools: ", 1)[1]
    assert "read_file" in listed and "mcp__h__echo" in listed and "mcp__h__big" in listed


def test_a_call_of_a_tool_a_ready_server_does_not_list_says_the_server_runs(fat_started):
    toolbox, _part = fat_started
    outcome = toolbox.run("mcp__h__nothing_like_it", {})
    assert outcome.is_error
    assert "the MCP server h is running, and it was not in the server's list of tools" in (
        outcome.content
    )
    assert "may have failed" not in outcome.content and "nothing_like_it" not in outcome.content
    assert "mcp__h__echo" in outcome.content.split("Available tools: ", 1)[1]
