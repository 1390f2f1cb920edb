"""A URL whose credential is its `?code=` or its path is a secret whatever holds it
(twenty-ninth outside attack).

The attack: an Azure Functions key in `?code=` (`ORDERS_FUNCTION_URL` in a `.env`, an MCP
server's `url`, Azure's own remote MCP endpoint form) and webhook URLs whose path is the
credential (`SLACK_URL`, `ALERTS_URL`, `DISCORD_HOOK`, `TEAMS_URL` holding Slack, Discord
and Teams hooks, a Telegram bot URL) were shown whole: only `?key=`-like parameter names
and the name `*_WEBHOOK_URL` were read. The service's host and path say it is a hook;
its secret part is hidden and the ids beside it stay visible.
"""

from __future__ import annotations

import pytest
from hostile_support import McpServer, found_by_every_reader

from agent_cli.tools.redaction import SecretRedactor, collect_mcp_secret_values
from agent_cli.tools.url_credentials import url_credentials

FUNCTION_KEY = "Xk3Lm9Pq2Rs7Tu1Vw5Xy8Za4Bc6De0FgHiJkLmNoPq-Az=="
SLACK_SECRET = "q8Zr4TbW2nY6kP0sLx3Vd9mC"
DISCORD_TOKEN = "Qw8Er7Ty6Ui5Op4As3Df2Gh1JkLzXcVbNmQw8Er7Ty6Ui5Op4As3Df2Gh1Jk"
TELEGRAM_TOKEN = "6123456789:AAHq8Zr4TbW2nY6kP0sLx3Vd9mC1fH5jG7a"
TEAMS_HASH = "9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e"
TEAMS_GUID = "1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d"
TEAMS_GROUP = "3f2a1b9c-0d4e-5f6a-7b8c-9d0e1f2a3b4c@72f988bf-86f1-41af-91ab-2d7cd011db47"
MATTERMOST_ID = "xq7bz3kd9pfmtr8wn1ye6ucg4h"
MAKE_TOKEN = "k2m9x7q4w8e1r5t3y6u0i2o4p7a9s1d3"


def hidden_by_every_reader(value: str) -> list[set[str]]:
    """`found_by_every_reader`, and an MCP server's `url` too."""
    return [
        *found_by_every_reader(value),
        set(collect_mcp_secret_values([McpServer(url=value)], {})),
    ]


@pytest.mark.parametrize(
    ("url", "secret"),
    [
        (f"https://orders-fn.azurewebsites.net/api/orders?code={FUNCTION_KEY}", FUNCTION_KEY),
        (f"http://127.0.0.1:9/runtime/webhooks/mcp/sse?code={FUNCTION_KEY}", FUNCTION_KEY),
        (f"https://meet.example.com/j/81234567890?pwd={SLACK_SECRET}", SLACK_SECRET),
        (f"https://hooks.slack.com/services/T04ABCD1234/B05EFGH5678/{SLACK_SECRET}", SLACK_SECRET),
        (
            f"https://hooks.slack.com/workflows/T04ABCD1234/A05X/4567890/{SLACK_SECRET}",
            SLACK_SECRET,
        ),
        (f"https://discord.com/api/webhooks/1187654321098765432/{DISCORD_TOKEN}", DISCORD_TOKEN),
        (f"https://discordapp.com/api/v10/webhooks/11876543/{DISCORD_TOKEN}/slack", DISCORD_TOKEN),
        (f"https://api.telegram.org/bot{TELEGRAM_TOKEN}/sendMessage", TELEGRAM_TOKEN),
        (f"https://api.telegram.org/file/bot{TELEGRAM_TOKEN}/photos/a.jpg", TELEGRAM_TOKEN),
        (
            f"https://contoso.webhook.office.com/webhookb2/{TEAMS_GROUP}/IncomingWebhook/"
            f"{TEAMS_HASH}/{TEAMS_GUID}",
            TEAMS_HASH,
        ),
        (
            f"https://outlook.office.com/webhook/{TEAMS_GROUP}/IncomingWebhook/"
            f"{TEAMS_HASH}/{TEAMS_GUID}",
            TEAMS_GUID,
        ),
        (f"https://chat.example.org/hooks/{MATTERMOST_ID}", MATTERMOST_ID),
        (f"https://hook.eu1.make.com/{MAKE_TOKEN}", MAKE_TOKEN),
        (f"https://maker.ifttt.com/trigger/deploy/with/key/{MAKE_TOKEN}", MAKE_TOKEN),
        (f"https://api.netlify.com/build_hooks/{MAKE_TOKEN}", MAKE_TOKEN),
        ("https://hooks.zapier.com/hooks/catch/1234567/3abcxyz/", "1234567/3abcxyz"),
        # shapes the review of fix29c found missed: GovSlack, www.discord.com, PagerDuty's
        # integration URL, Mattermost served under a sub-path, Apprise's notification
        # URLs, and a `?code=` written in a fragment
        (
            f"https://hooks.slack-gov.com/services/T04ABCD1234/B05EFGH5678/{SLACK_SECRET}",
            SLACK_SECRET,
        ),
        (
            f"https://www.discord.com/api/webhooks/1187654321098765432/{DISCORD_TOKEN}",
            DISCORD_TOKEN,
        ),
        (f"https://events.pagerduty.com/integration/{MAKE_TOKEN}/enqueue", MAKE_TOKEN),
        (f"https://chat.example.org/mattermost/hooks/{MATTERMOST_ID}", MATTERMOST_ID),
        (f"slack://T04ABCD1234/B05EFGH5678/{SLACK_SECRET}/#alerts", SLACK_SECRET),
        (f"discord://1187654321098765432/{DISCORD_TOKEN}/", DISCORD_TOKEN),
        (f"tgram://{TELEGRAM_TOKEN}/-1001234567890/", TELEGRAM_TOKEN),
        (f"https://orders-fn.azurewebsites.net/api/orders#?code={FUNCTION_KEY}", FUNCTION_KEY),
        (f"https://app.example.com/#/callback?code={FUNCTION_KEY}&state=1", FUNCTION_KEY),
        # in a longer value: a JSON value, a command
        (f'{{"alerts": "https://hooks.slack.com/services/T0/B0/{SLACK_SECRET}"}}', SLACK_SECRET),
        (f"curl -X POST https://discord.com/api/webhooks/1/{DISCORD_TOKEN}", DISCORD_TOKEN),
    ],
)
def test_a_code_parameter_or_a_hook_path_is_a_secret_whatever_the_variable_is_called(
    url: str, secret: str
) -> None:
    for where, found in enumerate(hidden_by_every_reader(url)):
        assert secret in found, (where, found)


