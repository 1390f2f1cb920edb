r"""URLs whose credential went out because of how a tool wrote them (session 29's left list).

The forms: JSON's escaped `/` (`https:\/\/...`, PHP's `json_encode`, `jq`, many APIs) and
its kin (`\u0026`, JSON of JSON `\\/`, HTML's `&#x2F;` and `&amp;`, a shell's `\?`), query
parameters named `access_code`, `otp`, `pin`, `code_verifier`, `passcode` and `;` between
parameters, notification URLs with a key in the path (Apprise's and Shoutrrr's Pushover,
Pushbullet, Gotify and kin, webhook.site), and a known hook written without its scheme.
Each is hidden by every reader and the rest of the URL stays readable; ordinary URLs
written the same ways hide nothing.
"""

from __future__ import annotations

import json

import pytest
from hostile_support import McpServer, found_by_every_reader

from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools.redaction import SecretRedactor, collect_mcp_secret_values
from agent_cli.tools.url_credentials import url_credentials
from agent_cli.tools.url_escapes import read_url_escapes

SLACK_SECRET = "q8Zr4TbW2nY6kP0sLx3Vd9mC"
DISCORD_TOKEN = "Qw8Er7Ty6Ui5Op4As3Df2Gh1JkLzXcVbNmQw8Er7Ty6Ui5Op4As3Df2Gh1Jk"
TELEGRAM_TOKEN = "6123456789:AAHq8Zr4TbW2nY6kP0sLx3Vd9mC1fH5jG7a"
TEAMS_HASH = "9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e"
TEAMS_GROUP = "3f2a1b9c-0d4e-5f6a-7b8c-9d0e1f2a3b4c@72f988bf-86f1-41af-91ab-2d7cd011db47"
TEAMS_GUID = "1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d"
PASSWORD = "Pw7xK2mQ9vR4tZ"
TOKEN = "Tk3Lm9Pq2Rs7Tu1Vw5Xy8Za4"
OTP = "48291337"
USER_KEY = "uQiRzpo4DXghDmr9QzzfQu27cmVRsG"
APP_TOKEN = "azGDORePK8gMaC0QOYAMyEEuzJnyUi"
PUSHBULLET = "o.gn5kj6nfhv736I7jC3cj3QLRiyhgl98b"
GOTIFY = "AzyoeNS.D4iJLVa"
UUID = "0f7c2a9e-4b1d-4e8a-9c3f-5d6b7a8e9f01"
MATTERMOST = "xq7bz3kd9pfmtr8wn1ye6ucg4h"
SLACK = f"https://hooks.slack.com/services/T04ABCD1234/B05EFGH5678/{SLACK_SECRET}"
ESCAPED_SLACK = SLACK.replace("/", "\\/")


def php_json(value: object) -> str:
    """`value` as PHP's `json_encode` writes it: JSON with every `/` escaped."""
    return json.dumps(value, separators=(",", ":")).replace("/", "\\/")


def hidden_by_every_reader(value: str) -> list[set[str]]:
    """`found_by_every_reader`, and an MCP server's `url` too."""
    return [
        *found_by_every_reader(value),
        set(collect_mcp_secret_values([McpServer(url=value)], {})),
    ]


