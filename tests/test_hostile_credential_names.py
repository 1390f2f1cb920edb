"""Common credentials in agent-cli's own environment are secrets (seventh attack, S2).

The attack: `SUPABASE_SERVICE_ROLE_KEY`, `RAILS_MASTER_KEY` and `AZURE_OPENAI_KEY` (a
`KEY` word needed `API`, `SECRET` or `PRIVATE` before it), the password of
`DATABASE_URL` (a URL's password was taken out only for MCP servers) and the
`private_key` of `GOOGLE_CREDENTIALS` (a service-account JSON: only its exact minified
text was a secret, so the same key file pretty-printed showed it) went to the model
through `read_file .env`, which asks no approval. The rule now takes any `KEY` part,
`PAT`, `AUTH`, `DSN`, webhooks and connection strings, looks inside every value for a
URL's password, a JSON document's credential fields and a connection string's keys; and
leaves alone names that only say where a credential is (`*_KEY_PATH`, `GPG_KEY_ID`),
public keys and setting words, whose redaction would blank ordinary output.

A ninth attack: plural names (`API_KEYS`, `DB_PASSWORDS`, `APP_SECRETS`, `SLACK_TOKENS`)
and GitLab's `CI_JOB_JWT` / `CI_JOB_JWT_V2` were no credential names; printed from
`/proc/$PPID/environ` they all reached the API. So did a PEM private key held in a
variable of an ordinary name (`GITHUB_APP_PEM`): a private key block inside any value is
now a secret, as a URL's password is.

A twenty-seventh attack: `REGISTRY_CREDS`, `GCP_SA_CREDS` (`CREDS` for `CREDENTIALS`) and
WordPress's `AUTH_SALT` were printed by `env`, and the path `GOOGLE_APPLICATION_CREDENTIALS`
held was hidden in docker-compose.yml: a path under a credential name is no secret now.
"""

from __future__ import annotations

import base64
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from e2e_support import build_env, run_piped, run_scripted
from fake_anthropic import (
    Reply,
    start_fake_server,
    text_block,
    tool_result_texts,
    tool_use_block,
)
from hostile_support import McpServer, recoverable_secrets
from test_hostile_multiline_secrets import pieces_in
from tools_support import FakeArtifactStore

from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools import Toolbox
from agent_cli.tools.credential_names import is_credential_name
from agent_cli.tools.redaction import collect_mcp_secret_values, collect_secret_values

KEY = "sk-ant-FAKE-names-0123456789abcdef"
SERVICE_ROLE = "eyJhbGciOiJIUzI1NiJ9.c2VydmljZV9yb2xlX2tleQ.Qx7Rk2mXv9Lp"
MASTER_KEY = "9f86d081884c7d659a2feaa0c55ad015"
AZURE_KEY = "3c59dc048e8850243be8079a5c74d079"
DB_PASSWORD = "pg_Zq7Rk2mXv9LpW4tY"
PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7Zq7Rk2mXv9LpW4tYc8NbH3sJd6"
SERVICE_ACCOUNT = {
    "type": "service_account",
    "project_id": "demo-project",
    "private_key_id": "0123456789abcdef0123456789abcdef01234567",
    "private_key": f"-----BEGIN PRIVATE KEY-----\n{PEM_BODY}\n-----END PRIVATE KEY-----\n",
    "client_email": "ci-deployer@demo-project.iam.gserviceaccount.com",
    "client_id": "112233445566778899001",
}


def read(tool_id: str, path: str) -> Reply:
    return Reply([tool_use_block(tool_id, "read_file", {"path": path})], stop_reason="tool_use")


