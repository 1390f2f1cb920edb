"""MCP servers written with the SDK, run for real over stdio, good and hostile, and one
end to end through the real session, the SDK and the strict fake Messages API."""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_anthropic import Reply, text_block, tool_use_block
from session_support import (
    ScriptedProvider,
    drain,
    make_session,
    transcript_records,
    workspace_with,
)
from tools_support import is_process_running

from agent_cli.events import Notice, ToolFinished
from agent_cli.mcp_servers.hub import McpHub
from agent_cli.mcp_servers.settings import McpServerSettings
from agent_cli.protocol import validate_tool_protocol
from agent_cli.provider.anthropic_provider import AnthropicProvider

API_KEY = "sk-ant-test-mcp"
DEMO = Path(__file__).parent / "mcp_fixtures" / "demo_server.py"


def demo(name: str = "demo", mode: str = "normal", **extra) -> McpServerSettings:
    extra.setdefault("startup_timeout", 30)  # the demo imports the SDK: slow on a busy box
    return McpServerSettings(name, command=sys.executable, args=(str(DEMO), mode), **extra)


@pytest.fixture(scope="module")
def hub(tmp_path_factory) -> Iterator[McpHub]:
    running = McpHub([demo(timeout=60)], tmp_path_factory.mktemp("mcp"))
    running.start()
    assert running.wait_for_start(40) == []
    yield running
    running.close()


def _state(hub: McpHub, name: str):
    return next(state for state in hub.states() if state.name == name)


def test_a_ready_server_offers_its_tools_sorted_and_skips_a_bad_name(hub):
    state = _state(hub, "demo")
    assert state.status == "ready"
    names = [tool.name for tool in state.tools]
    assert names == sorted(names) and "mcp__demo__echo" in names
    assert [skipped.tool for skipped in state.skipped] == ["../../x"]
    wordy = next(t for t in state.tools if t.tool == "wordy").definition["description"]
    assert len(wordy) <= 2_000


def test_calls_return_text_error_results_and_big_output(hub):
    assert hub.call("demo", "echo", {"text": "hi"}).items[0]["text"] == "echo: hi"
    failed = hub.call("demo", "fail", {})
    assert failed.is_error and failed.failure is None
    big = hub.call("demo", "big", {})
    assert big.failure is None and len(big.items[0]["text"]) > 5_000_000


def test_servers_that_cannot_start_say_why_and_the_others_go_on(tmp_path):
    plain_file = tmp_path / "server.sh"
    plain_file.write_text("#!/bin/sh\n")  # not executable
    hub = McpHub(
        [
            demo("ok"),
            McpServerSettings("missing", command="no-such-mcp-server-anywhere"),
            McpServerSettings("notexec", command=str(plain_file)),
            demo("exits", "exit"),
            demo("garbage", "garbage"),
            demo("silent", "noinit", startup_timeout=15),
            demo("off", enabled=False),
        ],
        tmp_path,
    )
    hub.start()
    try:
        assert hub.wait_for_start(60) == []
        states = {state.name: state for state in hub.states()}
        assert states["ok"].status == "ready"
        assert states["missing"].status == "failed"
        assert "'no-such-mcp-server-anywhere' was not found" in states["missing"].reason
        assert "is not an executable file" in states["notexec"].reason
        assert "cannot open its database" in states["exits"].reason
        assert states["silent"].status == "failed"
        assert states["silent"].reason == (  # the limit, and the key that raises it
            "it did not finish the MCP handshake and list its tools within its startup_timeout "
            "of 15 s (raise startup_timeout under [mcp_servers.silent] in config.toml if it "
            "needs longer)"
        )
        assert states["garbage"].status in ("ready", "failed")  # said, never hung
        assert states["off"].status == "disabled"
        assert hub.call("missing", "echo", {}).failure.startswith(
            "the MCP server missing is failed"
        )
    finally:
        hub.close()


