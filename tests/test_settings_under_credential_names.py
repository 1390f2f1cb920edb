"""Settings under credential-looking names stay visible; secrets under them stay hidden
(session 29's third outside tester, false positives).

The finding: a `.env` of ordinary settings (`OAUTH_TOKEN_URL=https://oauth2.googleapis.com/
token`, `DYNAMODB_SORT_KEY=created_at`, `PASSWORD_FIELD=password_hash`, `JIRA_KEY=PROJ-1234`,
`JWT_EXPIRATION_MS=86400000`) made a plain source file come back to the model as
`TOKEN_URL = "[REDACTED]"`, `def load(table, [REDACTED], [REDACTED])`, and a log line as
`ts=17000[REDACTED] uploaded [REDACTED] bytes`: 24 of 55 and 13 of 18 such settings, and
7 of 8 numbers, were hidden everywhere. Now a value is a setting when its name's last part
says which kind (`tools.setting_values`: a location, a measure, a record's key) and it has
that shape (and a field's name names a credential: `*_FIELD=password_hash`); a value
with a key's shape, a URL that carries a credential or a query, a PIN, a seed, and every
password but a field's name stay hidden: the review of the first rules found 48 secrets
they showed (a `*_PARAM` holding a key, a passphrase read as a setting phrase, a password
under `PRIMARY_KEY`, a passcode under `*_MAX`, a token in a URL's path or query).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_result_texts, tool_use_block
from hostile_support import McpServer, secrets_left_anywhere

from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools.dotenv_syntax import parse_dotenv
from agent_cli.tools.redaction import (
    collect_mcp_secret_values,
    collect_secret_values,
)
from agent_cli.tools.workspace_secrets import DotenvFile, WorkspaceDotenv, find_dotenv_secrets


def hidden_by_every_reader(name: str, value: str) -> list[bool]:
    """Whether the environment, a dotenv file, an MCP server's `env`, a flag of its
    `args`, and a JSON value's key each take `value`, held under `name`, as a secret."""
    quote = '"' if "'" in value else "'"
    dotenv = WorkspaceDotenv((DotenvFile(".env", parse_dotenv(f"{name}={quote}{value}{quote}\n")),))
    flag = "--" + name.lower().replace("_", "-")
    settings = f'{{"{name.lower()}": "{value}"}}'
    return [
        value in collect_secret_values({name: value}),
        value in find_dotenv_secrets(dotenv, "").values,
        value in collect_mcp_secret_values([McpServer(env={name: value})], {}),
        value in collect_mcp_secret_values([McpServer(args=(flag, value))], {}),
        value in collect_secret_values({"APP_SETTINGS": settings}),
    ]


VISIBLE = [
    # public URLs under `*_URL`, `*_URI`, `*_ENDPOINT` (the tester's second list)
    ("OAUTH_TOKEN_URL", "https://oauth2.googleapis.com/token"),
    ("KEYCLOAK_TOKEN_URL", "https://sso.example.com/realms/app/protocol/openid-connect/token"),
    ("JWT_JWKS_URL", "https://login.microsoftonline.com/common/discovery/v2.0/keys"),
    ("AZURE_KEY_VAULT_URL", "https://myapp-kv.vault.azure.net/"),
    ("KEY_VAULT_URI", "https://myapp-kv.vault.azure.net/"),
    ("PASSWORD_RESET_URL", "https://app.example.com/account/reset"),
    ("SECRETS_MANAGER_URL", "https://secretsmanager.us-east-1.amazonaws.com"),
    ("KEY_SERVER_URL", "https://keys.openpgp.org"),
    ("TOKEN_INTROSPECTION_URL", "https://auth.example.com/oauth2/introspect"),
    ("CREDENTIALS_URL", "https://console.cloud.google.com/apis/credentials"),
    # numbers under a name whose last part says a duration, a limit or a count
    ("JWT_EXPIRATION_MS", "86400000"),
    ("REFRESH_TOKEN_EXPIRES_MS", "2592000000"),
    ("JWT_EXPIRES_IN", "604800000"),
    ("TOKEN_BUDGET", "100000000"),
    ("API_KEY_RATE_LIMIT", "10000000"),
    ("SESSION_SECRET_ROTATE_SECONDS", "31536000"),
    ("TOKEN_REFRESH_INTERVAL_MS", "300000000"),
    # a record's, a cache's or a tracker's key holding an identifier
    ("DYNAMODB_PARTITION_KEY", "customer_id"),
    ("DYNAMODB_SORT_KEY", "created_at"),
    ("SORT_KEY", "updatedAt"),
    ("JIRA_KEY", "PROJ-1234"),
    ("TICKET_KEY", "OPS-42"),
    # what a record calls a credential, which hasher hashes it
    ("PASSWORD_FIELD", "password_hash"),
    ("DB_PASSWORD_FIELD", "password_hash"),
    ("PASSWORD_HASHER", "argon2id"),
    ("API_TOKEN_COLUMN", "api_token_digest"),
]