@pytest.mark.e2e
def test_read_file_of_the_env_and_a_key_file_sends_none_of_the_environments_credentials(
    tmp_path,
):
    """The attack as a user meets it: the installed agent-cli, the real SDK, the fake
    Messages API; the model reads `.env` and the service account's key file."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    variables = {
        "SUPABASE_SERVICE_ROLE_KEY": SERVICE_ROLE,
        "RAILS_MASTER_KEY": MASTER_KEY,
        "AZURE_OPENAI_KEY": AZURE_KEY,
        "DATABASE_URL": f"postgres://app:{DB_PASSWORD}@db.internal:5432/prod",
        "SSH_KEY_PATH": "/home/someone/.ssh/id_deploy",
    }
    (workspace / ".env").write_text("".join(f"{k}={v}\n" for k, v in variables.items()))
    (workspace / "sa.json").write_text(json.dumps(SERVICE_ACCOUNT, indent=2))
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(read("toolu_1", ".env"), read("toolu_2", "sa.json"))
        fake.enqueue(Reply([text_block("Read both.")]))
        minified = json.dumps(SERVICE_ACCOUNT, separators=(",", ":"))
        extra = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url}
        env = build_env(home, {**extra, **variables, "GOOGLE_CREDENTIALS": minified})
        done = run_piped([], cwd=workspace, env=env, stdin_text="read .env and sa.json\n")
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    dotenv, key_file = tool_result_texts(bodies[-1])
    assert f"SUPABASE_SERVICE_ROLE_KEY={REDACTED_MARK}" in dotenv
    assert f"RAILS_MASTER_KEY={REDACTED_MARK}" in dotenv
    assert f"AZURE_OPENAI_KEY={REDACTED_MARK}" in dotenv
    assert f"DATABASE_URL=postgres://app:{REDACTED_MARK}@db.internal:5432/prod" in dotenv
    assert "SSH_KEY_PATH=/home/someone/.ssh/id_deploy" in dotenv  # a path: no secret
    assert f'"private_key": "{REDACTED_MARK}\\n"' in key_file  # the line break it ends with
    assert SERVICE_ACCOUNT["client_email"] in key_file  # what is no credential stays
    secrets = (SERVICE_ROLE, MASTER_KEY, AZURE_KEY, DB_PASSWORD, PEM_BODY, KEY)
    _assert_sent_and_stored_without(secrets, bodies, home)
    assert recoverable_secrets(done.stdout + done.stderr, secrets) == set()


VALUE = "Zq7Rk2mXv9LpW4tYc8Nb"


@pytest.mark.parametrize(
    "name",
    [
        "SUPABASE_SERVICE_ROLE_KEY",
        "SUPABASE_KEY",
        "RAILS_MASTER_KEY",
        "APP_KEY",
        "AZURE_OPENAI_KEY",
        "AZURE_STORAGE_KEY",
        "AZURE_STORAGE_CONNECTION_STRING",
        "STRIPE_KEY",
        "OPENAI_KEY",
        "ENCRYPTION_KEY",
        "SIGNING_KEY",
        "MASTER_KEY",
        "LICENSE_KEY",
        "GITHUB_PAT",
        "SENTRY_DSN",
        "SLACK_WEBHOOK_URL",
        "DISCORD_WEBHOOK",
        "BASIC_AUTH",
        "VAULT_SECRET_ID",
        "SECRET_KEY_BASE",
        "signing_key",
        # a ninth outside attack: plural words, and JWTs
        "API_KEYS",
        "OPENAI_API_KEYS",
        "ALLOWED_API_KEYS",
        "SLACK_TOKENS",
        "APP_SECRETS",
        "JWT_SECRETS",
        "DB_PASSWORDS",
        "DB_PASSWDS",
        "MYSQL_PWDS",
        "CI_JOB_JWT",
        "CI_JOB_JWT_V2",
        "SERVICE_JWT",
        "apiKeys",
        "accessTokens",
    ],
)
def test_a_credential_of_a_common_service_is_redacted_from_a_file(tmp_path, name):
    assert collect_secret_values({name: VALUE}) == (VALUE,)
    (tmp_path / ".env").write_text(f"{name}={VALUE}\n")
    box = Toolbox(
        tmp_path, FakeArtifactStore(), "s1", auto_approve=True, secret_environment={name: VALUE}
    )
    shown = box.run("read_file", {"path": ".env"}).content
    assert VALUE not in shown and f"{name}={REDACTED_MARK}" in shown


@pytest.mark.parametrize(
    ("name", "url", "password"),
    [
        ("DATABASE_URL", "postgres://app:{}@db.internal:5432/prod", "pg_Zq7Rk2mXv9Lp"),
        ("REDIS_URL", "redis://:{}@cache.internal:6379/0", "rd_Zq7Rk2mXv9Lp"),
        ("MONGODB_URI", "mongodb+srv://app:{}@cluster0.x.mongodb.net/?w=1", "mg_Zq7Rk2mXv9"),
        ("HTTPS_PROXY", "http://someone:{}@proxy.internal:3128", "px_Zq7Rk2mXv9Lp"),
        ("ELASTIC_URL", "https://es.internal/?api_key={}", "es_Zq7Rk2mXv9Lp"),
    ],
)
def test_the_password_of_a_url_in_the_environment_is_a_secret_on_its_own(
    tmp_path, name, url, password
):
    """The password also sits alone in the project: `POSTGRES_PASSWORD`, `.pgpass`."""
    environment = {name: url.format(password), "PATH": os.environ["PATH"]}
    assert collect_secret_values(environment) == (password,)
    (tmp_path / "compose.yml").write_text(f'POSTGRES_PASSWORD: "{password}"\n')
    box = Toolbox(
        tmp_path, FakeArtifactStore(), "s1", auto_approve=True, secret_environment=environment
    )
    shown = box.run("bash", {"command": "cat compose.yml"}).content
    assert password not in shown and f'POSTGRES_PASSWORD: "{REDACTED_MARK}"' in shown


def test_a_json_credential_gives_each_credential_field_as_a_secret_of_its_own(tmp_path):
    minified = json.dumps(SERVICE_ACCOUNT, separators=(",", ":"))
    found = set(collect_secret_values({"GOOGLE_CREDENTIALS": minified}))
    key = SERVICE_ACCOUNT["private_key"].strip()
    # the key block is also found as the JSON text holds it (its breaks written `\n`)
    assert found == {minified, key, json.dumps(key)[1:-1]}
    headers = json.dumps({"Authorization": "Bearer ntn_Zq7Rk2mXv9LpW4tY", "Notion-Version": "x"})
    docker = json.dumps({"auths": {"ghcr.io": {"auth": "c29tZW9uZTpxd2VydHkxMjM0"}}})
    found = set(collect_secret_values({"SERVICE_HEADERS": headers, "DOCKER_AUTH_CONFIG": docker}))
    assert found == {
        "Bearer ntn_Zq7Rk2mXv9LpW4tY",
        "ntn_Zq7Rk2mXv9LpW4tY",
        "c29tZW9uZTpxd2VydHkxMjM0",
        "someone:qwerty1234",  # what the auth decodes to, and its password (session 33)
        "qwerty1234",
    }


def test_a_json_value_nested_past_the_parser_stops_nothing_and_gives_its_written_credentials():
    """`[` 20,000 deep in a variable, an MCP server's env or its args crashed every start
    with RecursionError (json.loads in the credential scan). Now such a value, or one cut
    short, is read pair by pair: its credential-named pairs are found, nothing raises."""
    deep = "[" * 20_000 + "]" * 20_000
    token = "Zq7Rk2mXv9LpW4tYc8NbH"
    holding = '{"a": ' + "[" * 20_000 + f'{{"client_secret": "{token}"}}' + "]" * 20_000 + "}"
    assert collect_secret_values({"APP_SETTINGS": deep}) == ()
    assert collect_secret_values({"APP_SETTINGS": holding}) == (token,)
    assert collect_secret_values({"APP_SETTINGS": f'{{"password": "{token}", '}) == (token,)
    server = McpServer(env={"APP_SETTINGS": holding, "OTHER": deep}, args=("--config", deep))
    assert collect_mcp_secret_values([server], {}) == (token,)


def test_the_key_of_a_connection_string_is_a_secret_of_its_own():
    account_key = "Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4=="
    storage = (
        "DefaultEndpointsProtocol=https;AccountName=demo;"
        f"AccountKey={account_key};EndpointSuffix=core.windows.net"
    )
    sql = "Server=tcp:db.internal,1433;Database=app;User Id=app;Password=sq_Zq7Rk2mXv9;"
    found = set(collect_secret_values({"ConnectionStrings__Storage": storage, "SQL": sql}))
    # this stand-in key is base64 of text, so what it decodes to is learned too (session 33)
    assert found == {account_key, "foobarbazquxfoobarbazqux", "sq_Zq7Rk2mXv9"}


def test_names_that_say_where_a_credential_is_public_keys_and_settings_are_no_secret():
    """Redacting these would blank paths, ids and words in every tool result."""
    environment = {
        "KEYBOARD": "us-international",
        "KEYMAP": "emacs-standard",
        "XKB_DEFAULT_LAYOUT": "us,de-nodeadkeys",
        "SSH_AUTH_SOCK": "/run/user/1000/keyring/ssh",
        "SSH_KEY_PATH": "/home/someone/.ssh/id_deploy",
        "DEPLOY_KEY_FILE": "/home/someone/.ssh/deploy_key",
        "POSTGRES_PASSWORD_FILE": "/run/secrets/postgres-password",
        "AWS_WEB_IDENTITY_TOKEN_FILE": "/var/run/secrets/eks/serviceaccount/token",
        "GPG_KEY_ID": "0123456789ABCDEF",
        "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
        "AWS_KMS_KEY_ARN": "arn:aws:kms:eu-west-1:111122223333:key/abcd",
        "SSH_PUBLIC_KEY": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG someone@host",
        "STRIPE_PUBLISHABLE_KEY": "pk_live_0123456789abcdef",
        "GIT_TOKEN_HELPER": "/usr/local/bin/git-credential-store",
        "OAUTH_TOKEN_ENDPOINT": "https://auth.example.com/oauth/token",
        "API_KEY_HEADER": "X-Service-Api-Key",
        "OPENAI_API_KEY_ENV": "OPENAI_API_KEY",
        "HTTP_BASIC_AUTH": "disabled",
        "SIGNING_KEY": "required",
        "TOKENIZERS_PARALLELISM": "false-but-long",
        "HOME_URL": "https://example.com/start?page=1",
        "SETTINGS_JSON": '{"theme": "dark-high-contrast", "keymap": "vim-bindings"}',
        "JWT_ISSUER": "https://gitlab.example.com",
        "CI_JOB_JWT_AUDIENCE": "https://vault.example.com",
        "SSH_AUTHORIZED_KEYS": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG someone@host",
        "API_KEYS_FILE": "/run/secrets/api-keys.txt",
        "SECRETS_DIR": "/run/secrets/app-secrets",
        "MAX_OUTPUT_TOKENS": "128000000",
        "OPENAI_MAX_TOKENS": "4096000000",
    }
    assert collect_secret_values(environment) == ()


PLURAL_AND_JWT = {
    "API_KEYS": "sk-live-Plural0123456789abcdef,sk-live-Second0123456789abcdef",
    "DB_PASSWORDS": "PluralDbPassw0rd-9f3k2",
    "APP_SECRETS": "PluralAppSecret-77ab90cd",
    "SLACK_TOKENS": "xoxb-1111-2222-PluralSlackToken",
    "CI_JOB_JWT": "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJqb2IifQ.SignaturePart0123456789",
    "CI_JOB_JWT_V2": "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ2MiJ9.SignaturePartV2abcdef",
}


@pytest.mark.e2e
def test_plural_and_jwt_credentials_read_from_the_agents_environment_reach_no_request(
    tmp_path,
):
    """The ninth attack as it ran: the installed agent-cli with `--yes`, the real SDK and
    the fake API; bash prints the variables from agent-cli's own `/proc/<pid>/environ`."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    names = "|".join(PLURAL_AND_JWT)
    command = f"tr '\\0' '\\n' </proc/$PPID/environ | grep -E '^({names})='"
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(Reply([tool_use_block("toolu_1", "bash", {"command": command})], "tool_use"))
        fake.enqueue(Reply([text_block("Printed.")]))
        extra = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url}
        env = build_env(home, {**extra, **PLURAL_AND_JWT})
        done = run_piped(["--yes"], cwd=workspace, env=env, stdin_text="show the env\n")
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    (printed,) = tool_result_texts(bodies[-1])
    for name in PLURAL_AND_JWT:
        assert f"{name}={REDACTED_MARK}" in printed, printed
    secrets = tuple(PLURAL_AND_JWT.values())
    _assert_sent_and_stored_without(secrets, bodies, home)