def test_a_hanging_call_and_a_crash_are_error_results_and_mark_the_server_failed(tmp_path):
    hub = McpHub([demo(timeout=2)], tmp_path)
    hub.start()
    try:
        assert hub.wait_for_start(40) == []
        hung = hub.call("demo", "hang", {})
        assert "no answer in 2 s" in hung.failure and _state(hub, "demo").status == "failed"
        hub.restart("demo")
        assert hub.wait_for_start(40) == [] and _state(hub, "demo").status == "ready"
        crashed = hub.call("demo", "crash", {})
        assert "connection broke" in crashed.failure and _state(hub, "demo").status == "failed"
        assert "/mcp restart demo" in crashed.failure  # how the user gets it back
    finally:
        hub.close()


def test_an_unreachable_url_server_says_it_could_not_connect_not_that_it_stopped(tmp_path):
    """It never started, so "it stopped before it was ready" was wrong."""
    import socket

    with socket.socket() as probe:  # a loopback port nobody listens on once it is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    hub = McpHub([McpServerSettings("web", url=url, startup_timeout=20)], tmp_path)
    hub.start()
    try:
        hub.wait_for_start(30)
        state = _state(hub, "web")
        assert state.status == "failed"
        assert state.reason.startswith(f"could not connect to {url} ("), state.reason
        assert "stopped before it was ready" not in state.reason
    finally:
        hub.close()


