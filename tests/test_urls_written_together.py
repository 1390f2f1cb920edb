"""Hook URLs written together in one value, or inside another URL (review of fix29c).

The review found: webhook URLs joined by `,` or `;` without a blank
(`NOTIFY_URLS=<Slack hook>,<Discord hook>`) were read as one URL and neither secret was
learned; a hook URL in another URL's query (`?next=https://hooks...`, raw or
percent-encoded) was missed; what followed a secret in the whole value was learned with
it (`<discord hook>, <slack hook>` learned `<token>, https:`, and `cat .env` lost the
comma; Slack's `<url|alerts>` learned `<secret>|alerts`, so the bare secret elsewhere
was shown); and a value ending in many `)` made the bracket strip quadratic (a 3.8 MB
`.env` stalled start-up 91 s).
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

import pytest
from hostile_support import found_by_every_reader

from agent_cli.tools.redaction import SecretRedactor
from agent_cli.tools.url_credentials import url_credentials

SLACK_SECRET = "Xq7LmN2pR9sT4vW8yZ1aB3cD"
DISCORD_TOKEN = "Kd8Jh3Lp0Qw5Er7Ty2Ui9OpAzXcVbNm12QwErTy"
SLACK = f"https://hooks.slack.com/services/T0123ABCD/B0123ABCD/{SLACK_SECRET}"
DISCORD = f"https://discord.com/api/webhooks/123456789012345678/{DISCORD_TOKEN}"
SLACK_ENCODED = "https%3A%2F%2Fhooks.slack.com%2Fservices%2FT0123ABCD%2FB0123ABCD%2F" + SLACK_SECRET


@pytest.mark.parametrize(
    "value",
    [
        f"{SLACK},{DISCORD}",
        f"{SLACK};{DISCORD}",
        f"{DISCORD},{SLACK}",
        f"{SLACK}|{DISCORD}",
        f"{SLACK}, {DISCORD}",
        f"{DISCORD}, {SLACK}",
        f"{SLACK} {DISCORD}",
        f'["{SLACK}","{DISCORD}"]',
        f"<{DISCORD}>, <{SLACK}>",
    ],
)
def test_hook_urls_joined_with_or_without_a_blank_are_each_read_alone(value: str) -> None:
    for where, found in enumerate(found_by_every_reader(value)):
        assert found == {SLACK_SECRET, DISCORD_TOKEN}, (where, found)


@pytest.mark.parametrize(
    "value",
    [
        f"https://example.com/r?next={SLACK}",
        f"https://example.com/r?next={SLACK_ENCODED}&lang=en",
        f"https://login.example.com/?continue=https%3A%2F%2Fexample.com%2Fr%3Fnext%3D{SLACK_ENCODED.replace('%', '%25')}",
    ],
)
def test_a_hook_url_inside_another_urls_query_is_read_raw_or_percent_encoded(
    value: str,
) -> None:
    for where, found in enumerate(found_by_every_reader(value)):
        assert SLACK_SECRET in found, (where, found)


def test_what_follows_a_hooks_secret_is_never_learned_with_it() -> None:
    assert set(url_credentials(f"<{SLACK}|alerts>")) == {SLACK_SECRET}
    assert set(url_credentials(f"a|{SLACK}|b")) == {SLACK_SECRET}
    # one URL, read whole too: the `,` and the prose after its secret are no part of it
    assert set(url_credentials(f"{DISCORD}, the alerts channel")) == {DISCORD_TOKEN}
    assert set(url_credentials(f"{DISCORD},")) == {DISCORD_TOKEN}
    line = f"NOTIFY_URLS={DISCORD}, {SLACK}"
    redactor = SecretRedactor.from_environment({"NOTIFY_URLS": line.partition("=")[2]})
    assert redactor.redact(line).text == (
        "NOTIFY_URLS=https://discord.com/api/webhooks/123456789012345678/[REDACTED], "
        "https://hooks.slack.com/services/T0123ABCD/B0123ABCD/[REDACTED]"
    )
    # the bare secret, written elsewhere, is hidden too
    alone = SecretRedactor.from_environment({"SLACK": f"<{SLACK}|alerts>"})
    assert alone.redact(f"secret {SLACK_SECRET}").text == "secret [REDACTED]"


def test_unrelated_urls_joined_by_a_comma_keep_their_own_commas() -> None:
    """A `,` inside a URL (a path, a query's list) stays part of it: only one right
    before another URL's scheme ends it."""
    key = "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2"
    assert set(url_credentials(f"https://example.com/a,b?ids=1,2&token={key}")) == {key}
    assert set(url_credentials(f"https://example.com/?token={key},https://example.org/")) == {key}


def _calls_made(value: str) -> int:
    """How many Python and built-in functions `url_credentials(value)` calls."""
    calls = 0

    def count(_frame: FrameType, event: str, _arg: Any) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        list(url_credentials(value))
    finally:
        sys.setprofile(None)
    return calls


def test_closing_brackets_after_a_url_cost_no_work_per_bracket() -> None:
    """A `.env` line ending in 32,000 `)` (a cloned repository's) stalled start-up: each
    stripped bracket counted the whole URL again. The work done is now the same however
    many there are (counted in calls, not time)."""
    _calls_made("see https://example.com/x" + ")" * 10)  # `urlsplit` caches the URL it found
    few = _calls_made("see https://example.com/x" + ")" * 1_000)
    many = _calls_made("see https://example.com/x" + ")" * 4_000)
    assert many == few


@pytest.mark.parametrize(
    ("value", "password"),
    [
        ("postgres://app:Xy7|kQ9mP2zR@db/app postgres://ro:Ab3dE5gH7jK9@db/app", "Xy7|kQ9mP2zR"),
        ("redis://:s3cr3t|pa55word@r1:6379;redis://:s3cr3t|pa55word@r2:6379", "s3cr3t|pa55word"),
        ('{"db": "postgres://app:Gh4|tW8nB6vX@db:5432/app"}', "Gh4|tW8nB6vX"),
        (
            "https://graph.facebook.com/me?access_token=1234567890123456|AbCdEfGhIjKlMnOpQrStUvWx,"
            "https://example.com/",
            "1234567890123456|AbCdEfGhIjKlMnOpQrStUvWx",
        ),
    ],
)
def test_a_password_or_token_holding_a_bar_is_read_whole_in_a_longer_value(value, password):
    """The review of mend29c: a `|` ended every URL written in a longer value, so a raw
    password holding one was learned as its head and the rest went out whole."""
    assert password in set(url_credentials(value))
    redacted = SecretRedactor.from_environment({"SETTINGS": value}).redact(value).text
    assert password.split("|")[1] not in redacted


@pytest.mark.parametrize(
    "value",
    [
        "curl -fsS https://status.example.com/ping?token=Zq8mN2vL7xR4|grep -q ok",
        "curl -fsS https://status.example.com/ping?token=Zq8mN2vL7xR4 | grep -q ok",
        "<https://chat.example.com/v1/spaces/AAA/messages?key=k1&token=Xq9r-Tz8pLm2Wn4vB7cD|alerts>",
        "https://app.example.com/cb#access_token=Tk7mQ2xL9vR3|x",
    ],
)
def test_a_token_before_a_bar_is_a_credential_on_its_own(value):
    """The second review: once a `|` stopped ending a written URL, `?token=X|label` was
    learned as `X|label` only, and `X` written alone went out."""
    token = value.split("token=")[1].split("|")[0].split()[0]
    assert token in set(url_credentials(value))
    redactor = SecretRedactor.from_environment({"SETTING": value})
    assert token not in redactor.redact(f"token={token}").text
