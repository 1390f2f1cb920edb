"""A dotenv file written as JSON (`.env.json`) is read for secrets (25th outside attack).

The attack: `.env.json` was taken as a dotenv file, but its JSON, pretty or on one line
(`{"STRIPE_SECRET_KEY": "sk_live_..."}`, as `dotenv-json` and `env-cmd` read it), gave no
assignment, nothing said so, and `read_file .env.json` sent the key; `.env.yml` was read.
"""

from __future__ import annotations

import json

from agent_cli.tools.credential_names import is_credential_name
from agent_cli.tools.dotenv_json import UNNAMED, json_pairs
from agent_cli.tools.dotenv_syntax import parse_dotenv
from agent_cli.tools.jsonc import split_jsonc
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


# The second twenty-fifth outside attack: shapes that leaked, and settings blanked.
NAMED = "ghp_Ar7ayNameValue0Qw3Er5Ty8Ui2Op4As6Df9"
LEADING = "sk_live_JsoncLeadingComment0123456789ab"
VAULT = "ghp_Jn5NestedCred0Zx2Cv4Bn6Mk8Lp1Qa3Ws7"
SLACK = "xoxb-2222-3333-JsoncSlackBotTokenValue99"


def test_a_list_of_name_and_value_objects_names_each_value_by_its_name() -> None:
    """App Service's, ECS's and Kubernetes' env shape: the value was named `value`, so
    `GITHUB_TOKEN`'s went out; the name member is no value of its own then."""
    text = json.dumps(
        [
            {"name": "GITHUB_TOKEN", "value": NAMED, "slotSetting": False},
            {"value": "production", "Name": "NODE_ENV"},
        ],
        indent=2,
    )
    assert list(json_pairs(text)) == [("GITHUB_TOKEN", NAMED), ("NODE_ENV", "production")]
    assert secrets_of(text) == (NAMED,)
    cloudformation = json.dumps([{"ParameterKey": "DbPassword", "ParameterValue": SMTP}])
    assert list(json_pairs(cloudformation)) == [("DbPassword", SMTP)]
    assert list(json_pairs(text[: text.index("slotSetting")])) == [("GITHUB_TOKEN", NAMED)]


def test_jsonc_is_read_as_the_json_it_holds_and_its_comments_keys_too() -> None:
    """A `//` line before the object gave nothing at all; a comment inside lost the
    credential-named key above a value. Comments and trailing commas come out; a key
    commented out is read from the comment; `//` and `/*` in a string are its text."""
    leading = f'// local overrides, do not commit\n{{\n  "STRIPE_SECRET_KEY": "{LEADING}",\n}}\n'
    assert list(json_pairs(leading)) == [("STRIPE_SECRET_KEY", LEADING)]
    vault = f'{{\n  // from the vault\n  "credentials": {{\n    "github": "{VAULT}"\n  }}\n}}\n'
    assert list(json_pairs(vault)) == [("credentials", VAULT)]
    old = f'{{ /* "url": "http://a//b" */\n  // "OLD_TOKEN": "{GITHUB}",\n  "u": "x//y/*z" }}'
    assert list(json_pairs(old)) == [
        ("u", "x//y/*z"),
        ("url", "http://a//b"),
        ("OLD_TOKEN", GITHUB),
    ]
    assert set(secrets_of(leading + vault)) == {LEADING, VAULT}  # two: read token by token
    assert set(secrets_of(vault)) == {VAULT}


def test_json_no_parser_takes_keeps_the_keys_above_each_value() -> None:
    """A file cut short, or with JSON5's bare keys: a credential-named key still names
    the values under it, and an array's items are named by its key."""
    cut = f'{{"credentials": {{"slack": {{"bot": "{SLACK}"}}, "github": ["{VAULT}", "cut'
    assert list(json_pairs(cut)) == [
        ("credentials", SLACK),
        ("credentials", VAULT),
        ("github", "cut"),  # what is left of a string cut short, a setting's shape
    ]
    bare = f'{{ auth: {{ token: "{LEADING}", region: "us-east-1" }}, hosts: ["db1", 5432] }}'
    assert list(json_pairs(bare)) == [
        ("token", LEADING),
        ("region", "us-east-1"),
        ("hosts", "db1"),
        ("hosts", "5432"),
    ]
    deep = "[" * 100_000 + f'{{"credentials": {{"github": "{VAULT}"}}}}'
    assert list(json_pairs(deep)) == [("credentials", VAULT)]


SETTINGS_UNDER_CREDENTIAL_KEYS = {
    "PORT": 3000,
    "auth": {
        "audience": "https://api.example.com",
        "callbackUrl": "http://localhost:3000/callback",
        "sessionMaxAge": 86400000,
        "header": "Authorization",
        "scopes": ["read:user", "repo"],
    },
    "jwt": {"algorithm": "RS256", "issuer": "https://auth.example.com/"},
    "secrets": {
        "provider": "aws-secretsmanager",
        "region": "us-east-1",
        "arn": "arn:aws:secretsmanager:us-east-1:123456789012:secret:app",
    },
    "tokens": ["primary-500", "gray-900", "Brand.Primary.500"],
}


def test_settings_under_a_credential_named_key_are_no_secrets() -> None:
    """Every value under `auth`, `jwt`, `secrets` or `tokens` was named by that key, so
    `Authorization`, `us-east-1`, the URLs and `86400000` were blanked in every result.
    Only what looks like a key is named by the credential key above it."""
    text = json.dumps(SETTINGS_UNDER_CREDENTIAL_KEYS, indent=2)
    assert secrets_of(text) == ()
    pairs = list(json_pairs(text))
    assert ("header", "Authorization") in pairs and ("sessionMaxAge", "86400000") in pairs
    assert (UNNAMED, "primary-500") in pairs and ("scopes", "repo") in pairs
    assert not is_credential_name(UNNAMED)


def test_keys_under_a_credential_named_key_are_secrets_beside_its_settings() -> None:
    """What looks like a key under a credential-named key is one, by that key, whatever
    its own (a service's name, none in an array); its own credential-named key names it."""
    document = {
        **SETTINGS_UNDER_CREDENTIAL_KEYS,
        "credentials": {"github": VAULT, "slack": {"bot": SLACK}},
        "tokens": ["primary-500", LEADING],
        "auth": {"audience": "https://api.example.com", "clientSecret": "s3cr3t-Value"},
    }
    text = json.dumps(document)
    assert set(secrets_of(text)) == {VAULT, SLACK, LEADING, "s3cr3t-Value"}
    assert ("tokens", LEADING) in list(json_pairs(text))


def test_jsonc_comments_and_trailing_commas_come_out_and_strings_stay_as_written() -> None:
    text = '{"a": "x//y,]", /* "b": 1, */ "c": [1, 2, // two\n ], "d": "/*",}'
    plain, comments = split_jsonc(text)
    assert json.loads(plain) == {"a": "x//y,]", "c": [1, 2], "d": "/*"}
    assert comments == ' "b": 1, \n two'
    assert split_jsonc('{"a": 1 /* never closed, ') == ('{"a": 1  ', " never closed, ")
