"""A credential header written inside a value is a secret in every form it is written,
and a header line of settings, ids or placeholders is none (twenty-fifth session, second
outside attack).

The attack: `Cookie: sid="<Q>"` (a quoted cookie value), `.env`'s `Set-Cookie:
sid="<J>"; Path=/`, `curl -H "Cookie: session=\\"<F>\\""` (only `session=\\` was
blanked), `X-API-Key: <E>\\nAccept: application/json` with `\\n` written literally,
`EXTRA_HEADERS={'X-API-Key': '<H>'}` and `OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=<G>,
...` reached the model. And the other way: `.env` values `"Cookie: tz=Europe/Berlin;
consent=accepted-all"`, `"X-RateLimit-Key: ip-address"`, `"Jira-Key: PROJ-1234"`,
`"X-API-Key: YOUR_API_KEY"` blanked `Europe/Berlin`, `ip-address`, `PROJ-1234` and
`YOUR_API_KEY` in every result.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_result_texts, tool_use_block
from hostile_support import McpServer, recoverable_secrets

from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools.dotenv_syntax import parse_dotenv
from agent_cli.tools.header_lines import credential_cookies, has_key_shape
from agent_cli.tools.redaction import collect_mcp_secret_values, collect_secret_values
from agent_cli.tools.workspace_secrets import DotenvFile, WorkspaceDotenv, find_dotenv_secrets

Q = "Qs7kP2vX9mN4bL6tR8wZ1yC3quotedCookie"
E = "Xk4pL9vQ2mW7nB3tR6yZ8cD1escapedNewline"
F = "Hq3wE8rT5yU1iO7pA2sD4fG6dotenvQuotedCk"
G = "Ot9LhDr5Pw2Nv7Bx4Kz1Mq6Sotelheaders"
H = "Dk2Mq7Zp4Lx9Wv3Nb8Rt1Ys6PyDictLiteral"
J = "Sc5Vb8Nm1Qw4Er7Ty2Ui9OpSetCookieQuoted"


def found_by_every_reader(name: str, value: str) -> list[set[str]]:
    """What the environment, a dotenv file (its value quoted so it reads as written)
    and an MCP server's `env` each take as secret of `name=value`."""
    quote = "'" if "'" not in value else '"'
    dotenv = WorkspaceDotenv((DotenvFile(".env", parse_dotenv(f"{name}={quote}{value}{quote}\n")),))
    return [
        set(collect_secret_values({name: value})),
        set(find_dotenv_secrets(dotenv, "").values),
        set(collect_mcp_secret_values([McpServer(env={name: value})], {})),
    ]


@pytest.mark.parametrize(
    ("name", "value", "secret"),
    [
        ("E2E_REQUEST_HEADERS", f'Cookie: sid="{Q}"', Q),
        ("FIXTURE_RESPONSE", f'Set-Cookie: sid="{J}"; Path=/; HttpOnly', J),
        ("SMOKE_CURL", f'curl -s -H "Cookie: session=\\"{F}\\"" https://app.example.com/me', F),
        ("API_HEADERS", f"X-API-Key: {E}\\nAccept: application/json", E),
        ("API_HEADERS", f"Accept: application/json\\r\\nX-API-Key: {E}", E),
        ("EXTRA_HEADERS", f"{{'X-API-Key': '{H}'}}", H),
        ("EXTRA_HEADERS", f'{{"X-API-Key": "{H}", "Accept": "text/plain"', H),
        ("OTEL_EXPORTER_OTLP_HEADERS", f"x-honeycomb-team={G},x-honeycomb-dataset=web", G),
        ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", f"Authorization=Bearer%20{G}", G),
    ],
)
def test_a_credential_header_in_every_written_form_is_a_secret_by_every_reader(name, value, secret):
    for found in found_by_every_reader(name, value):
        assert secret in found, (value, found)


