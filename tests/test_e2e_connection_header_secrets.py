"""The twenty-fifth outside attack as a user meets it: the installed agent-cli with
`--yes`, the real SDK, the fake Messages API and a real MCP server process.

agent-cli's environment holds database passwords in connection forms that are no URL
(libpq's `host=db ... password=X`, the Go MySQL DSN `app:X@tcp(db:3306)/app`, Oracle's
EZConnect `app/X@//db:1521/svc`), the workspace's `.env` one more in a quoted conninfo,
and config.toml gives an MCP server header lines in `env` values of no credential's name
(`X-API-Key: X`, `Cookie: session=X`). The model prints the environment, reads `.env`
and has the server echo its variables: no password or key reaches a request, a file
under AGENT_CLI_HOME or the terminal, while the rest of each line stays as it is.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from e2e_support import run_scripted
from fake_anthropic import Reply, text_block, tool_result_texts, tool_use_block
from hostile_support import secrets_left_anywhere

from agent_cli.secret_forms import REDACTED_MARK

KEY = "sk-ant-FAKE-a25-conn-0123456789abcdef"
LEAKY = Path(__file__).parent / "mcp_fixtures" / "leaky_server.py"
LIBPQ_PW = "Xk9mQ2vLp7wRtZ4a"
MYSQL_PW = "Gm7rT2xQ9vLk4pWz"
ORACLE_PW = "Or4cLe-9Q2vLp7wR"
DOTENV_PW = "Dv8nK3sQ7mLp2xRt"
API_KEY = "Zq8xW3vR7tY2pL9mK4nB6cD1"
SESSION = "sess-7Hk2mXv9LpW4tYc8Nb3Q"
ENVIRONMENT = {
    "DATABASE_URL": f"host=db port=5432 user=app password={LIBPQ_PW} dbname=app",
    "MYSQL_CONNECT": f"app:{MYSQL_PW}@tcp(db:3306)/app?parseTime=true",
    "ORACLE_CONNECT": f"app/{ORACLE_PW}@//db.internal:1521/ORCLPDB1",
}
SECRETS = (LIBPQ_PW, MYSQL_PW, ORACLE_PW, DOTENV_PW, API_KEY, SESSION, KEY)


def call(tool_id: str, tool: str, **tool_input: str) -> Reply:
    return Reply([tool_use_block(tool_id, tool, tool_input)], stop_reason="tool_use")


def config_toml() -> str:
    env = {"AUTH_HEADER": f"X-API-Key: {API_KEY}", "COOKIE_HEADER": f"Cookie: session={SESSION}"}
    return (
        "[mcp_servers.leaky]\n"
        f'command = "{sys.executable}"\n'
        f'args = ["{LEAKY}", "binary"]\n'
        "startup_timeout = 40\n"
        f"env = {{ {', '.join(f'{k} = {json.dumps(v)}' for k, v in env.items())} }}\n"
    )


@pytest.mark.e2e
def test_connection_passwords_and_env_header_lines_reach_no_request(tmp_path: Path) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    workspace.mkdir()
    (home / "config.toml").write_text(config_toml(), encoding="utf-8")
    (workspace / "secret.txt").write_text("nothing secret here\n", encoding="utf-8")
    (workspace / ".env").write_text(
        f"PG_CONNINFO='host=db user=app password={DOTENV_PW} dbname=app'\n", encoding="utf-8"
    )
    names = "|".join(ENVIRONMENT)
    replies = [
        call("toolu_env", "bash", command=f"env | grep -E '^({names})=' | sort"),
        call("toolu_read", "read_file", path=".env"),
        call("toolu_key", "mcp__leaky__env_value", name="AUTH_HEADER"),
        call("toolu_cookie", "mcp__leaky__env_value", name="COOKIE_HEADER"),
        Reply([text_block("Looked at all of them.")]),
    ]
    done, bodies = run_scripted(
        home, workspace, KEY, replies, environment=ENVIRONMENT, stdin_text="show me\n"
    )
    assert done.returncode == 0, done.stderr
    printed, read, api_key, cookie = tool_result_texts(bodies[-1])
    assert f"host=db port=5432 user=app password={REDACTED_MARK} dbname=app" in printed
    assert f"MYSQL_CONNECT=app:{REDACTED_MARK}@tcp(db:3306)/app?parseTime=true" in printed
    assert f"ORACLE_CONNECT=app/{REDACTED_MARK}@//db.internal:1521/ORCLPDB1" in printed
    assert f"password={REDACTED_MARK} dbname=app'" in read
    assert f"AUTH_HEADER=X-API-Key: {REDACTED_MARK}" in api_key
    assert f"COOKIE_HEADER=Cookie: {REDACTED_MARK}" in cookie
    assert secrets_left_anywhere(bodies, home, done.stdout + done.stderr, SECRETS) == []
