"""Tools a server lists that the Messages API or the MCP SDK cannot take: each is left out
with its reason, and the server's other tools work. Real processes throughout: the
hand-written hostile server over stdio (`mcp_fixtures/hostile_server.py`), the hub, and
for the requests the real CLI against the strict fake Messages API, which refuses what
the real API refuses (a top-level anyOf, a schema that is no valid draft 2020-12)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import (
    HttpError,
    Reply,
    start_fake_server,
    text_block,
    tool_result_texts,
    tool_use_block,
)
from tools_support import make_toolbox

from agent_cli.mcp_servers.hub import McpHub
from agent_cli.mcp_servers.settings import McpServerSettings

API_KEY = "sk-ant-tool-schemas-FAKE-3"
HOSTILE = Path(__file__).parent / "mcp_fixtures" / "hostile_server.py"
LONG_KEY = "k" * 70  # as `hostile_server.LONG_KEY`


def hostile(mode: str) -> McpServerSettings:
    args = (str(HOSTILE), mode)
    return McpServerSettings("h", command=sys.executable, args=args, startup_timeout=30)


def _run_agent(workspace: Path, base_url: str, mode: str, prompt: str):
    home = Path(os.environ["AGENT_CLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[mcp_servers.h]\ncommand = "{sys.executable}"\nargs = ["{HOSTILE}", "{mode}"]\n'
        "startup_timeout = 60\n",  # the first request waits as long: the box may be busy
        encoding="utf-8",
    )
    env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": base_url})
    return run_piped(["-p", prompt, "--yes"], cwd=workspace, env=env)


def test_a_tool_whose_schema_the_api_refuses_is_left_out_and_every_request_is_accepted(
    tmp_path,
) -> None:
    """A top-level anyOf (a real server's "by id or by name") made the API refuse every
    request of the session; now that tool is not sent, and the server's echo runs."""
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(
            Reply([tool_use_block("toolu_e", "mcp__h__echo", {})], "tool_use"),
            Reply([text_block("The echo said ok.")]),
        )
        done = _run_agent(tmp_path, server.base_url, "api_refused_schemas", "echo, please")
        rejections = [r.rejection for r in server.requests if r.rejection is not None]
        sent = [tool["name"] for tool in server.accepted[0]["tools"]] if server.accepted else []
    assert rejections == [] and done.returncode == 0, (rejections, done.stderr)
    assert "mcp__h__echo" in sent
    assert "mcp__h__union" not in sent and "mcp__h__badtype" not in sent
    assert done.stdout.strip() == "The echo said ok."


def test_a_400_about_one_tool_names_the_tool_and_does_not_advise_sending_again(tmp_path) -> None:
    """Should the API refuse a tool for a rule agent-cli does not check yet, the words
    name that tool (the API names only its place, `tools.N`) and what helps: the tool
    rides in every request, so "run again" alone would fail the same way."""

    def refuse_the_echo(body):
        place = [tool["name"] for tool in body["tools"]].index("mcp__h__echo")
        return HttpError(400, message=f"tools.{place}.custom.input_schema: a rule of tomorrow")

    with start_fake_server(api_key=API_KEY, responder=refuse_the_echo) as server:
        done = _run_agent(tmp_path, server.base_url, "normal", "hello")
    said = " ".join(done.stderr.split())
    assert done.returncode == 1, done.stderr
    assert "the API refused mcp__h__echo, a tool of the MCP server h (tools." in said
    assert "enabled = false under [mcp_servers.h] in config.toml), then run the command " in said
    assert "again with --continue" in said and "send 'continue'" not in said


@pytest.mark.parametrize(
    "mode, tool, why",
    [
        ("string_schema", "stringly", "its input schema is not a JSON object schema"),
        ("string_schema_after_ping", "stringly", "its input schema is not a JSON object schema"),
        ("deep_schema", "deep", "its input schema is nested more than 64 levels deep"),
    ],
)
def test_one_tool_the_sdk_cannot_take_is_left_out_and_the_servers_other_tools_work(
    tmp_path, mode, tool, why
) -> None:
    """`{"type": "string"}` failed the SDK's check of the whole listing; a schema 100
    properties deep, its JSON parser (200 levels): either way the server never started.
    The calls of its other tools go through the SDK's own look at the listing again."""
    toolbox = make_toolbox(tmp_path)
    hub = McpHub([hostile(mode)], tmp_path, toolbox.secret_forms)
    toolbox.attach_mcp(hub)
    hub.start()
    try:
        assert hub.wait_for_start(40) == []
        state = next(state for state in hub.states() if state.name == "h")
        assert state.status == "ready", state.reason
        assert [(skipped.tool, skipped.problem) for skipped in state.skipped] == [(tool, why)]
        assert "mcp__h__echo" in [offered.name for offered in state.tools]
        for _ in range(2):
            outcome = toolbox.run("mcp__h__echo", {})
            assert not outcome.is_error and "ok" in outcome.content, outcome.content
        assert "failed" not in [state.status for state in hub.states()]
    finally:
        hub.close()


def test_a_listing_nested_past_any_parser_is_said_to_be_too_deep_not_invalid(tmp_path) -> None:
    """A line 100,000 levels deep cannot be read at all; it is JSON all the same, so the
    reason is its depth, not "not valid JSON-RPC" (which blamed the author wrongly)."""
    hub = McpHub([hostile("too_deep_line")], tmp_path)
    hub.start()
    try:
        assert hub.wait_for_start(40) == []
        state = next(state for state in hub.states() if state.name == "h")
        assert state.status == "failed"
        assert state.reason.startswith(
            "it wrote a JSON-RPC message nested too deeply to read during the MCP handshake: "
            '\'{"jsonrpc": "2.0", "id": '
        ), state.reason
        assert "not valid JSON-RPC" not in state.reason
    finally:
        hub.close()


def test_a_tool_whose_schema_holds_nan_or_infinity_is_left_out_and_mcp_says_why(tmp_path):
    """`"maximum": 1e400` (valid JSON, read as Infinity) or the `NaN` Python's json.dumps
    writes made the SDK's strict encoder raise a ValueError on every request: `-p`, the
    REPL and `--continue` died with a traceback. Now those two tools are not offered, the
    server's echo runs, the session goes on, and /mcp gives the reason for each."""
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(
            Reply([tool_use_block("toolu_e", "mcp__h__echo", {})], "tool_use"),
            Reply([text_block("The echo said ok.")]),
            Reply([text_block("Still here.")]),
        )
        first = _run_agent(tmp_path, server.base_url, "nonfinite_schemas", "echo, please")
        env = build_env(
            Path(os.environ["AGENT_CLI_HOME"]),
            {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url},
        )
        later = run_piped(["--continue"], cwd=tmp_path, env=env, stdin_text="and now?\n/mcp\n")
        rejections = [r.rejection for r in server.requests if r.rejection is not None]
        sent = [{tool["name"] for tool in body["tools"]} for body in server.accepted]
    assert first.returncode == 0 and later.returncode == 0, (first.stderr, later.stderr)
    assert "Traceback" not in first.stderr + later.stderr
    assert rejections == [] and len(sent) == 3
    assert all("mcp__h__echo" in names for names in sent)
    assert not any({"mcp__h__huge", "mcp__h__nan"} & names for names in sent)
    assert first.stdout.strip() == "The echo said ok." and "Still here." in later.stdout
    shown = " ".join(later.stdout.split())
    assert "'huge': its input schema holds Infinity at properties.n.maximum," in shown
    assert "'nan': its input schema holds NaN at properties.n.default," in shown


CHANGING = Path(__file__).parent / "mcp_fixtures" / "changing_server.py"


def test_a_relisting_that_brings_a_schema_holding_infinity_leaves_that_tool_out(tmp_path):
    """A server fine at start whose tools changed during a call, the new one's schema
    holding Infinity: the turn died with the SDK's ValueError at the next request. Now the
    new tool is left out and the turn, and the next, are answered."""
    home = Path(os.environ["AGENT_CLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[mcp_servers.chg]\ncommand = "{sys.executable}"\nargs = ["{CHANGING}", "nonfinite"]\n'
        "startup_timeout = 60\n",
        encoding="utf-8",
    )
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(
            Reply([tool_use_block("toolu_g", "mcp__chg__grow", {})], "tool_use"),
            Reply([text_block("grown")]),
            Reply([text_block("next turn")]),
        )
        env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url})
        first = run_piped(["-p", "grow", "--yes"], cwd=tmp_path, env=env)
        later = run_piped(["--continue", "-p", "and now?"], cwd=tmp_path, env=env)
        rejections = [r.rejection for r in server.requests if r.rejection is not None]
        sent = [{tool["name"] for tool in body["tools"]} for body in server.accepted]
    assert first.returncode == 0 and later.returncode == 0, (first.stderr, later.stderr)
    assert "Traceback" not in first.stderr + later.stderr
    assert rejections == [] and len(sent) == 3
    assert "mcp__chg__gone" in sent[0] and "mcp__chg__gone" not in sent[1]  # relisted
    assert not any("mcp__chg__fresh" in names for names in sent)
    assert first.stdout.strip() == "grown" and later.stdout.strip() == "next turn"