@pytest.mark.parametrize(
    ("value", "secret"),
    [
        # JSON's `\/`, as PHP's json_encode and jq print a URL inside an object
        (f'{{"url":"{ESCAPED_SLACK}"}}', SLACK_SECRET),
        (f'{{"url":"https:\\/\\/user:{PASSWORD}@db.internal\\/app"}}', PASSWORD),
        (f'{{"url":"https:\\/\\/api.example.com\\/v1\\/items?token={TOKEN}"}}', TOKEN),
        (f"https:\\/\\/api.example.com\\/v1?limit=5&token={TOKEN}", TOKEN),
        # JSON of JSON: `\\/` (Python's json.dumps of PHP's) and `\\\/` (PHP's of PHP's)
        (json.dumps(php_json({"url": SLACK})), SLACK_SECRET),
        (php_json(php_json({"url": SLACK})), SLACK_SECRET),
        # `/` and `&` as `\u` escapes (Go's and Rails' JSON write `&` so)
        (f'{{"u":"https://api.example.com/v1?limit=5\\u0026token={TOKEN}"}}', TOKEN),
        (f"https:\\u002f\\u002fuser:{PASSWORD}@db.internal\\u002fapp", PASSWORD),
        # HTML's references, a shell line's backslashes
        (f"https:&#x2F;&#x2F;api.example.com&#x2F;v1?limit=5&amp;api_key={TOKEN}", TOKEN),
        (f"curl https://api.example.com/v1\\?limit=5\\&token\\={TOKEN}", TOKEN),
    ],
)
def test_a_url_written_with_escaped_punctuation_gives_its_credential_to_every_reader(
    value: str, secret: str
) -> None:
    for where, found in enumerate(hidden_by_every_reader(value)):
        assert secret in found, (where, found)


def test_an_escaped_hooks_ids_and_host_stay_readable_where_its_secret_is_hidden() -> None:
    printed = f'{{"channel":"alerts","url":"{ESCAPED_SLACK}"}}'
    redactor = SecretRedactor.from_environment({"NOTIFY_CONFIG": printed})
    assert redactor.redact(printed).text == (
        '{"channel":"alerts","url":"https:\\/\\/hooks.slack.com\\/services\\/T04ABCD1234'
        f'\\/B05EFGH5678\\/{REDACTED_MARK}"}}'
    )


@pytest.mark.parametrize(
    ("value", "secret"),
    [
        (f"https://door.example.com/open?access_code={TOKEN}", TOKEN),
        (f"https://app.example.com/cb?accessCode={TOKEN}&lang=en", TOKEN),
        (f"https://login.example.com/verify?user=ann&otp={OTP}", OTP),
        (f"https://login.example.com/verify?totp_code={OTP}", OTP),
        (f"https://bank.example.com/card?pin={OTP}", OTP),
        (f"https://bank.example.com/card?pinCode={OTP}", OTP),
        (f"https://auth.example.com/token?code_verifier={TOKEN}&grant_type=x", TOKEN),
        (f"https://meet.example.com/j/81234567890?passcode={TOKEN}", TOKEN),
        # `;` between parameters, as older servers write them
        (f"https://api.example.com/v1/items?limit=5;token={TOKEN}", TOKEN),
        (f"https://api.example.com/v1/items?a=1;b=2;otp={OTP};c=3", OTP),
        (f"https://app.example.com/#/cb?state=1;access_code={TOKEN}", TOKEN),
    ],
)
def test_one_time_codes_pins_verifiers_and_parameters_after_a_semicolon_are_credentials(
    value: str, secret: str
) -> None:
    for where, found in enumerate(hidden_by_every_reader(value)):
        assert secret in found, (where, found)


def test_a_token_holding_a_raw_semicolon_is_read_whole_and_up_to_it() -> None:
    found = set(url_credentials(f"https://api.example.com/v1?token={TOKEN};{OTP}"))
    assert {f"{TOKEN};{OTP}", TOKEN} <= found