@pytest.mark.parametrize(("name", "value"), VISIBLE)
def test_a_setting_under_a_credential_looking_name_is_no_secret_by_every_reader(name, value):
    assert hidden_by_every_reader(name, value) == [False] * 5


HIDDEN = [
    # a URL that carries its credential: a user part, a credential-named parameter, a
    # key-shaped piece of its path, query or fragment, a long number, or a name that says
    # the URL is the credential
    ("TOKEN_URL", "https://app:Pw9xQ2vLk7@auth.example.com/token"),
    ("TOKEN_URL", "https://auth.example.com/token?api_key=Zq7Rk2mXv9LpW4tYc8Nb"),
    ("TOKEN_URL", "https://auth.example.com/token?state=Zq7Rk2mXv9LpW4tYc8Nb"),
    ("SECRET_URL", "https://app.example.com/cb#access_token=Zq7Rk2mXv9LpW4tYc8Nb"),
    ("CHAT_TOKEN_URL", "https://chat.example.com/hook/Xy9Zq8Wv7Ut6Sr5Qp4On3Ml2"),
    (
        "BOT_TOKEN_URL",
        "https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage",
    ),
    ("API_TOKEN_URL", "https://hooks.example.com/12345678901234567890"),
    ("SLACK_WEBHOOK_URL", "https://hooks.slack.com/services/T0123ABCD/B0456EFGH/notakey"),
    ("AZURE_STORAGE_SAS_URL", "https://acct.blob.core.windows.net/box?sv=2022-11-02&sp=r"),
    ("TOKEN_URL", "https://auth.example.com/token https://other.example.com/"),
    # digits under a name that is no measure's, or no digits under a measure's
    ("DB_PASSWORD", "84729163"),
    ("VAULT_PASSCODE", "84729163"),
    ("API_KEY", "1234567890123"),
    ("JWT_EXPIRATION_MS", "Zq7Rk2mXv9LpW4tYc8Nb"),
    # a key's shape under a record's key name, a key under a name that names keys
    ("PROJECT_KEY", "sk_live_51HqZ7Rk2mXv9LpW4tYc8Nb"),
    ("CACHE_KEY", "Zq7Rk2mXv9LpW4tYc8Nb"),
    ("PROJECT_KEY", "3f2a1b9c0d4e5f6a"),
    ("SORT_KEY", "kXqZvBmTrPlW"),
    ("STORAGE_KEY", "app_state"),  # Azure's storage account key goes by this name
    ("REDIS_KEY", "sessions:active"),  # and Azure Cache for Redis's access key
    # passphrases and weak secrets shaped like identifiers under other names
    ("SESSION_KEY", "correct_horse_battery"),
    ("SECRET_KEY", "my_super_secret"),
    ("DB_PASSWORD", "correct_horse_battery"),
    ("APP_SECRET", "correct-horse-battery-staple"),
    ("SESSION_SECRET", "keyboard-cat-in-prod"),
    ("BASIC_AUTH", "admin:hunter2pass"),
    # the review of fix29e: secrets its first rules showed
    ("STRIPE_SECRET_KEY_PARAM", "sk_live_51H8aQw2Zk9LmN3pR7tV"),
    ("CLIENT_SECRET_COLUMN", "Zq8mN2vL7xR4tY9wQ3eP"),
    ("JWT_SECRET_FIELD", "my-jwt-signing-secret"),
    ("SECRET_FIELD", "hunter2x"),
    ("DB_PASSWORD_PARAM", "correct_horse_battery"),
    ("DATABASE_PASSWORD", "off-by-one"),
    ("SECRET_KEY", "enabled-on-friday-night"),
    ("BASIC_AUTH", "disabled-until-launch-xk9"),
    ("PRIMARY_KEY", "Password123"),
    ("PROJECT_KEY", "correct-horse-battery-staple"),
    ("PD_ROUTING_KEY", "samplekeyhere"),
    ("ROW_KEY", "zpqmxnrwlvtkbhsy"),
    ("I18N_KEY", "lokalise-token-abcdef"),
    ("SORT_KEY", "zpqmxnrwlvtkbhsy"),
    ("VAULT_PASSCODE_MAX", "73019284"),
    ("BANK_PIN_PASSWORD_AGE", "99887766"),
    ("TOTP_SEED_IN", "1234567890123456"),
    ("API_KEY_SEC", "94837261054"),
    ("SECRET_KEY_IN", "38472910"),
    ("API_TOKEN_RATE", "61730294"),
    ("JWT_EXPIRATION_MS", "12345678901234"),
    ("PUSH_TOKEN_URL", "https://uptime.example.com/api/push/Ab3dE5gH7j?status=up"),
    ("MAGIC_LINK_TOKEN_URL", "https://app.example.com/verify?otp=48291337"),
    ("TOKEN_URL", "https://auth.example.com/cb?state=qwertyuiopasdfgh"),
    ("HEALTHCHECK_SECRET_URL", "https://hc-ping.com/abcdefghijklmnopqrstuv"),
    ("SECRET_URL", "https://app.example.com/s/correct-horse-battery-staple"),
    ("SECRET_URL", "https://app.example.com/%61%62%63%64%65%66"),
    # the second review: weak passwords under field names, passphrases under record keys,
    # a password written as a port
    ("DB_PASSWORD_PARAM", "password123"),
    ("MASTER_PASSWORD_PARAMETER", "passw0rd"),
    ("ADMIN_PASSWORD_PARAM", "mySecretPassword"),
    ("JWT_SECRET_PARAM", "supersecretjwtkey"),
    ("DB_PASSWORD_FIELD", "hunter2pass"),
    ("SECRET_FIELD", "hunter2hash"),
    ("CACHE_KEY", "correct-horse-battery-staple"),
    ("JIRA_KEY", "my-jira-secret"),
    ("CACHE_KEY", "welcomeToTheJungle"),
    ("SORT_KEY", "letmein_now"),
    ("FOREIGN_KEY", "open-sesame"),
    ("REDIS_PASSWORD_URI", "redis://redis.example.com:hunter2"),
    ("ICAL_SECRET_URL", "https://cal.example.com/private-feed/xkcdpasswordz/basic.ics"),
    ("DB_PASSWORD_URL", "https://vault.example.com/v1/hunter"),
]


