"""The twenty-ninth outside attack's `?code=` and hook URLs as a user meets them: the
installed agent-cli in `-p` mode with `--yes`, the real SDK and the fake Messages API.

The workspace's `.env` holds an Azure Functions URL with its key in `?code=` and Slack,
Discord, Telegram and Teams hooks under names without the word WEBHOOK; agent-cli's
environment holds one more (`ALERTS_URL`); config.toml names an MCP server by Azure's
remote MCP endpoint form, `.../runtime/webhooks/mcp/sse?code=<key>`, and nothing listens
there. The model cats the `.env` and prints the variable: no key reaches a request, a
file under AGENT_CLI_HOME but config.toml, or the terminal (the server's "not available"
warning names its URL), while the hosts, paths and ids stay readable.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_result_texts, tool_use_block
from hostile_support import recoverable_secrets

from agent_cli.secret_forms import REDACTED_MARK

KEY = "sk-ant-FAKE-a29-hooks-0123456789abcdef"
FUNCTION_KEY = "Xk3Lm9Pq2Rs7Tu1Vw5Xy8Za4Bc6De0FgHiJkLmNoPq-Az=="
MCP_KEY = "Mz8Qw2Er5Ty7Ui9Op1As3Df6Gh8Jk0LzXcVbNm12-Qq=="
SLACK_SECRET = "q8Zr4TbW2nY6kP0sLx3Vd9mC"
ALERTS_SECRET = "z5Yx4Wv3Ut2Sr1Qp0On9Ml8K"
DISCORD_TOKEN = "Qw8Er7Ty6Ui5Op4As3Df2Gh1JkLzXcVbNmQw8Er7Ty6Ui5Op4As3Df2Gh1Jk"
TELEGRAM_TOKEN = "6123456789:AAHq8Zr4TbW2nY6kP0sLx3Vd9mC1fH5jG7a"
TEAMS_HASH = "9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e"
TEAMS_GUID = "1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d"
TEAMS_GROUP = "3f2a1b9c-0d4e-5f6a-7b8c-9d0e1f2a3b4c@72f988bf-86f1-41af-91ab-2d7cd011db47"
SECRETS = (
    FUNCTION_KEY,
    MCP_KEY,
    SLACK_SECRET,
    ALERTS_SECRET,
    DISCORD_TOKEN,
    TELEGRAM_TOKEN,
    TEAMS_HASH,
    TEAMS_GUID,
    KEY,
)
DOTENV = (
    f"ORDERS_FUNCTION_URL=https://orders-fn.azurewebsites.net/api/orders?code={FUNCTION_KEY}\n"
    f"SLACK_URL=https://hooks.slack.com/services/T04ABCD1234/B05EFGH5678/{SLACK_SECRET}\n"
    f"DISCORD_HOOK=https://discord.com/api/webhooks/1187654321098765432/{DISCORD_TOKEN}\n"
    f"TELEGRAM_API=https://api.telegram.org/bot{TELEGRAM_TOKEN}/sendMessage\n"
    f"TEAMS_URL=https://contoso.webhook.office.com/webhookb2/{TEAMS_GROUP}/IncomingWebhook/"
    f"{TEAMS_HASH}/{TEAMS_GUID}\n"
)
CONFIG = (
    "[mcp_servers.azfn]\n"
    f'url = "http://127.0.0.1:9/runtime/webhooks/mcp/sse?code={MCP_KEY}"\n'
    "startup_timeout = 5\n"
)


def call(tool_id: str, command: str) -> Reply:
    return Reply([tool_use_block(tool_id, "bash", {"command": command})], stop_reason="tool_use")


@pytest.mark.e2e
def test_code_keys_and_hook_secrets_reach_no_request_file_or_terminal(tmp_path: Path) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    workspace.mkdir()
    (workspace / ".env").write_text(DOTENV)
    (home / "config.toml").write_text(CONFIG)
    alerts = f"https://hooks.slack.com/services/T04ABCD1234/B0ALERTS99/{ALERTS_SECRET}"
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(
            call("toolu_cat", "cat .env"),
            call("toolu_env", "env | grep '^ALERTS_URL='"),
            Reply([text_block("Looked.")]),
        )
        extra = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url}
        env = build_env(home, {**extra, "ALERTS_URL": alerts})
        done = run_piped(["--yes", "-p", "show .env"], cwd=workspace, env=env)
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    catted, printed = tool_result_texts(bodies[-1])
    assert f"api/orders?code={REDACTED_MARK}" in catted
    assert f"services/T04ABCD1234/B05EFGH5678/{REDACTED_MARK}" in catted
    assert f"webhooks/1187654321098765432/{REDACTED_MARK}" in catted
    assert f"api.telegram.org/bot{REDACTED_MARK}/sendMessage" in catted
    assert f"{TEAMS_GROUP}/IncomingWebhook/{REDACTED_MARK}" in catted
    assert (
        f"ALERTS_URL=https://hooks.slack.com/services/T04ABCD1234/B0ALERTS99/{REDACTED_MARK}"
        in (printed)
    )
    assert f"runtime/webhooks/mcp/sse?code={REDACTED_MARK}" in done.stderr  # its warning
    for where, body in enumerate(bodies):
        assert recoverable_secrets(json.dumps(body), SECRETS) == set(), f"request {where}"
    for path in home.rglob("*"):
        if path.is_file() and path.name != "config.toml":
            text = path.read_bytes().decode("utf-8", "replace")
            assert recoverable_secrets(text, SECRETS) == set(), path
    assert recoverable_secrets(done.stdout + done.stderr, SECRETS) == set()


LISTED_SLACK = "Xq7LmN2pR9sT4vW8yZ1aB3cD"
LISTED_DISCORD = "Kd8Jh3Lp0Qw5Er7Ty2Ui9OpAzXcVbNm12QwErTy"
REDIRECT_SLACK = "Pl4Ok8Ij2Uh6Yg0Tf3Rd7Es1"
APPRISE_TOKEN = "6987654321:AAFz9Yx8Wv7Ut6Sr5Qp4On3Ml2Kj1Ih0Gf"
SLACK_HOOK = f"https://hooks.slack.com/services/T0123ABCD/B0123ABCD/{LISTED_SLACK}"
DISCORD_HOOK = f"https://discord.com/api/webhooks/123456789012345678/{LISTED_DISCORD}"
LISTED = (
    f"NOTIFY_URLS={SLACK_HOOK},{DISCORD_HOOK}\n"
    f"ALERT_TARGETS={DISCORD_HOOK}, {SLACK_HOOK}\n"
    f"LOGIN_REDIRECT=https://example.com/r?next=https%3A%2F%2Fhooks.slack.com%2Fservices"
    f"%2FT0123ABCD%2FB0123ABCD%2F{REDIRECT_SLACK}\n"
    f"APPRISE_URLS=tgram://{APPRISE_TOKEN}/-1001234567890/\n"
)


@pytest.mark.e2e
def test_hook_urls_joined_in_a_list_or_inside_another_url_reach_no_request(
    tmp_path: Path,
) -> None:
    """The review of fix29c: `NOTIFY_URLS=<Slack hook>,<Discord hook>` was sent whole by
    `cat .env`; `<Discord hook>, <Slack hook>` lost its comma; a hook inside a redirect's
    `?next=` and an Apprise `tgram://` URL were sent whole."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    workspace.mkdir()
    (workspace / ".env").write_text(LISTED)
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(call("toolu_cat", "cat .env"), Reply([text_block("Looked.")]))
        env = build_env(home, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url})
        done = run_piped(["--yes", "-p", "show .env"], cwd=workspace, env=env)
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    (catted,) = tool_result_texts(bodies[-1])
    slack_shown = f"https://hooks.slack.com/services/T0123ABCD/B0123ABCD/{REDACTED_MARK}"
    discord_shown = f"https://discord.com/api/webhooks/123456789012345678/{REDACTED_MARK}"
    assert f"NOTIFY_URLS={slack_shown},{discord_shown}\n" in catted
    assert f"ALERT_TARGETS={discord_shown}, {slack_shown}\n" in catted
    assert f"APPRISE_URLS=tgram://{REDACTED_MARK}/-1001234567890/" in catted
    secrets = (LISTED_SLACK, LISTED_DISCORD, REDIRECT_SLACK, APPRISE_TOKEN)
    for where, body in enumerate(bodies):
        assert recoverable_secrets(json.dumps(body), secrets) == set(), f"request {where}"
    assert recoverable_secrets(done.stdout + done.stderr, secrets) == set()