@pytest.mark.parametrize(
    ("value", "secrets"),
    [
        # Apprise's Pushover: the user key and the application's token
        (f"pover://{USER_KEY}@{APP_TOKEN}", {USER_KEY, APP_TOKEN}),
        (f"pover://{USER_KEY}@{APP_TOKEN}/iphone/desktop?priority=high", {USER_KEY, APP_TOKEN}),
        # Shoutrrr's Pushover: the token is the password, the user key the host
        (f"pushover://shoutrrr:{APP_TOKEN}@{USER_KEY}/?devices=iphone", {USER_KEY, APP_TOKEN}),
        (f"pbul://{PUSHBULLET}", {PUSHBULLET}),
        (f"pbul://{PUSHBULLET}/#alerts/ann@example.com", {PUSHBULLET}),
        (f"pushbullet://{PUSHBULLET}/phone", {PUSHBULLET}),
        (f"gotify://push.example.com/{GOTIFY}", {GOTIFY}),
        (f"gotifys://push.example.com:8443/gotify/{GOTIFY}/?priority=8", {GOTIFY}),
        (f"https://webhook.site/{UUID}", {UUID}),
        (f"https://webhook.site/token/{UUID}/requests?sorting=newest", {UUID}),
        (f"https://webhook.site/#!/view/{UUID}", {UUID}),
        (f"mmosts://chat.example.org/{MATTERMOST}/alerts", {MATTERMOST}),
        (f"mattermost://bot@chat.example.org:8065/{MATTERMOST}", {MATTERMOST}),
        (f"discord://{DISCORD_TOKEN}@1187654321098765432", {DISCORD_TOKEN}),
        (f"join://{TEAMS_HASH}/phone", {TEAMS_HASH}),
        (f"prowl://{TEAMS_HASH}/{APP_TOKEN}", {TEAMS_HASH, APP_TOKEN}),
        (f"pushed://{USER_KEY}/{APP_TOKEN}/#alerts", {USER_KEY, APP_TOKEN}),
        (f"psafers://{APP_TOKEN}/iphone", {APP_TOKEN}),
        (f"spush://{APP_TOKEN}", {APP_TOKEN}),
        (f"notica://{APP_TOKEN}", {APP_TOKEN}),
        (f"ifttt://{APP_TOKEN}@deploy_done", {APP_TOKEN}),
        (f"ifttt://{APP_TOKEN}/?events=deploy_done", {APP_TOKEN}),
        (f"pagerduty://{TEAMS_HASH}@{APP_TOKEN}/github", {TEAMS_HASH, APP_TOKEN}),
        (f"zulip://alerts-bot@acme/{APP_TOKEN}", {APP_TOKEN}),
    ],
)
def test_a_notification_urls_keys_in_its_path_are_hidden_by_every_reader(
    value: str, secrets: set[str]
) -> None:
    for where, found in enumerate(hidden_by_every_reader(value)):
        assert secrets <= found, (where, found)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"pover://{USER_KEY}@{APP_TOKEN}/iphone", "pover://[REDACTED]@[REDACTED]/iphone"),
        (
            f"gotifys://push.example.com:8443/gotify/{GOTIFY}/",
            "gotifys://push.example.com:8443/gotify/[REDACTED]/",
        ),
        (f"pbul://{PUSHBULLET}/#alerts", "pbul://[REDACTED]/#alerts"),
        (f"https://webhook.site/{UUID}", "https://webhook.site/[REDACTED]"),
        (
            f"hooks.slack.com/services/T04ABCD1234/B05EFGH5678/{SLACK_SECRET}",
            "hooks.slack.com/services/T04ABCD1234/B05EFGH5678/[REDACTED]",
        ),
    ],
)
def test_a_notification_urls_host_device_and_ids_stay_readable(url: str, shown: str) -> None:
    redactor = SecretRedactor.from_environment({"NOTIFY": url})
    assert redactor.redact(f"NOTIFY={url}").text == f"NOTIFY={shown}"