@pytest.mark.parametrize(("name", "value"), HIDDEN)
def test_a_secret_that_only_resembles_a_setting_stays_hidden_by_every_reader(name, value):
    assert hidden_by_every_reader(name, value) == [True] * 5


STRIPE = "sk_live_51HqZ7Rk2mXv9LpW4tYc8NbQ"
AUTH_PASSWORD = "Pw9xQ2vLk7-basic"
DOTENV = (
    "OAUTH_TOKEN_URL=https://oauth2.googleapis.com/token\n"
    "JWT_JWKS_URL=https://login.microsoftonline.com/common/discovery/v2.0/keys\n"
    "DYNAMODB_PARTITION_KEY=customer_id\n"
    "DYNAMODB_SORT_KEY=created_at\n"
    "PASSWORD_FIELD=password_hash\n"
    "JIRA_KEY=PROJ-1234\n"
    "JWT_EXPIRATION_MS=86400000\n"
    "TOKEN_BUDGET=100000000\n"
    f"STRIPE_SECRET_KEY={STRIPE}\n"
    f"BASIC_AUTH=admin:{AUTH_PASSWORD}\n"
    "VAULT_PASSCODE=84729163\n"
)
AUTH_PY = (
    'TOKEN_URL = "https://oauth2.googleapis.com/token"\n'
    'JWKS = "https://login.microsoftonline.com/common/discovery/v2.0/keys"\n'
    "def load(table, customer_id, created_at):\n"
    "    row = table.get(Key={'customer_id': customer_id, 'created_at': created_at})\n"
    "    return row['password_hash']  # see PROJ-1234\n"
)
APP_LOG = (
    "ts=1700086400000 uploaded 100000000 bytes, maxAge 86400000\n"
    "pin 84729163 sent at ts=1700099999999\n"
)


@pytest.mark.e2e
def test_a_workspace_of_settings_reads_as_written_while_its_secrets_reach_no_request(
    tmp_path: Path,
) -> None:
    """As the tester ran it: the installed agent-cli with `--yes`, the real SDK and the
    fake API; the model reads `src/auth.py` and cats a log while `.env` holds settings
    under credential-looking names beside three real secrets."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    (workspace / "src").mkdir(parents=True)
    (workspace / ".env").write_text(DOTENV)
    (workspace / "src" / "auth.py").write_text(AUTH_PY)
    (workspace / "app.log").write_text(APP_LOG)
    key = "sk-ant-FAKE-settings-0123456789abcdef"
    with start_fake_server(api_key=key) as fake:
        fake.enqueue(
            Reply(
                [
                    tool_use_block("toolu_1", "read_file", {"path": "src/auth.py"}),
                    tool_use_block("toolu_2", "bash", {"command": "cat app.log .env"}),
                ],
                stop_reason="tool_use",
            ),
            Reply([text_block("done")]),
        )
        env = build_env(home, {"ANTHROPIC_API_KEY": key, "ANTHROPIC_BASE_URL": fake.base_url})
        done = run_piped(["--yes", "-p", "read them"], cwd=workspace, env=env)
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    read, cat = tool_result_texts(bodies[-1])
    for line in AUTH_PY.splitlines():
        assert line in read
    assert "ts=1700086400000 uploaded 100000000 bytes, maxAge 86400000" in cat
    assert f"pin {REDACTED_MARK} sent at ts=1700099999999" in cat
    assert "DYNAMODB_SORT_KEY=created_at" in cat and "JIRA_KEY=PROJ-1234" in cat
    assert f"STRIPE_SECRET_KEY={REDACTED_MARK}" in cat
    assert f"VAULT_PASSCODE={REDACTED_MARK}" in cat
    secrets = (STRIPE, AUTH_PASSWORD, "84729163", key)
    assert secrets_left_anywhere(bodies, home, done.stdout + done.stderr, secrets) == []
