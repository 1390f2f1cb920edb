"""Webhook and bot URLs whose path is the credential, by the services that issue them. Pure.

Whoever holds such a URL can post as the hook or drive the bot: no password, user part
or query parameter gives it away, so a variable named `SLACK_URL`, `ALERTS_URL` or
`DISCORD_HOOK` (no credential's name) would show it whole. The service says which URL it
is, by its host and the shape of its path, whatever the variable, setting or MCP `env`
holding it is called.

Contract: `hook_url_secrets(host, path)`: of a URL `HOOK_FORMS` knows by its host
(lower case, without port) and path, its secret part, as
written and percent-decoded; of a secret of several segments (Microsoft Teams'
`<hash>/<guid>/V2<signature>`) the whole and each segment with a key's shape
(`is_token_word`), so the ids before it and a connector's name (`IncomingWebhook`) stay
visible. The ids a URL carries beside its secret (Slack's `T.../B...`, Discord's hook id)
are no secret. Any other URL has none here. A credential in a hook's query (Google Chat's
`?key=...&token=...`, Power Automate's `&sig=`) is a credential-named parameter
(`tools.url_credentials`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import unquote

from agent_cli.tools.token_shape import is_token_word


@dataclass(frozen=True)
class HookForm:
    """A service's hook URL: its host (whole, lower case) and its path, whose `secret`
    group is the credential."""

    service: str
    host: re.Pattern[str]
    path: re.Pattern[str]


def _form(service: str, host: str, path: str) -> HookForm:
    return HookForm(service, re.compile(host), re.compile(path))


_SEGMENT = r"[^/]+"
HOOK_FORMS = (
    # hooks.slack.com/services/T.../B.../<secret>; /workflows/T/A/<id>/<secret>; /triggers/...
    _form(
        "Slack",
        r"hooks\.slack\.com",
        rf"/(?:services|workflows|triggers)/(?:{_SEGMENT}/)+(?P<secret>{_SEGMENT})/?",
    ),
    # discord.com/api/webhooks/<id>/<token>, /api/v10/..., discordapp.com, ptb., canary.
    _form(
        "Discord",
        r"(?:(?:ptb|canary)\.)?discord(?:app)?\.com",
        rf"/api(?:/v\d+)?/webhooks/\d+/(?P<secret>{_SEGMENT})(?:/.*)?",
    ),
    # api.telegram.org/bot<id>:<token>/sendMessage, /file/bot<id>:<token>/<path>
    _form("Telegram", r"api\.telegram\.org", rf"(?:/file)?/bot(?P<secret>{_SEGMENT})(?:/.*)?"),
    # <tenant>.webhook.office.com/webhookb2/<group>@<tenant>/IncomingWebhook/<hash>/<guid>[/V2...]
    _form(
        "Microsoft Teams",
        r"(?:[a-z0-9-]+\.)?webhook\.office\.com|outlook\.office(?:365)?\.com",
        rf"/webhook(?:b2)?/{_SEGMENT}/{_SEGMENT}/(?P<secret>{_SEGMENT}(?:/{_SEGMENT})*)/?",
    ),
    # hooks.zapier.com/hooks/catch/<account>/<hook>/: only the two together are the secret
    _form(
        "Zapier",
        r"hooks\.zapier\.com",
        rf"/hooks/catch/(?P<secret>{_SEGMENT}/{_SEGMENT})/?",
    ),
    # maker.ifttt.com/trigger/<event>/with/key/<key>, /trigger/<event>/json/with/key/<key>
    _form(
        "IFTTT",
        r"maker\.ifttt\.com",
        rf"/(?:trigger/{_SEGMENT}/(?:json/)?with/key|use)/(?P<secret>{_SEGMENT})/?",
    ),
    # hook.eu1.make.com/<token>, hook.integromat.com/<token>
    _form(
        "Make",
        r"hook\.(?:[a-z0-9-]+\.)?(?:make|integromat)\.com",
        rf"/(?P<secret>{_SEGMENT})/?",
    ),
    # open.feishu.cn/open-apis/bot/v2/hook/<uuid>, Lark's the same
    _form(
        "Feishu",
        r"open\.(?:feishu\.cn|larksuite\.com)",
        rf"/open-apis/bot/v2/hook/(?P<secret>{_SEGMENT})/?",
    ),
    _form("Netlify", r"api\.netlify\.com", rf"/build_hooks/(?P<secret>{_SEGMENT})/?"),
    _form(
        "Vercel",
        r"api\.vercel\.com",
        rf"/v1/integrations/deploy/{_SEGMENT}/(?P<secret>{_SEGMENT})/?",
    ),
    # Self-hosted chat, on any host: Mattermost's /hooks/<26 letters and digits>,
    # Rocket.Chat's /hooks/<17-character id>/<48-character token>.
    _form("Mattermost", r".+", r"/hooks/(?P<secret>[a-z0-9]{26})/?"),
    _form("Rocket.Chat", r".+", r"/hooks/[A-Za-z0-9]{17}/(?P<secret>[A-Za-z0-9]{48})/?"),
)


def hook_url_secrets(host: str, path: str) -> Iterator[str]:
    """The secret part of the hook URL of `host` and `path` (module contract)."""
    host = host.lower().rstrip(".")
    for form in HOOK_FORMS:
        if not form.host.fullmatch(host):
            continue
        found = form.path.fullmatch(path)
        if found is None:
            continue
        secret = found.group("secret")
        yield from _readings(secret)
        segments = secret.split("/")
        if len(segments) > 1:
            for segment in segments:
                if is_token_word(unquote(segment)):
                    yield from _readings(segment)
        return


def _readings(written: str) -> tuple[str, ...]:
    """As written and percent-decoded (`%3A` for the `:` of a Telegram token)."""
    decoded = unquote(written)
    return (written,) if decoded == written else (written, decoded)
