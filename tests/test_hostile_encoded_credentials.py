"""A credential kept in base64 in a dotenv file is hidden when a command decodes it.

Found by session 33's outside-style attack: CI set-ups keep a service-account key, a
registry's `user:password` or a kubeconfig in base64 (`GCP_SA_KEY`, `REGISTRY_AUTH`,
`KUBECONFIG_DATA`, Docker's `auths.*.auth`). Each value was hidden, in every form; but
`grep GCP_SA_KEY .env | cut -d= -f2 | base64 -d` printed the secret itself, which is no
form of the value: the whole private key, the password, the kubeconfig's token went to
the model. What a credential decodes to is the credential (`credentials.decoded_credentials`).

The commands are the real programs run as the `bash` tool of a `Toolbox` given the
workspace's dotenv secrets as a session reads them at start.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from tools_support import make_toolbox

from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.session.dotenv_secrets import load_dotenv_secrets
from agent_cli.tools import Toolbox
from agent_cli.tools.credentials import decoded_credentials
from agent_cli.tools.redaction import collect_mcp_secret_values, find_secrets

PEM_LINES = [
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7q2mZp4Xy1Lw9",
    "Tg3vN8hR2sK6dJ0fQ5uY7bW1cE4aZ9xM3nP8oL2iH6gF0eD5rS7tU1vW3yX4zA6",
    "bC8dE0fG2hI4jK6lM8nO0pQ2rS4tU6vW8xY0zA2bC4dE6fG8hI0jK2lM4nO6pQ8",
]
PRIVATE_KEY = "\n".join(["-----BEGIN PRIVATE KEY-----", *PEM_LINES, "-----END PRIVATE KEY-----"])
SERVICE_ACCOUNT = json.dumps(
    {
        "type": "service_account",
        "project_id": "demo-project",
        "private_key": PRIVATE_KEY + "\n",
        "client_email": "ci@demo-project.iam.gserviceaccount.com",
    }
)
REGISTRY_PASSWORD = "Rg7tLq2ZpX9wVb4N"
DOCKER_PASSWORD = "wfh0mP89yvpZyc2pRYiH"
KUBE_TOKEN = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzYTpkZWZhdWx0In0.Qm9ndXNTaWduYXR1cmU4Mjc0"
KUBECONFIG = f"apiVersion: v1\nkind: Config\nusers:\n- name: ci\n  user:\n    token: {KUBE_TOKEN}\n"


def encoded(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def toolbox(workspace: Path) -> Toolbox:
    """A toolbox that hides the workspace's dotenv secrets, read as a session reads them
    at start (`load_dotenv_secrets`)."""
    environment = {"PATH": "/usr/bin:/bin"}
    values, _, _ = load_dotenv_secrets(workspace, environment)
    return make_toolbox(workspace, secret_environment=environment, extra_secrets=values)


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    auths = {"auths": {"registry.example.com": {"auth": encoded(f"ci:{DOCKER_PASSWORD}")}}}
    (tmp_path / ".env").write_text(
        f"GCP_SA_KEY={encoded(SERVICE_ACCOUNT)}\n"
        f"REGISTRY_AUTH={encoded(f'ci-bot:{REGISTRY_PASSWORD}')}\n"
        f"KUBECONFIG_DATA={encoded(KUBECONFIG)}\n"
        f"DOCKER_AUTH_CONFIG='{json.dumps(auths)}'\n"
    )
    return tmp_path


PY_PRIVATE_KEY = "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"private_key\"])'"


@pytest.mark.parametrize(
    ("command", "secrets"),
    [
        (f"grep GCP_SA_KEY .env | cut -d= -f2 | base64 -d | {PY_PRIVATE_KEY}", PEM_LINES),
        ("grep GCP_SA_KEY .env | cut -d= -f2 | base64 -d", PEM_LINES),
        ("grep REGISTRY_AUTH .env | cut -d= -f2 | base64 -d", [REGISTRY_PASSWORD]),
        (
            "grep REGISTRY_AUTH .env | cut -d= -f2 | base64 -d | cut -d: -f2",
            [REGISTRY_PASSWORD],
        ),
        ("grep KUBECONFIG_DATA .env | cut -d= -f2- | base64 -d", [KUBE_TOKEN]),
        (
            "grep KUBECONFIG_DATA .env | cut -d= -f2- | base64 -d | grep token",
            [KUBE_TOKEN],
        ),
        (
            'grep -o \'"auth": "[^"]*\' .env | cut -d\'"\' -f4 | base64 -d',
            [DOCKER_PASSWORD],
        ),
    ],
    ids=[
        "sa-private-key",
        "sa-json",
        "registry",
        "registry-password",
        "kubeconfig",
        "kube-token-line",
        "docker-auth",
    ],
)
def test_a_credential_kept_in_base64_is_hidden_when_a_command_decodes_it(
    workspace: Path, command: str, secrets: list[str]
) -> None:
    content = toolbox(workspace).run("bash", {"command": command}).content
    assert REDACTED_MARK in content, content
    for secret in secrets:
        assert secret not in content, (command, content)


def test_what_a_credential_decodes_to_is_read_inside_else_whole() -> None:
    found = set(decoded_credentials(encoded(SERVICE_ACCOUNT)))
    # the key's JSON holds a credential: that is learned, not the JSON whole (project ids)
    assert PRIVATE_KEY in found and SERVICE_ACCOUNT not in found
    assert set(decoded_credentials(encoded(f"ci-bot:{REGISTRY_PASSWORD}"))) == {
        f"ci-bot:{REGISTRY_PASSWORD}",
        REGISTRY_PASSWORD,
    }
    twice = encoded(encoded(f"ci-bot:{REGISTRY_PASSWORD}"))
    assert REGISTRY_PASSWORD in set(decoded_credentials(twice))


@pytest.mark.parametrize(
    "value",
    [
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",  # an AWS secret key: random octets
        "9b1c6f0e2d8a4c7b9e3f1a5d6c8b0e2f",  # a hex token
        "ghp_R7x2Kq9LmN4pZ8vT3wY6bC1dF5gH0jS2aE7u",
        "correct horse battery staple",  # blanks between words: no base64
        "s3cr3t-P@ssw0rd!",
        encoded("\x00\x01binary\x02\x03 octets"),  # octets, not text
    ],
)
def test_a_value_that_decodes_to_no_text_gives_nothing(value: str) -> None:
    assert list(decoded_credentials(value)) == []


def test_a_decoded_value_of_an_ordinary_name_stays_visible(tmp_path: Path) -> None:
    """Only a credential's decoding is a secret: a base64 value under an ordinary name
    (a greeting, a logo) is no credential, decoded or not."""
    greeting = "hello world from the demo app"
    (tmp_path / ".env").write_text(f"GREETING_B64={encoded(greeting)}\nDEBUG=true\n")
    content = toolbox(tmp_path).run("bash", {"command": "cut -d= -f2 .env | base64 -d"}).content
    assert greeting in content and REDACTED_MARK not in content, content


def test_an_mcp_servers_credential_kept_in_base64_is_learned_decoded() -> None:
    """config.toml's `env` for a server, read by the same rule."""

    class Server:
        env = {"REGISTRY_AUTH": encoded(f"ci-bot:{REGISTRY_PASSWORD}"), "LOG_LEVEL": "debug"}
        headers: dict[str, str] = {}
        url = None
        args = ("-y", "registry-mcp")
        command = "npx"

    values = collect_mcp_secret_values([Server()], {})
    assert REGISTRY_PASSWORD in values and f"ci-bot:{REGISTRY_PASSWORD}" in values


def test_a_decoded_ordinary_word_or_a_urls_tail_is_no_secret() -> None:
    """The review of session 33: `ci-bot:password` decoded blanked `password` in every
    result; a URL's text after its scheme's `:` was taken for a password."""
    values = find_secrets({"REGISTRY_AUTH": encoded("ci-bot:password")}).values
    assert "ci-bot:password" in values and "password" not in values
    url = "https://example.com/docs/index.html"
    assert set(decoded_credentials(encoded(url))) == {url}


def test_base64_wrapped_with_written_line_breaks_is_decoded() -> None:
    """A `.env` value in quotes keeps base64's line breaks as `\\n`."""
    text = encoded(f"ci-bot:{REGISTRY_PASSWORD}")
    wrapped = text[:12] + "\\n" + text[12:]
    assert REGISTRY_PASSWORD in set(decoded_credentials(wrapped))