def test_a_percent_encoded_telegram_token_is_hidden_as_written_and_as_sent() -> None:
    written = TELEGRAM_TOKEN.replace(":", "%3A")
    found = set(url_credentials(f"https://api.telegram.org/bot{written}/getMe"))
    assert {written, TELEGRAM_TOKEN} <= found


@pytest.mark.parametrize(
    ("name", "url", "shown"),
    [
        (
            "SLACK_URL",
            f"https://hooks.slack.com/services/T04ABCD1234/B05EFGH5678/{SLACK_SECRET}",
            "https://hooks.slack.com/services/T04ABCD1234/B05EFGH5678/[REDACTED]",
        ),
        (
            "DISCORD_HOOK",
            f"https://discord.com/api/webhooks/1187654321098765432/{DISCORD_TOKEN}",
            "https://discord.com/api/webhooks/1187654321098765432/[REDACTED]",
        ),
        (
            "TEAMS_URL",
            f"https://contoso.webhook.office.com/webhookb2/{TEAMS_GROUP}/IncomingWebhook/"
            f"{TEAMS_HASH}/{TEAMS_GUID}",
            f"https://contoso.webhook.office.com/webhookb2/{TEAMS_GROUP}/IncomingWebhook/"
            "[REDACTED]",
        ),
        (
            "ORDERS_FUNCTION_URL",
            f"https://orders-fn.azurewebsites.net/api/orders?code={FUNCTION_KEY}",
            "https://orders-fn.azurewebsites.net/api/orders?code=[REDACTED]",
        ),
    ],
)
def test_the_ids_beside_a_hooks_secret_stay_visible(name: str, url: str, shown: str) -> None:
    redactor = SecretRedactor.from_environment({name: url})
    assert redactor.redact(f"{name}={url}").text == f"{name}={shown}"
    # the ids alone (a log line naming the workspace or the hook) are no secret
    assert redactor.redact("team T04ABCD1234 hook 1187654321098765432").count == 0


@pytest.mark.parametrize(
    "url",
    [
        # code-like names that are no credential, and a code too short to be one
        "https://api.example.com/v1/places?country_code=DE&postcode=10115&zipcode=1011588",
        "https://api.example.com/v1/errors?status_code=503&error_code=UPSTREAM_TIMEOUT_X",
        "https://api.example.com/v1/promo?code=SUMMER",
        # a placeholder where the key goes
        "https://orders-fn.azurewebsites.net/api/orders?code=<function-key>",
        "https://hooks.slack.com/services/T0/B0/${SLACK_HOOK_SECRET}",
        # a hook's path on a host that issues no such hooks; a forge's numbered hook
        f"https://example.com/services/T04ABCD1234/B05EFGH5678/{SLACK_SECRET}",
        "https://api.github.com/repos/acme/app/hooks/123456789",
        "https://discord.com/api/v10/channels/1187654321098765432/messages",
        # pages of the hook hosts (the review of fix29c: `documentation` was learned)
        "https://hook.eu1.make.com/documentation",
        "https://maker.ifttt.com/use/documentation",
        "https://docs.mattermost.com/hooks/incomingwebhooksdocumentation",
        "https://api.telegram.org/bots/api",
        "https://discord.com/invite/abcdef",
        "https://hooks.slack.com/services/",
        "https://hooks.zapier.com/hooks/catch/",
        # a fragment that is no query, or a query of no credential
        "https://example.com/docs#section-2",
        "https://app.example.com/#/settings?tab=general&lang=en",
        # a redirect to a page with no credential, raw and encoded
        "https://example.com/r?next=https://example.org/welcome?lang=en",
        "https://example.com/r?next=https%3A%2F%2Fexample.org%2Fwelcome",
        # Apprise URLs of a service with no secret in that place
        "mailto://user@example.com",
        "discord://channels/general",
        "slack://docs/api/reference",
    ],
)
def test_a_url_with_no_code_credential_and_no_hook_secret_hides_nothing(url: str) -> None:
    assert list(url_credentials(url)) == []