def test_the_environment_and_mcp_servers_take_credential_names_by_one_rule():
    """config.toml's `env` for an MCP server, and a credential-named flag in its `args`,
    give the same secrets as agent-cli's own environment does."""
    names = [*PLURAL_AND_JWT, "JWT_ISSUER", "MAX_OUTPUT_TOKENS", "SSH_AUTHORIZED_KEYS"]
    for name in names:
        environment = {name: VALUE}
        flag = "--" + name.lower().replace("_", "-")
        server = McpServer(env=environment, args=(flag, VALUE))
        expected = (VALUE,) if is_credential_name(name) else ()
        assert collect_secret_values(environment) == expected, name
        assert collect_mcp_secret_values([McpServer(env=environment)], {}) == expected, name
        assert collect_mcp_secret_values([McpServer(args=(flag, VALUE))], {}) == expected, name
        assert collect_mcp_secret_values([server], {}) == expected, name
    assert all(is_credential_name(name) for name in PLURAL_AND_JWT)


TOKENS = [f"tok{n}-Zq7Rk2mXv9LpW4tYc8NbH{n}" for n in range(6)]


def test_the_credential_of_an_authorization_written_anywhere_is_a_secret_whatever_the_name():
    """Eighteenth outside attack: mcp-remote's own set-up passes the header through a
    variable of a plain name (`env = { AUTH_HEADER = "Bearer …" }`, `--header
    Authorization:${AUTH_HEADER}`), and a server may take `Bearer …` or a whole
    `Authorization: Bearer …` as a plain argument: none was hidden, nor a token in the
    command itself or one that is a segment of the server's URL path (Zapier's
    `/mcp/<key>/sse`). The environment and `.env` files are read by the same rule."""
    servers = [
        McpServer(env={"AUTH_HEADER": f"Bearer {TOKENS[0]}"}),
        McpServer(args=("serve", f"bearer {TOKENS[1]}", f"Authorization: Token {TOKENS[2]}")),
        McpServer(command=f"npx --token {TOKENS[3]}"),
        McpServer(url=f"https://actions.example.com/mcp/{TOKENS[4]}/sse"),
        McpServer(env={"HEADERS": f"X-Trace: 1\nProxy-Authorization: Basic {TOKENS[5]}"}),
    ]
    assert set(TOKENS) <= set(collect_mcp_secret_values(servers, {}))
    assert TOKENS[0] in collect_secret_values({"AUTH_HEADER": f"Bearer {TOKENS[0]}"})
    assert collect_secret_values({"BEARER": TOKENS[1]}) == (TOKENS[1],)  # the token alone
    plain = [
        McpServer(env={"GREETING": "Bearer of good news"}, args=("--bearer", "yes")),
        McpServer(url="https://example.com/mcp/v1/sse", command="npx -y server-everything"),
        McpServer(url="https://example.com/v1/python3-requests-adapter/sse"),
    ]
    assert collect_mcp_secret_values(plain, {}) == ()
    prose = {  # (second round) each hid its longer words in every result
        "MOTD": "Basic configuration complete, see the basic information.",
        "NOTE": "authorization: handled by the gateway",
        "DOCS": "Authorization = see documentation",
    }
    assert collect_secret_values(prose) == ()