@pytest.mark.parametrize(
    ("value", "secret"),
    [
        (f"hooks.slack.com/services/T04ABCD1234/B05EFGH5678/{SLACK_SECRET}", SLACK_SECRET),
        (f"discord.com/api/webhooks/1187654321098765432/{DISCORD_TOKEN}", DISCORD_TOKEN),
        (f"Discord.com/api/webhooks/1187654321098765432/{DISCORD_TOKEN}", DISCORD_TOKEN),
        (f"api.telegram.org/bot{TELEGRAM_TOKEN}/sendMessage", TELEGRAM_TOKEN),
        (
            f"contoso.webhook.office.com/webhookb2/{TEAMS_GROUP}/IncomingWebhook/"
            f"{TEAMS_HASH}/{TEAMS_GUID}",
            TEAMS_HASH,
        ),
        (f"webhook.site/{UUID}", UUID),
        # in a longer value: a JSON value (escaped too), a list, another URL's query
        (f'{{"hook": "hooks.slack.com\\/services\\/T0\\/B0\\/{SLACK_SECRET}"}}', SLACK_SECRET),
        (
            f"hooks.slack.com/services/T0/B0/{SLACK_SECRET},"
            f"discord.com/api/webhooks/1/{DISCORD_TOKEN}",
            DISCORD_TOKEN,
        ),
        (
            f"hooks.slack.com/services/T0/B0/{SLACK_SECRET},"
            f"discord.com/api/webhooks/1/{DISCORD_TOKEN}",
            SLACK_SECRET,
        ),
        (f"https://example.com/r?next=hooks.slack.com/services/T0/B0/{SLACK_SECRET}", SLACK_SECRET),
        (
            f"https://example.com/r?next=hooks.slack.com%2Fservices%2FT0%2FB0%2F{SLACK_SECRET}",
            SLACK_SECRET,
        ),
        (f"notify at hooks.slack.com/services/T0/B0/{SLACK_SECRET}.", SLACK_SECRET),
    ],
)
def test_a_known_hook_written_without_its_scheme_is_hidden_by_every_reader(
    value: str, secret: str
) -> None:
    for where, found in enumerate(hidden_by_every_reader(value)):
        assert secret in found, (where, found)


@pytest.mark.parametrize(
    "value",
    [
        # ordinary URLs written as JSON, HTML and a shell write them
        '{"docs":"https:\\/\\/docs.python.org\\/3\\/library\\/json.html"}',
        '{"next":"https:\\/\\/example.com\\/r?lang=en\\u0026page=2"}',
        "https:&#x2F;&#x2F;example.com&#x2F;search?q=json&amp;page=2",
        "curl https://api.example.com/v1/items\\?limit\\=5",
        # parameters near the new names that hold no credential; `;` between them
        "https://api.example.com/v1/items?limit=10;offset=20;sort=name",
        "https://example.com/?country_code=DE;status_code=503;opinion=positive-review",
        "https://auth.example.com/authorize?code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        "&code_challenge_method=S256",
        "https://chat.example.com/?pinned=1234567890&spin=12345678&topics=abcdefgh",
        # hook hosts' pages, with or without a scheme; a host that only looks like one
        "hooks.slack.com/services/",
        "discord.com/invite/abcdefgh",
        "see discord.com/developers/docs/resources/webhook for the API",
        "https://webhook.site/docs",
        "webhook.site/#!/about",
        f"hooks.slack.com.example.org/services/T0/B0/{SLACK_SECRET}",
        f"my-hooks.slack.com/services/T0/B0/{SLACK_SECRET}",
        # notification URLs with nothing secret where a key would stand
        "gotify://push.example.com/",
        "gotify://push.example.com/<app-token>",
        "pbul://{accesstoken}",
    ],
)
def test_an_ordinary_url_written_these_ways_hides_nothing(value: str) -> None:
    assert list(url_credentials(value)) == []


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("https:\\/\\/a.example\\/b", "https://a.example/b"),
        ("https:\\\\\\/\\\\\\/a.example", "https://a.example"),
        ("a\\u0026b\\u003Dc\\u003f\\u0040\\u0023", "a&b=c?@#"),
        ("&#x2F;&#47;&sol;&amp;&colon;&equals;&#x003A;", "///&:=:"),
        # escapes of other characters, and a run longer than DEPTH, stay as written
        ("\\n\\u0041&#x41;&lt;%2F", "\\n\\u0041&#x41;&lt;%2F"),
        ("\\" * 17 + "/", "\\" * 17 + "/"),
    ],
)
def test_url_punctuation_escaped_is_read_and_nothing_else(written: str, read: str) -> None:
    assert read_url_escapes(written) == read