def test_closing_ends_every_server_process_and_its_children(tmp_path):
    pid_file = tmp_path / "child.pid"
    hub = McpHub(
        [demo("kid", "child", env={"DEMO_CHILD_PID_FILE": str(pid_file)})],
        tmp_path,
    )
    hub.start()
    assert hub.wait_for_start(40) == []
    child = int(pid_file.read_text())
    assert is_process_running(child)
    hub.close()
    deadline = time.monotonic() + 5
    while is_process_running(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not is_process_running(child)


def test_a_session_offers_mcp_tools_asks_first_and_keeps_big_results_out_of_the_prompt(
    server, tmp_path
):
    workspace = workspace_with(tmp_path, {"README.md": "# Title\n"})
    server.enqueue(
        Reply([tool_use_block("toolu_1", "mcp__demo__echo", {"text": "hello"})], "tool_use"),
        Reply([tool_use_block("toolu_2", "mcp__demo__big", {})], "tool_use"),
        Reply([tool_use_block("toolu_p", "mcp__demo__picture", {})], "tool_use"),
        Reply([tool_use_block("toolu_3", "mcp__demo__crash", {})], "tool_use"),
        Reply([text_block("done")]),
    )
    provider = AnthropicProvider(
        API_KEY, "claude-test", base_url=server.base_url, timeout_seconds=10
    )
    asked: list[str] = []

    def ask(request):
        from agent_cli.tools.permissions import PermissionDecision

        asked.append(request.approval.text)
        return PermissionDecision.ALLOW_ONCE

    session = make_session(
        workspace, provider, auto_approve=False, ask_permission=ask, mcp_servers=(demo(timeout=60),)
    )
    try:
        session.start_mcp()
        events = drain(session.run_turn("use the demo tools"))
        assert events[-1].outcome == "ok", events
        waiting = [e for e in events if isinstance(e, Notice) and e.code == "mcp_waiting"]
        assert waiting[0].fields["limit"] == 30  # the server's own startup_timeout
        first = server.accepted[0]
        names = [tool["name"] for tool in first["tools"]]
        mcp_names = [name for name in names if name.startswith("mcp__")]
        assert mcp_names == sorted(mcp_names) and "mcp__demo__echo" in mcp_names
        assert (
            asked[0].startswith("MCP server demo, tool echo, arguments:") and '"hello"' in asked[0]
        )
        finished = [e for e in events if isinstance(e, ToolFinished)]
        assert [f.is_error for f in finished] == [False, False, False, True]
        picture = server.accepted[3]["messages"][-1]["content"][0]["content"]
        assert [block["type"] for block in picture] == ["text", "image"]  # the model sees it
        assert picture[1]["source"]["media_type"] == "image/png"
        big_result = server.accepted[2]["messages"][-1]["content"][0]["content"]
        text = big_result if isinstance(big_result, str) else big_result[0]["text"]
        assert len(text) < 40_000 and "artifact:" in text  # spilled, with its pointer
        crash = server.accepted[4]["messages"][-1]["content"][0]
        assert crash["is_error"] and "connection broke" in str(crash["content"])
        assert all(r.rejection is None for r in server.requests)
        validate_tool_protocol(session.view)
        kinds = [r["kind"] for r in transcript_records(session)]
        assert kinds.count("message") >= 8
        assert [s.status for s in session.mcp_servers()] == ["failed"]
        server.enqueue(Reply([text_block("still here")]))
        after = drain(session.run_turn("go on"))  # the crash was said once, by its call
        assert after[-1].outcome == "ok"
        assert not [e for e in after if isinstance(e, Notice) and e.code == "mcp_failed"]
        assert session.stats().tool_schemas_by_source == {}  # its tools left with it
        assert session.restart_mcp("demo") and not session.restart_mcp("nope")
        deadline = time.monotonic() + 40
        while "MCP demo" not in session.stats().tool_schemas_by_source:
            assert time.monotonic() < deadline, session.mcp_servers()
            time.sleep(0.2)
        assert session.stats().tool_schemas_by_source["built-in"] > 0
    finally:
        session.close()


def test_a_streamable_http_server_on_loopback_is_reached_with_its_headers(tmp_path):
    import subprocess

    port_file = tmp_path / "port"
    web = subprocess.Popen(
        [sys.executable, str(DEMO.with_name("http_server.py")), str(port_file)],
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while not port_file.exists() or not port_file.read_text():
            assert time.monotonic() < deadline and web.poll() is None
            time.sleep(0.1)
        url = f"http://127.0.0.1:{port_file.read_text()}/mcp"
        hub = McpHub(
            [
                McpServerSettings(
                    "web",
                    url=url,
                    headers={"Authorization": "Bearer test-token"},
                    startup_timeout=20,
                ),
                McpServerSettings("nokey", url=url, startup_timeout=20),
            ],
            tmp_path,
        )
        hub.start()
        try:
            assert hub.wait_for_start(30) == []
            states = {state.name: state for state in hub.states()}
            assert states["web"].status == "ready", states["web"].reason
            assert states["nokey"].status == "failed"
            assert hub.call("web", "echo", {"text": "hi"}).items[0]["text"] == "http echo: hi"
        finally:
            hub.close()
    finally:
        web.kill()
        web.wait()


@pytest.mark.parametrize(
    ("mode", "says", "status"),
    [
        ("no_content", "answered odd with something unreadable", "ready"),
        ("bad_item", "answered odd with something unreadable", "ready"),
        (  # no attempt at a message: skipped, then quoted when the call gets no answer
            "not_json",
            "got no answer in 3 s; meanwhile it wrote a line to stdout that is not JSON-RPC: "
            "'{this is not json'",
            "failed",
        ),
        (
            "split_answer",
            "wrote a line to stdout that is not valid JSON-RPC during a call",
            "failed",
        ),
    ],
)
def test_a_malformed_answer_is_an_error_result_and_nothing_reaches_the_terminal(
    tmp_path, capfd, mode, says, status
):
    raw = DEMO.with_name("raw_server.py")
    hub = McpHub(
        [
            McpServerSettings(
                "raw", command=sys.executable, args=(str(raw), mode), timeout=3, startup_timeout=20
            )
        ],
        tmp_path,
    )
    hub.start()
    try:
        assert hub.wait_for_start(30) == []
        assert _state(hub, "raw").status == "ready", _state(hub, "raw").reason
        outcome = hub.call("raw", "odd", {})
        assert outcome.items == () and says in outcome.failure
        assert _state(hub, "raw").status == status
    finally:
        hub.close()
    printed = capfd.readouterr()
    assert "Traceback" not in printed.err and "ValidationError" not in printed.err


def test_a_garbage_line_from_a_server_leaves_no_traceback_on_the_terminal(tmp_path):
    """Outside pytest (whose log capture would hide it) the SDK's log record of a line
    that is not JSON-RPC must not reach stderr: the state says what happened."""
    import subprocess

    script = f"""
import sys
import tempfile
from pathlib import Path
from agent_cli.mcp_servers.hub import McpHub
from agent_cli.mcp_servers.settings import McpServerSettings
settings = McpServerSettings("raw", command=sys.executable,
    args=({str(DEMO.with_name("raw_server.py"))!r}, "split_answer"), timeout=30, startup_timeout=20)
hub = McpHub([settings], Path({str(tmp_path)!r}))
hub.start()
assert hub.wait_for_start(30) == []
print(hub.call("raw", "odd", {{}}).failure)
hub.close()
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=90)
    assert run.returncode == 0, run.stderr
    assert 'is not valid JSON-RPC during a call of odd: \'{"jsonrpc": "2.0"' in run.stdout
    assert run.stderr == ""


def test_without_a_lifeline_stdio_servers_fail_with_what_to_do_and_nothing_raises(
    tmp_path, monkeypatch
):
    """The temporary folder cannot hold the lifeline's FIFO: no stdio server is started
    (nothing would end it if agent-cli were killed); each says why and what to do, and
    starting and restarting raise nothing."""
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    monkeypatch.setattr(tempfile, "tempdir", str(not_a_folder))
    hub = McpHub([demo("one"), demo("two")], tmp_path)
    try:
        hub.start()
        hub.restart("one")
        assert hub.wait_for_start(5) == []
        for state in hub.states():
            assert state.status == "failed"
            assert "lifeline" in state.reason and "writable" in state.reason
            assert str(not_a_folder) in state.reason
    finally:
        hub.close()


def test_ctrl_c_while_waiting_for_the_servers_keeps_the_message_and_sends_nothing(tmp_path):
    """Found by an outside attack: Ctrl-C after "waiting for MCP servers" brought the
    prompt back with no word, and the message was in no record (in piped mode the whole
    REPL ended). Now the turn ends cancelled, saying so, with the message recorded."""
    from faults_support import assert_history_is_valid, drive_with_interrupt
    from session_support import ScriptedProvider

    from agent_cli.repl.error_text import notice_text

    workspace = workspace_with(tmp_path, {"README.md": "# Title\n"})
    provider = ScriptedProvider([[{"type": "text", "text": "here I am"}]])
    session = make_session(
        workspace, provider, mcp_servers=(demo("slow", "noinit", startup_timeout=60),)
    )
    try:
        session.start_mcp()
        run = drive_with_interrupt(session.run_turn("please look at the repo"), at_index=0)
        assert not run.escaped and run.interrupted_at.code == "mcp_waiting"
        [cancelled] = [e for e in run.events if isinstance(e, Notice) and e.code == "cancelled"]
        assert "recorded but was not sent" in notice_text(cancelled)
        assert run.events[-1].outcome == "cancelled" and provider.requests == []
        messages = [
            r["payload"]["message"] for r in transcript_records(session) if r["kind"] == "message"
        ]
        assert messages == [{"role": "user", "content": "please look at the repo"}]
        assert_history_is_valid(session)
    finally:
        session.close()


def test_a_server_turned_off_in_config_is_never_started_by_a_restart(tmp_path):
    """Found by an outside attack: `/mcp restart h` of a server with `enabled = false`
    said "Restarted" and left it off when another server ran, but started it when it was
    the only one. A server the config turns off stays off for the run."""
    workspace = workspace_with(tmp_path, {"README.md": "# Title\n"})
    session = make_session(
        workspace,
        ScriptedProvider(),
        mcp_servers=(demo(enabled=False),),
    )
    try:
        session.start_mcp()
        assert not session.restart_mcp("demo")
        time.sleep(0.5)
        assert [s.status for s in session.mcp_servers()] == ["disabled"]
    finally:
        session.close()