def private_key(label: str, seed: int) -> str:
    body = base64.b64encode(random.Random(seed).randbytes(240)).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return "\n".join([f"-----BEGIN {label}-----", *lines, f"-----END {label}-----"])


KEY_LABELS = (
    "RSA PRIVATE KEY",
    "EC PRIVATE KEY",
    "DSA PRIVATE KEY",
    "OPENSSH PRIVATE KEY",
    "ENCRYPTED PRIVATE KEY",
    "PRIVATE KEY",
    "PGP PRIVATE KEY BLOCK",
)
CERTIFICATE = private_key("CERTIFICATE", 99)  # the same armour, no secret


@pytest.mark.parametrize("label", KEY_LABELS)
def test_a_private_key_block_in_any_value_is_a_secret_whatever_the_name(label):
    """Env values and an MCP server's `env` values alike: the block alone, after a
    certificate (a TLS bundle), and on one line with its breaks written `\\n` (`.env`)."""
    key = private_key(label, len(label))
    one_line = key.replace("\n", "\\n")
    for value, expected in (
        (key + "\n", {key}),
        (f"{CERTIFICATE}\n{key}\n", {key}),
        (one_line, {one_line, key}),
        (key.rsplit("\n", 1)[0], {key.rsplit("\n", 1)[0]}),  # its END line cut off
    ):
        assert set(collect_secret_values({"GITHUB_APP_PEM": value})) == expected
        servers = [McpServer(env={"TLS_BUNDLE": value})]
        assert set(collect_mcp_secret_values(servers, {})) == expected
    assert collect_secret_values({"TLS_CERT": CERTIFICATE, "SSH_PUBLIC": "ssh-ed25519 AAAA"}) == ()


