"""The API key never lands anywhere the program writes, whatever happens in the session.

A recognisable fake key is the only credential; the REPL's `main` runs in process with
piped input against the strict fake Messages API (which insists on that key). The
session runs `env` through `bash` (with `--yes`), spills a big output to an artifact,
stores a fact, and meets API errors whose messages echo the key back. Afterwards every
byte under AGENT_CLI_HOME (transcripts, artifacts, memory, history, side files), all of
stdout and stderr, and every request body the API received are searched for the key.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import HttpError, Reply, start_fake_server, text_block, tool_use_block

from agent_cli.repl.main import main

KEY = "sk-ant-FAKE-0123456789abcdef"
KEY_PARTS = (KEY, KEY[len("sk-ant-") :], "0123456789abcdef")


def run_main(argv: list[str], stdin_text: str, env: dict[str, str]) -> tuple[int, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(argv, stdin=io.StringIO(stdin_text), stdout=stdout, stderr=stderr, env=env)
    return code, stdout.getvalue() + stderr.getvalue()


def everything_written(home: Path) -> dict[str, bytes]:
    return {str(path): path.read_bytes() for path in sorted(home.rglob("*")) if path.is_file()}


def assert_no_key(where: str, data: bytes | str) -> None:
    raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
    for part in KEY_PARTS:
        assert part.encode() not in raw, f"the API key is in {where}"


def bash(tool_id: str, command: str) -> Reply:
    return Reply([tool_use_block(tool_id, "bash", {"command": command})], stop_reason="tool_use")


@pytest.fixture
def setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The environment of the run; the key is also in os.environ, where `bash` children
    would inherit it if the tool did not strip it."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("AGENT_CLI_HOME", str(home))
    return {"home": home, "workspace": workspace}


def test_the_key_is_nowhere_after_a_session_with_tools_errors_and_memory(setting):
    home, workspace = setting["home"], setting["workspace"]
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(
            bash("toolu_1", "env; echo key=${ANTHROPIC_API_KEY:-unset}"),
            bash("toolu_2", "env | sort; for i in $(seq 1 3000); do echo line $i; done"),
            Reply([text_block("Ran env twice.")]),
            HttpError(400, message=f"messages: bad request for key {KEY}"),
            HttpError(401, message=f"invalid x-api-key: {KEY}"),
            HttpError(403, message=f"key {KEY} may not use this model"),
            Reply([text_block("Back to normal.")]),
        )
        env = {
            "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_BASE_URL": fake.base_url,
            "AGENT_CLI_HOME": str(home),
        }
        lines = (
            "run env please\nfirst error\nsecond error\nthird error\n"
            "/remember the tests use a fake key\nstill there?\n/stats\n"
        )
        code, shown = run_main(["--workspace", str(workspace), "--yes"], lines, env)
        bodies = [repr(request.body) for request in fake.requests]
        assert len(fake.accepted) >= 6  # the key really was used, and every turn ran
    assert code == 0
    assert "Back to normal." in shown and "line 3000" not in shown
    assert_no_key("stdout or stderr", shown)
    for where, body in enumerate(bodies):
        assert_no_key(f"request body {where}", body)
    written = everything_written(home)
    assert any("tool-results" in path for path in written)  # the big output was spilled
    assert any(path.endswith(".jsonl") for path in written)
    for path, data in written.items():
        assert_no_key(path, data)


def test_the_key_is_nowhere_after_a_failed_print_mode_turn(setting):
    home, workspace = setting["home"], setting["workspace"]
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(HttpError(401, message=f"invalid x-api-key: {KEY}"))
        env = {
            "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_BASE_URL": fake.base_url,
            "AGENT_CLI_HOME": str(home),
        }
        code, shown = run_main(["--workspace", str(workspace), "-p", "hello"], "", env)
    assert code == 1
    assert_no_key("stdout or stderr", shown)
    for path, data in everything_written(home).items():
        assert_no_key(path, data)


def test_a_key_the_api_refuses_is_not_echoed_by_the_auth_error(setting):
    """The fake API, holding another key, answers 401 for ours (the real SDK path)."""
    home, workspace = setting["home"], setting["workspace"]
    with start_fake_server(api_key="sk-ant-the-right-one") as fake:
        env = {
            "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_BASE_URL": fake.base_url,
            "AGENT_CLI_HOME": str(home),
        }
        code, shown = run_main(["--workspace", str(workspace)], "hello\n", env)
    assert code == 0 and "API key was refused" in shown
    assert_no_key("stdout or stderr", shown)
    for path, data in everything_written(home).items():
        assert_no_key(path, data)
