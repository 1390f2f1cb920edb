r"""Session 29's left URL forms as a user meets them: the installed agent-cli in `-p` mode
with `--yes`, the real SDK and the fake Messages API.

The workspace's `.env` keeps a notification config as PHP's `json_encode` printed it (a
Slack hook, a database URL and an API token behind `\u0026`, every `/` written `\/`), a
Discord hook written without its scheme, Apprise's Pushover and Gotify URLs, a
webhook.site capture URL and a login URL with `;` before its `otp=`; agent-cli's
environment holds a JSON of JSON (`\\/`). The model cats the `.env`, prints the
variable and has `sed` print the `.env` as JSON writes a path: no credential reaches a
request, a file under AGENT_CLI_HOME or the terminal, while hosts, ids and devices stay
readable.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_result_texts, tool_use_block
from hostile_support import secrets_left_anywhere

from agent_cli.secret_forms import REDACTED_MARK

KEY = "sk-ant-FAKE-a30-escaped-urls-0123456789"
SLACK_SECRET = "Jq5Wm8Xr2Tb6Yn9Pk3Lv7Cz1"
DB_PASSWORD = "Dp4Rt8Yw2Qn6Zm9Xk3"
API_TOKEN = "Ak7Fh2Lp9Wd4Sx8Vb3Nq6Tz"
DISCORD_TOKEN = "Dc8Jh3Lp0Qw5Er7Ty2Ui9OpAzXcVbNm12QwErTyUiOp"
USER_KEY = "uQiRzpo4DXghDmr9QzzfQu27cmVRsG"
APP_TOKEN = "azGDORePK8gMaC0QOYAMyEEuzJnyUi"
GOTIFY_TOKEN = "AzyoeNS.D4iJLVa"
CAPTURE_UUID = "0f7c2a9e-4b1d-4e8a-9c3f-5d6b7a8e9f01"
OTP = "48291337"
ALERTS_SECRET = "Al9Kx3Vm7Qp2Zw5Rt8Yn4Bc"
SECRETS = (
    SLACK_SECRET,
    DB_PASSWORD,
    API_TOKEN,
    DISCORD_TOKEN,
    USER_KEY,
    APP_TOKEN,
    GOTIFY_TOKEN,
    CAPTURE_UUID,
    OTP,
    ALERTS_SECRET,
    KEY,
)
NOTIFY_CONFIG = (
    '{"slack":"https:\\/\\/hooks.slack.com\\/services\\/T04ABCD1234\\/B05EFGH5678\\/'
    f'{SLACK_SECRET}","db":"postgres:\\/\\/app:{DB_PASSWORD}@db.internal:5432\\/app",'
    f'"api":"https:\\/\\/api.example.com\\/v1\\/items?limit=5\\u0026token={API_TOKEN}"}}'
)
DOTENV = (
    f"NOTIFY_CONFIG='{NOTIFY_CONFIG}'\n"
    f"CHAT_HOOK=discord.com/api/webhooks/1187654321098765432/{DISCORD_TOKEN}\n"
    f"APPRISE_URLS=pover://{USER_KEY}@{APP_TOKEN}/iphone gotify://push.example.com/{GOTIFY_TOKEN}\n"
    f"CAPTURE_URL=https://webhook.site/{CAPTURE_UUID}\n"
    f"LOGIN_URL=https://sso.example.com/cb?state=abc;otp={OTP}\n"
)
# what Python's json.dumps makes of a PHP-printed config: JSON of JSON
ALERTS_JSON = json.dumps(
    f'{{"url":"https:\\/\\/hooks.slack.com\\/services\\/T04ABCD1234\\/B0ALERTS99\\/{ALERTS_SECRET}"}}'
)


def call(tool_id: str, command: str) -> Reply:
    return Reply([tool_use_block(tool_id, "bash", {"command": command})], stop_reason="tool_use")


@pytest.mark.e2e
def test_urls_printed_as_json_and_notification_urls_reach_no_request_file_or_terminal(
    tmp_path: Path,
) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    workspace.mkdir()
    (workspace / ".env").write_text(DOTENV)
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(
            call("toolu_cat", "cat .env"),
            call("toolu_env", "printenv ALERTS_JSON"),
            call("toolu_sed", "sed 's#/#\\\\/#g' .env"),
            Reply([text_block("Looked.")]),
        )
        extra = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url}
        env = build_env(home, {**extra, "ALERTS_JSON": ALERTS_JSON})
        done = run_piped(["--yes", "-p", "show the notification settings"], cwd=workspace, env=env)
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    catted, printed, escaped = tool_result_texts(bodies[-1])
    assert (
        "https:\\/\\/hooks.slack.com\\/services\\/T04ABCD1234\\/B05EFGH5678\\/" + REDACTED_MARK
    ) in catted
    assert f"postgres:\\/\\/app:{REDACTED_MARK}@db.internal:5432\\/app" in catted
    assert f"items?limit=5\\u0026token={REDACTED_MARK}" in catted
    assert f"CHAT_HOOK=discord.com/api/webhooks/1187654321098765432/{REDACTED_MARK}" in catted
    assert f"pover://{REDACTED_MARK}@{REDACTED_MARK}/iphone" in catted
    assert f"gotify://push.example.com/{REDACTED_MARK}" in catted
    assert f"CAPTURE_URL=https://webhook.site/{REDACTED_MARK}" in catted
    assert f"cb?state=abc;otp={REDACTED_MARK}" in catted
    assert "hooks.slack.com" in printed and "B0ALERTS99" in printed
    assert f"webhook.site\\/{REDACTED_MARK}" in escaped
    assert secrets_left_anywhere(bodies, home, done.stdout + done.stderr, SECRETS) == []
