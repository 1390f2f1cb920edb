"""Webhook and bot URLs whose path is the credential, by the services that issue them. Pure.

Whoever holds such a URL can post as the hook or drive the bot: no password, user part
or query parameter gives it away, so a variable named `SLACK_URL`, `ALERTS_URL` or
`DISCORD_HOOK` (no credential's name) would show it whole. The service says which URL it
is, by its host and the shape of its path, whatever the variable, setting or MCP `env`
holding it is called.

Contract: `hook_url_secrets(url)`: of a split web URL (`http`, `https`) `HOOK_FORMS`
knows by its host (lower case, without user part or port) and path (or path and fragment:
webhook.site's `/#!/view/<uuid>`), and of a notification URL (Apprise's, Shoutrrr's)
`NOTIFICATION_FORMS` knows by its scheme and what follows `://` (`slack://T../B../<secret>`,
`discord://<id>/<token>`, `tgram://<bot token>/`, `pover://<user key>@<token>`,
`pbul://<token>`, `gotify://<host>/<token>`), its secret parts, each as written and
percent-decoded; of a secret of several segments (Microsoft
Teams' `<hash>/<guid>/V2<signature>`) the whole and each segment with a key's shape
(`is_token_word`), so the ids before it and a connector's name (`IncomingWebhook`) stay
visible. The ids a URL carries beside its secret (Slack's `T.../B...`, Discord's hook id,
a Gotify server's host and path, a Pushover device) are no secret. A secret is a run of
the characters a key is made of (`_SECRET`), so the
`,` of a list, the `|` of Slack's `<url|text>` or prose after it is never taken for part
of it; where a service's secret has a fixed shape (Make's, IFTTT's, Telegram's,
Mattermost's, webhook.site's) only that shape is one, so a page of its host
(`/documentation`) is none. Any other URL has none here. A credential in a hook's query
(Google Chat's `?key=...&token=...`, Power Automate's `&sig=`) is a credential-named
parameter, a password written in a notification URL (Shoutrrr's
`pushover://shoutrrr:<token>@<user key>`) a password (`tools.url_credentials`).
`HOOK_HOST` is a pattern of the hosts that issue hooks under their own name (not
Mattermost's or Rocket.Chat's, served on any host), for a URL written without its scheme
(`hooks.slack.com/services/...`): whoever holds it holds the hook all the same.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import SplitResult, unquote

from agent_cli.tools.token_shape import is_token_word


@dataclass(frozen=True)
class HookForm:
    """A service's hook URL: its host (whole, lower case; for a notification URL its
    scheme) and its path (for a notification URL all that follows `://` up to its query,
    a user part too), whose groups named `secret...` are the credential."""

    service: str
    host: re.Pattern[str]
    path: re.Pattern[str]


def _form(service: str, host: str, path: str) -> HookForm:
    return HookForm(service, re.compile(host), re.compile(path))


_SEGMENT = r"[^/]+"
# A secret: letters, digits and the unreserved `-._~`, a percent escape's `%`, and the
# `:` of a Telegram bot token.
_SECRET = r"[A-Za-z0-9._~%:-]+"
# A Telegram bot token: the bot's id, `:` (or `%3A`), the key.
_TELEGRAM_TOKEN = r"\d+(?::|%3[Aa])[A-Za-z0-9_-]+"
_UUID = r"[0-9A-Fa-f]{8}-(?:[0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12}"
ANY_HOST = ".+"  # a self-hosted service's hooks, on whatever host serves them
WEB_SCHEMES = frozenset({"http", "https"})
HOOK_FORMS = (
    # hooks.slack.com/services/T.../B.../<secret>; /workflows/T/A/<id>/<secret>; /triggers/...;
    # GovSlack's hooks.slack-gov.com the same
    _form(
        "Slack",
        r"hooks\.slack(?:-gov)?\.com",
        rf"/(?:services|workflows|triggers)/(?:{_SEGMENT}/)+(?P<secret>{_SECRET})/?",
    ),
    # discord.com/api/webhooks/<id>/<token>, /api/v10/..., discordapp.com, www., ptb., canary.
    _form(
        "Discord",
        r"(?:(?:www|ptb|canary)\.)?discord(?:app)?\.com",
        rf"/api(?:/v\d+)?/webhooks/\d+/(?P<secret>{_SECRET})(?:/.*)?",
    ),
    # api.telegram.org/bot<id>:<token>/sendMessage, /file/bot<id>:<token>/<path>
    _form(
        "Telegram", r"api\.telegram\.org", rf"(?:/file)?/bot(?P<secret>{_TELEGRAM_TOKEN})(?:/.*)?"
    ),
    # <tenant>.webhook.office.com/webhookb2/<group>@<tenant>/IncomingWebhook/<hash>/<guid>[/V2...]
    _form(
        "Microsoft Teams",
        r"(?:[a-z0-9-]+\.)?webhook\.office\.com|outlook\.office(?:365)?\.com",
        rf"/webhook(?:b2)?/{_SEGMENT}/{_SEGMENT}/(?P<secret>{_SECRET}(?:/{_SECRET})*)/?",
    ),
    # hooks.zapier.com/hooks/catch/<account>/<hook>/: only the two together are the secret
    _form(
        "Zapier",
        r"hooks\.zapier\.com",
        rf"/hooks/catch/(?P<secret>{_SECRET}/{_SECRET})/?",
    ),
    # maker.ifttt.com/trigger/<event>/with/key/<key>, /trigger/<event>/json/with/key/<key>,
    # /use/<key>: a key, 16 or more letters, digits, `-`, `_` (a page, `/use/documentation`: none)
    _form(
        "IFTTT",
        r"maker\.ifttt\.com",
        rf"/(?:trigger/{_SEGMENT}/(?:json/)?with/key|use)/(?P<secret>[A-Za-z0-9_-]{{16,}})/?",
    ),
    # hook.eu1.make.com/<token>, hook.integromat.com/<token>: 32 lower-case letters and
    # digits (a page of the host, `/documentation`, is none)
    _form(
        "Make",
        r"hook\.(?:[a-z0-9-]+\.)?(?:make|integromat)\.com",
        r"/(?P<secret>[a-z0-9]{32})/?",
    ),
    # open.feishu.cn/open-apis/bot/v2/hook/<uuid>, Lark's the same
    _form(
        "Feishu",
        r"open\.(?:feishu\.cn|larksuite\.com)",
        rf"/open-apis/bot/v2/hook/(?P<secret>{_SECRET})/?",
    ),
    _form("Netlify", r"api\.netlify\.com", rf"/build_hooks/(?P<secret>{_SECRET})/?"),
    _form(
        "Vercel",
        r"api\.vercel\.com",
        rf"/v1/integrations/deploy/{_SEGMENT}/(?P<secret>{_SECRET})/?",
    ),
    # events.pagerduty.com/integration/<integration key>/enqueue (Events API v1), EU too
    _form(
        "PagerDuty",
        r"events\.(?:eu\.)?pagerduty\.com",
        rf"/integration/(?P<secret>{_SECRET})/enqueue/?",
    ),
    # webhook.site/<uuid>, its API's /token/<uuid>/..., its viewer's /#!/view/<uuid>: whoever
    # holds the uuid reads every request sent to it
    _form(
        "Webhook.site",
        r"webhook\.site",
        rf"/(?:token/|#!/(?:view/)?)?(?P<secret>{_UUID})(?:/.*)?",
    ),
    # Self-hosted chat, on any host and under any path it is served from: Mattermost's
    # /hooks/<26 letters and digits>, Rocket.Chat's /hooks/<17-character id>/<48-character token>.
    _form("Mattermost", ANY_HOST, r"(?:/[^/]+)*/hooks/(?P<secret>[a-z0-9]{26})/?"),
    _form(
        "Rocket.Chat",
        ANY_HOST,
        r"(?:/[^/]+)*/hooks/[A-Za-z0-9]{17}/(?P<secret>[A-Za-z0-9]{48})/?",
    ),
)
# Notification URLs, Apprise's and Shoutrrr's (its scheme, then the service's own ids and
# secrets; what follows `://` up to the query, a user part too). `_NAME@`: a bot's or a
# sender's name, no secret. A service read two ways by its scheme has a form for each,
# tried in order.
_NAME = r"(?:[^/@]*@)?"
_SERVER = r"[^/@]+(?:/[^/]+)*?"  # a self-hosted server's host, port and the path it is under
_REST = r"(?:/.*)?"  # a channel, a device, a chat id
NOTIFICATION_FORMS = (
    # slack://[bot@]T<team>/B<hook>/<secret>[/#channel]
    _form("Slack", r"slack", rf"{_NAME}T[A-Z0-9]+/B[A-Z0-9]+/(?P<secret>{_SECRET}){_REST}"),
    # Apprise's discord://[bot@]<hook id>/<token>[/...], Shoutrrr's discord://<token>@<hook id>
    _form("Discord", r"discord", rf"{_NAME}\d+/(?P<secret>{_SECRET}){_REST}"),
    _form("Discord", r"discord", rf"(?P<secret>{_SECRET})@\d+/?"),
    # tgram://[bot]<id>:<token>/[<chat id>/...]
    _form("Telegram", r"tgram", rf"{_NAME}(?:bot)?(?P<secret>{_TELEGRAM_TOKEN}){_REST}"),
    # Apprise's pover://<user key>@<app token>[/<device>...]: both keys; Shoutrrr's
    # pushover://shoutrrr:<app token>@<user key>/?devices=...: the user key (the token is
    # its password)
    _form("Pushover", r"pover", rf"(?P<secret_user>{_SECRET})@(?P<secret>{_SECRET}){_REST}"),
    _form("Pushover", r"pushover", rf"{_NAME}(?P<secret>{_SECRET})/?"),
    # Apprise's pbul://<access token>[/<device>|/#<channel>|/<email>...], Shoutrrr's pushbullet://
    _form("Pushbullet", r"pbul|pushbullet", rf"(?P<secret>{_SECRET}){_REST}"),
    # gotify[s]://<host>[:<port>][/<path>]/<app token>[/]
    _form("Gotify", r"gotifys?", rf"{_NAME}{_SERVER}/(?P<secret>{_SECRET})/?"),
    # mmost[s]://[bot@]<host>[:<port>][/<path>]/<token>[/<channel>...], Shoutrrr's mattermost://
    _form(
        "Mattermost",
        r"mmosts?|mattermost",
        rf"{_NAME}{_SERVER}/(?P<secret>[a-z0-9]{{26}}){_REST}",
    ),
    # join://<api key>[/<device>...] (Shoutrrr's join://shoutrrr:<key>@join: a password)
    _form("Join", r"join", rf"(?P<secret>{_SECRET}){_REST}"),
    # prowl://<api key>[/<provider key>]; pushed://<app key>/<app secret>[/...]
    _form("Prowl", r"prowl", rf"(?P<secret>{_SECRET})(?:/(?P<secret_provider>{_SECRET}))?/?"),
    _form("Pushed", r"pushed", rf"(?P<secret_app>{_SECRET})/(?P<secret>{_SECRET}){_REST}"),
    # Pushsafer's psafer[s]://<private key>[/...], Simplepush's spush://<api key>, notica://<token>
    _form(
        "Pushsafer, Simplepush, Notica", r"psafers?|spush|notica", rf"(?P<secret>{_SECRET}){_REST}"
    ),
    # Apprise's ifttt://<webhook id>@<event>[/...], Shoutrrr's ifttt://<key>/?events=...
    _form("IFTTT", r"ifttt", rf"(?P<secret>{_SECRET})@.*"),
    _form("IFTTT", r"ifttt", rf"(?P<secret>{_SECRET})/?"),
    # pagerduty://<integration key>@<api key>[/...]; zulip://<bot>@<organization>/<token>
    _form(
        "PagerDuty",
        r"pagerduty",
        rf"(?P<secret_integration>{_SECRET})@(?P<secret>{_SECRET}){_REST}",
    ),
    _form("Zulip", r"zulip", rf"[^/@]+@[^/@]+/(?P<secret>{_SECRET}){_REST}"),
)
# The hosts of `HOOK_FORMS` that issue hooks under their own name.
HOOK_HOST = "|".join(
    f"(?:{form.host.pattern})" for form in HOOK_FORMS if form.host.pattern != ANY_HOST
)


def hook_url_secrets(url: SplitResult) -> Iterator[str]:
    """The secret parts of the hook URL `url` (module contract)."""
    scheme = url.scheme.lower()
    if scheme in WEB_SCHEMES:
        host = (url.hostname or "").rstrip(".")
        forms = [form for form in HOOK_FORMS if form.host.fullmatch(host)]
        paths = (url.path, f"{url.path}#{url.fragment}") if url.fragment else (url.path,)
    else:
        forms = [form for form in NOTIFICATION_FORMS if form.host.fullmatch(scheme)]
        paths = (url.netloc + url.path,)
    for form in forms:
        for path in paths:
            # what follows a `|` is a label (`<url|alerts>`), no path
            found = form.path.fullmatch(path.partition("|")[0])
            if found is not None:
                for name, secret in found.groupdict().items():
                    if name.startswith("secret") and secret:
                        yield from _secret_readings(secret)
                return


def _secret_readings(secret: str) -> Iterator[str]:
    """The secret as written and decoded; of one of several segments, also each segment
    with a key's shape."""
    yield from _readings(secret)
    segments = secret.split("/")
    if len(segments) > 1:
        for segment in segments:
            if is_token_word(unquote(segment)):
                yield from _readings(segment)


def _readings(written: str) -> tuple[str, ...]:
    """As written and percent-decoded (`%3A` for the `:` of a Telegram token)."""
    decoded = unquote(written)
    return (written,) if decoded == written else (written, decoded)
