"""A JSON value in the environment or config.toml is read as a `.env.json` file is.

Found (session 25, left): two readers took credentials out of JSON text. `.env.json`
files got `tools.dotenv_json`'s rules (settings under a credential-named key stay
visible), but a JSON value held by an environment variable, an MCP server's `env` or an
argument got every string under a credential-named key, so with `APP_CONFIG='{"auth":
{"header": "Authorization", "ttl": "86400000", "region": "us-east-1", "token": KEY}}'`
the words `Authorization`, `86400000` and `us-east-1` were `[REDACTED]` in every tool
result. Now `tools.credentials` reads JSON through `dotenv_json.json_pairs` alone.
"""

from __future__ import annotations

import json

import pytest
from hostile_support import found_by_every_reader

from agent_cli.tools.dotenv_syntax import parse_dotenv
from agent_cli.tools.redaction import collect_secret_values
from agent_cli.tools.workspace_secrets import DotenvFile, WorkspaceDotenv, find_dotenv_secrets

KEY = "sk-live-9fQ2xL7pR4tV8wZ1Jc6N"
GITHUB = "ghp_Env0Json1Token2Value3abcdefghij"
BEARER = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhcHAifQ.c2lnbmF0dXJl"

APP_CONFIG = {
    "auth": {
        "header": "Authorization",
        "ttl": "86400000",
        "region": "us-east-1",
        "token": KEY,
    }
}
DOCUMENTS = (
    APP_CONFIG,
    {
        "auth": {"audience": "https://api.example.com", "sessionMaxAge": 86400000},
        "secrets": {"provider": "aws-secretsmanager", "region": "eu-west-1"},
        "tokens": ["primary-500", "gray-900"],
        "credentials": {"github": GITHUB},
    },
    [{"name": "GITHUB_TOKEN", "value": GITHUB}, {"name": "PORT", "value": "3000"}],
    {"headers": {"Authorization": f"Bearer {BEARER}", "Accept": "application/json"}},
)


def _dotenv_json_secrets(text: str) -> set[str]:
    files = (DotenvFile(".env.json", tuple(parse_dotenv(text))),)
    return set(find_dotenv_secrets(WorkspaceDotenv(files), "").values)


def test_settings_under_a_credential_named_key_in_an_environment_json_value_stay_visible() -> None:
    value = json.dumps(APP_CONFIG)
    for found in found_by_every_reader(value):
        assert found == {KEY}


@pytest.mark.parametrize("document", DOCUMENTS, ids=range(len(DOCUMENTS)))
def test_the_same_json_in_the_environment_and_in_a_dotenv_json_file_gives_the_same_secrets(
    document: object,
) -> None:
    for text in (json.dumps(document), json.dumps(document, indent=2)):
        assert set(collect_secret_values({"APP_CONFIG": text})) == _dotenv_json_secrets(text)
        assert _dotenv_json_secrets(text)  # each document holds a credential


def test_a_name_and_value_entry_in_an_environment_json_value_is_named_by_its_name() -> None:
    """`[{"name": "GITHUB_TOKEN", "value": ...}]` (App Service, ECS, Kubernetes): the
    old walker saw only the keys `name` and `value` and took no credential of it."""
    value = json.dumps([{"name": "GITHUB_TOKEN", "value": GITHUB}])
    for found in found_by_every_reader(value):
        assert found == {GITHUB}


@pytest.mark.parametrize("name", ["passwords", "db_passwords", "PGPASSWORDS", "passphrases"])
def test_a_list_of_passwords_is_hidden_whatever_its_words_look_like(name: str) -> None:
    """A password is often words (`correcthorsebattery`); under `passwords` a list item
    was taken for a setting because it does not look like a key (found in review of the
    change that made environment JSON follow `.env.json`'s rules). `tokens` keeps the
    rule: design tokens are words too."""
    value = json.dumps({name: ["correcthorsebattery", "Tr0ub4dor&3"]})
    for found in found_by_every_reader(value):
        assert found == {"correcthorsebattery", "Tr0ub4dor&3"}
    assert _dotenv_json_secrets(value) == {"correcthorsebattery", "Tr0ub4dor&3"}