def test_a_tool_with_property_names_the_api_refuses_is_offered_renamed_and_called_as_listed(
    tmp_path,
) -> None:
    """One tool with `filter[id]` or `$top` among its properties made the API refuse every
    request of the session (the fake refuses it as the API does). Now its refused names are
    offered renamed, the model's call reaches the server under the server's own names (an
    argument under a name not renamed goes as sent), and /mcp says what was renamed; a
    tool whose `dependentRequired` names a refused key too is left out, saying why."""
    sent = {
        "filter_id__2": "7",
        "filter_id_": "plain",
        "_top": 5,
        "Account_Number": "A-1",
        "unnamed": "blank",
        "k" * 64: "long",
        "na_ve": True,
        "nested": {"$inner": "deep"},
        "extra": 1,
    }
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(
            Reply([tool_use_block("toolu_s", "mcp__h__search", sent)], "tool_use"),
            Reply([text_block("Searched.")]),
        )
        home = Path(os.environ["AGENT_CLI_HOME"])
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text(
            f'[mcp_servers.h]\ncommand = "{sys.executable}"\nargs = ["{HOSTILE}", "odd_keys"]\n'
            "startup_timeout = 60\n",
            encoding="utf-8",
        )
        env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url})
        done = run_piped(["--yes"], cwd=tmp_path, env=env, stdin_text="search, please\n/mcp\n")
        rejections = [r.rejection for r in server.requests if r.rejection is not None]
        bodies = [request.body for request in server.requests]
    assert rejections == [] and done.returncode == 0, (rejections, done.stderr)
    offered = {tool["name"]: tool for tool in bodies[0]["tools"]}
    assert "mcp__h__tangled" not in offered
    schema = offered["mcp__h__search"]["input_schema"]
    assert list(schema["properties"]) == [
        "filter_id__2",
        "filter_id_",
        "_top",
        "Account_Number",
        "unnamed",
        "k" * 64,
        "na_ve",
        "nested",
    ]
    assert schema["required"] == ["filter_id__2", "_top"]
    (answer,) = tool_result_texts(bodies[-1])
    got = json.loads(answer.split("\ngot ", 1)[1])
    assert got == {
        "filter[id]": "7",
        "filter_id_": "plain",
        "$top": 5,
        "Account Number": "A-1",
        "": "blank",
        LONG_KEY: "long",
        "naïve": True,
        "nested": {"$inner": "deep"},
        "extra": 1,
    }
    shown = " ".join(done.stdout.split())
    # the call's header shows the arguments as the server gets them, as its question does
    header = next(line for line in done.stdout.splitlines() if "mcp__h__search" in line)
    assert "filter[id]" in header and "filter_id__2" not in header, header
    assert "\n    search: property names the Messages API refuses renamed:" in done.stdout
    assert (
        "search: property names the Messages API refuses renamed: 'filter[id]' as "
        "filter_id__2, '$top' as _top, 'Account Number' as Account_Number, '' as unnamed, "
    ) in shown
    assert "not offered: 'tangled': its input schema has property names the Messages API" in shown