@pytest.mark.e2e
def test_a_private_key_in_a_variable_of_any_name_reaches_no_request(tmp_path):
    """The ninth attack: `GITHUB_APP_PEM` (RSA) and `TLS_BUNDLE` (a certificate, then an EC
    key) in agent-cli's environment; bash prints them from `/proc/<pid>/environ` and the
    model reads the same bundle from the workspace. No line of either key, nor half of
    one, reaches a request or a file under AGENT_CLI_HOME; the certificate stays."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    (workspace / "deploy").mkdir(parents=True)
    app_key, tls_key = private_key("RSA PRIVATE KEY", 1), private_key("EC PRIVATE KEY", 2)
    bundle = f"{CERTIFICATE}\n{tls_key}\n"
    (workspace / "deploy" / "bundle.pem").write_text(bundle)
    printed = (
        "printf '%s\\n' \"$(tr '\\0' '\\n' </proc/$PPID/environ"
        " | sed -n '/^GITHUB_APP_PEM=/,/END RSA/p;/^TLS_BUNDLE=/,/END EC/p')\""
    )
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(Reply([tool_use_block("toolu_1", "bash", {"command": printed})], "tool_use"))
        fake.enqueue(read("toolu_2", "deploy/bundle.pem"))
        fake.enqueue(Reply([text_block("Seen.")]))
        extra = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url}
        variables = {"GITHUB_APP_PEM": app_key, "TLS_BUNDLE": bundle}
        env = build_env(home, {**extra, **variables})
        done = run_piped(["--yes"], cwd=workspace, env=env, stdin_text="show the keys\n")
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    from_environ, from_file = tool_result_texts(bodies[-1])
    for shown in (from_environ, from_file):
        assert "redacted from this output" in shown and CERTIFICATE.split("\n")[1] in shown
    texts = [json.dumps(body) for body in bodies]
    texts += [
        path.read_bytes().decode("utf-8", "replace") for path in home.rglob("*") if path.is_file()
    ]
    texts.append(done.stdout + done.stderr)
    for key in (app_key, tls_key):
        for text in texts:
            assert pieces_in(text.replace("\\n", "\n"), key) == []


CUT_SHORT_CREDENTIALS = {
    "REGISTRY_CREDS": "deploy:s9YxQ2vLkP4wTz8nB",
    "GCP_SA_CREDS": "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1u",
    "AUTH_SALT": "k7#Qz!m2Vw@9xL$p4Rt&8Yb^3Nc*6Hd",
}
CREDENTIAL_PATHS = {
    "GOOGLE_APPLICATION_CREDENTIALS": "/home/dev/keys/gcp-sa-prod-2024.json",
    "SSH_KEY": "/home/dev/.ssh/id_ed25519_deploy2024",
}


@pytest.mark.e2e
def test_credentials_cut_short_reach_no_request_and_a_credentials_path_stays_readable(
    tmp_path,
):
    """The twenty-seventh attack as it ran: `--yes`, the real SDK and the fake API; bash
    prints the variables, then the model reads a docker-compose.yml that mounts the key
    files the two path-valued variables name. The `*_CREDS` and `*_SALT` values are
    redacted; the paths are shown as they are, so the model can edit the lines."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    volumes = "".join(f"      - {path}:/mnt/{name}:ro\n" for name, path in CREDENTIAL_PATHS.items())
    (workspace / "docker-compose.yml").write_text(f"services:\n  app:\n    volumes:\n{volumes}")
    variables = {**CUT_SHORT_CREDENTIALS, **CREDENTIAL_PATHS}
    command = f"env | grep -E '^({'|'.join(variables)})=' | sort"
    replies = [
        Reply([tool_use_block("toolu_1", "bash", {"command": command})], "tool_use"),
        read("toolu_2", "docker-compose.yml"),
        Reply([text_block("Read.")]),
    ]
    done, bodies = run_scripted(home, workspace, KEY, replies, environment=variables)
    assert done.returncode == 0, done.stderr
    printed, compose = tool_result_texts(bodies[-1])
    for name in CUT_SHORT_CREDENTIALS:
        assert f"{name}={REDACTED_MARK}" in printed, printed
    for name, path in CREDENTIAL_PATHS.items():
        assert f"{name}={path}" in printed, printed
        assert f"- {path}:/mnt/{name}:ro" in compose, compose
    assert REDACTED_MARK not in compose
    secrets = (*CUT_SHORT_CREDENTIALS.values(), "s9YxQ2vLkP4wTz8nB", KEY)
    _assert_sent_and_stored_without(secrets, bodies, home)