@pytest.mark.parametrize(
    "value",
    [
        "Cookie: tz=Europe/Berlin; consent=accepted-all",
        "X-RateLimit-Key: ip-address",
        "Jira-Key: PROJ-1234",
        "X-API-Key: YOUR_API_KEY",
        "X-API-Key: <your-api-key>",
        "X-API-Key: {{api_key}}",
        "Private-Token: xxxxxxxxxxxxxxxxxxxx",
        "Cookie: session=$SESSION_ID",
        "Set-Cookie: theme=dark-mode-classic; Path=/",
        "X-Api-Key: /run/secrets/api-key-2024",
    ],
)
def test_a_header_line_of_a_setting_an_id_or_a_placeholder_holds_no_credential(value):
    assert [found for found in found_by_every_reader("E2E_DEFAULT_HEADERS", value) if found] == []


def test_a_header_list_of_no_credential_holds_none():
    value = "x-honeycomb-dataset=web-frontend,x-scope-orgid=tenant-1,content-type=text/plain"
    found = found_by_every_reader("OTEL_EXPORTER_OTLP_HEADERS", value)
    assert [secrets for secrets in found if secrets] == []


def test_a_key_has_letters_and_digits_or_mixed_case_and_no_placeholders_shape():
    assert has_key_shape("a1b2c3d4e5f6") and has_key_shape("AbCdEfGhIjKlMnOpQrSt")
    for word in (
        "PROJ-1234",
        "ip-address",
        "Europe/Berlin",
        "YOUR_API_KEY",
        "AKIAIOSFODNN7EXAMPLE",
    ):
        assert not has_key_shape(word), word


def test_a_cookie_is_a_credential_by_a_session_name_or_a_keys_shape():
    header = f"tz=Europe/Berlin; PHPSESSID=abc; prefs={Q}; consent=accepted-all"
    assert credential_cookies("Cookie", header) == ["abc", Q]
    assert credential_cookies("Set-Cookie", f'theme=dark; sid="{J}"') == []


DOTENV = f"""APP_NAME=shop
E2E_DEFAULT_HEADERS="Cookie: tz=Europe/Berlin; consent=accepted-all"
RATE_LIMIT_HEADER_LINE="X-RateLimit-Key: ip-address"
COMMIT_TRAILER="Jira-Key: PROJ-1234"
DOCS_SAMPLE="X-API-Key: YOUR_API_KEY"
SMOKE_CURL='curl -s -H "Cookie: session=\\"{F}\\"" https://app.example.com/me'
EXTRA_HEADERS={{'X-API-Key': '{H}'}}
FIXTURE_RESPONSE='Set-Cookie: sid="{J}"; Path=/; HttpOnly'
"""


@pytest.mark.e2e
def test_written_headers_reach_no_request_and_their_settings_stay_visible(tmp_path: Path) -> None:
    key = "sk-ant-FAKE-hdr-0123456789abcdef"
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    workspace.mkdir()
    (workspace / ".env").write_text(DOTENV, encoding="utf-8")
    environment = {
        "E2E_REQUEST_HEADERS": f'Cookie: sid="{Q}"',
        "API_HEADERS": f"X-API-Key: {E}\\nAccept: application/json",
        "OTEL_EXPORTER_OTLP_HEADERS": f"x-honeycomb-team={G},x-honeycomb-dataset=web",
    }
    command = "env | grep -E '^(E2E_REQUEST|API|OTEL_EXPORTER_OTLP)_HEADERS=' ; cat .env"
    with start_fake_server(api_key=key) as fake:
        fake.enqueue(
            Reply(
                [tool_use_block("toolu_1", "bash", {"command": command})], stop_reason="tool_use"
            ),
            Reply([text_block("done.")]),
        )
        extra = {"ANTHROPIC_API_KEY": key, "ANTHROPIC_BASE_URL": fake.base_url}
        done = run_piped(
            ["--yes"],
            cwd=workspace,
            env=build_env(home, {**extra, **environment}),
            stdin_text="go\n",
        )
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    (shown,) = tool_result_texts(bodies[-1])
    for setting in ("Europe/Berlin", "accepted-all", "ip-address", "PROJ-1234", "YOUR_API_KEY"):
        assert setting in shown, setting
    assert f"x-honeycomb-team={REDACTED_MARK},x-honeycomb-dataset=web" in shown
    secrets = (Q, E, F, G, H, J, key)
    assert recoverable_secrets(json.dumps(bodies), secrets) == set()
    for path in home.rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            assert recoverable_secrets(text, secrets) == set(), path
    assert recoverable_secrets(done.stdout + done.stderr, secrets) == set()
