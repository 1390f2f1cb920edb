"""A dotenv file written as JSON (`.env.json`) is read for secrets (25th outside attack).

The attack: `.env.json` was taken as a dotenv file, but its JSON, pretty or on one line
(`{"STRIPE_SECRET_KEY": "sk_live_..."}`, as `dotenv-json` and `env-cmd` read it), gave no
assignment, nothing said so, and `read_file .env.json` sent the key; `.env.yml` was read.
"""

from __future__ import annotations

import json

from agent_cli.tools.dotenv_json import json_pairs
from agent_cli.tools.dotenv_syntax import parse_dotenv
from agent_cli.tools.workspace_secrets import DotenvFile, WorkspaceDotenv, find_dotenv_secrets

STRIPE = "sk_live_51Hx9Zq8xW3vR7tY2pL9mK4nB6cD1"
GITHUB = "ghp_Json0Nested1Token2Value3abcdefghij"
SMTP = "smtp-Pw0Json1Numbered2"


def secrets_of(text: str) -> tuple[str, ...]:
    assignments = tuple(parse_dotenv(text))
    return find_dotenv_secrets(WorkspaceDotenv((DotenvFile(".env.json", assignments),)), "").values


def test_a_json_dotenv_files_credentials_are_secrets_pretty_or_on_one_line() -> None:
    document = {"STRIPE_SECRET_KEY": STRIPE, "PORT": "3000", "DEBUG": True}
    for text in (json.dumps(document, indent=2), json.dumps(document, separators=(",", ":"))):
        assert secrets_of(text) == (STRIPE,), text
        assert ("STRIPE_SECRET_KEY", STRIPE) in list(json_pairs(text))


def test_nested_values_are_named_by_their_key_or_a_credential_key_above_them() -> None:
    """Per-environment objects (env-cmd's `.env-cmdrc`) are read as the YAML form is; a
    value under a credential-named key is one, as in a JSON value of the environment."""
    text = json.dumps(
        {
            "production": {"STRIPE_SECRET_KEY": STRIPE, "PORT": 3000, "TRACE": None},
            "credentials": {"github": [GITHUB]},
            "SMTP_PASSWORDS": ["", SMTP],
        }
    )
    assert list(json_pairs(text)) == [
        ("STRIPE_SECRET_KEY", STRIPE),
        ("PORT", "3000"),
        ("credentials", GITHUB),
        ("SMTP_PASSWORDS", SMTP),
    ]
    assert set(secrets_of(text)) == {STRIPE, GITHUB, SMTP}


def test_json_no_parser_takes_whole_still_gives_its_quoted_pairs() -> None:
    """A comment, a trailing comma (JSONC) or a file cut short: each `"key": "string"`."""
    text = f'{{\n  // live keys\n  "STRIPE_SECRET_KEY": "{STRIPE}",\n  "NOTE": "a \\"b\\"",\n}}'
    assert list(json_pairs(text)) == [("STRIPE_SECRET_KEY", STRIPE), ("NOTE", 'a "b"')]
    assert list(json_pairs(f'{{"GITHUB_TOKEN": "{GITHUB}", "cut')) == [("GITHUB_TOKEN", GITHUB)]


def test_text_that_is_no_json_gives_no_json_pairs() -> None:
    for text in (f"STRIPE_SECRET_KEY={STRIPE}\n", f'NOTE: "x": "{STRIPE}"', "", "[" * 100_000):
        assert list(json_pairs(text)) == [], text[:40]
    assert [a.name for a in parse_dotenv(f"STRIPE_SECRET_KEY={STRIPE}\n")] == ["STRIPE_SECRET_KEY"]