def _assert_sent_and_stored_without(
    secrets: tuple[str, ...], bodies: list[Any], home: Path
) -> None:
    """No request body and no file under `home` holds any of `secrets` in a form it can
    be read back from (`recoverable_secrets`)."""
    for where, body in enumerate(bodies):
        assert recoverable_secrets(json.dumps(body), secrets) == set(), f"request {where}"
    for path in home.rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            assert recoverable_secrets(text, secrets) == set(), path


def test_a_credential_flag_with_one_dash_or_a_flags_credential_pair_gives_its_value():
    """Twenty-fifth outside attack: `-token X`, `-apikey X` (Go's flag package) and
    `--env=GITHUB_TOKEN=X` (docker) gave no secret; `-token=X` and `--env GITHUB_TOKEN=X`
    did. Every spelling now does, and ordinary flags and pairs give none."""
    for args in (
        ("-token", VALUE),
        ("-apikey", VALUE),
        ("-password", VALUE),
        ("-token=" + VALUE,),
        ("--env=GITHUB_TOKEN=" + VALUE,),
        ("-e=GITHUB_TOKEN=" + VALUE,),
        ("--build-arg=NPM_TOKEN=" + VALUE,),
        ("--env", "GITHUB_TOKEN=" + VALUE),
    ):
        assert collect_mcp_secret_values([McpServer(args=args)], {}) == (VALUE,), args
    ordinary = ("-v", "-port", "8080", "-config", "settings.toml", "--env=LOG_LEVEL=debug")
    ordinary += ("-token", "--verbose", "--label=a=b=c", "--x==y")
    assert collect_mcp_secret_values([McpServer(args=ordinary)], {}) == ()
