r"""The credentials a URL carries, wherever a value holds one. Pure.

Contract:
- `url_credentials(value)`: of each URL in `value` (each URL written inside it: pip's
  `PIP_EXTRA_INDEX_URL` lists several, a JSON or YAML value quotes one, a command names
  one; and the whole value when it holds one URL only), its password
  (`postgres://user:password@host`), as written and percent-decoded; its user part when
  that has a key's shape (`token_shape.is_user_part_token`), as written and decoded: GitHub's
  `https://<token>@github.com/...`, Gemfury's `https://<token>@pypi.fury.io/...`, but not
  a user name (`https://git@github.com/`, `ssh://deploy@host`); and its query parameters
  whose names look like credentials (`?api_key=`, `CREDENTIAL_PARAMETER`, and the names
  `CREDENTIAL_PARAMETER_NAMES` that hold no such word: Azure Functions' `?code=<function
  key>`, `?access_code=`, `?code_verifier=`; and a name with a part
  `CREDENTIAL_PARAMETER_PARTS` names: `?otp=`, `?pin=`, `?totp_code=`), parameters
  joined by `&` or `;` (`?a=1;token=X`); and the secret parts of a webhook, bot or
  notification URL of a service that puts them in its path (`tools.hook_urls`: Slack's
  `hooks.slack.com/services/T../B../<secret>`, Discord's, Telegram's `bot<token>`,
  Microsoft Teams', webhook.site's, Apprise's and Shoutrrr's `slack://`, `pover://`,
  `pbul://`, `gotify://`, ...), also of such a hook written without its scheme
  (`hooks.slack.com/services/...`, `discord.com/api/webhooks/...`: read as `https://`).
  A URL whose punctuation JSON, HTML or a shell escaped (`https:\/\/user:pass@host\/db`
  as PHP's `json_encode` and `jq` print it, `\u0026token=`, JSON of JSON's `\\/`,
  `&amp;`, `\?token\=`) is read as written and with its escapes read
  (`tools.url_escapes`). A
  fragment written as a query (`#?code=`, `#access_token=`) is read as one. A URL
  inside another's query parameter (`?next=https://hooks...`, or percent-encoded
  `?next=https%3A%2F%2F...`) is read too, `MAX_NESTED_URLS` deep. URLs written one
  after another joined by `,`, `;` or `|` without a blank (`NOTIFY_URLS=<hook>,<hook>`)
  are each read alone; a `|` elsewhere does not end a URL (a password written raw may
  hold one; Slack's `<url|text>` gives its hook's key characters only). A URL behind
  further scheme words is read from the one `://` follows (JDBC's
  `jdbc:mysql://user:password@host`, R2DBC's `r2dbc:pool:postgresql://...`), and Oracle's
  JDBC URL, which has no `://`, by its own form: the password of
  `jdbc:oracle:thin:user/password@//host:1521/service` (or `@host:1521:sid`). A
  credential written as a placeholder (`tools.placeholders`:
  `postgres://app:${PGPASSWORD}@db`, `?token=<token>`) is none.
- `url_path_tokens(url)`: the segments of a URL's path that have a key's shape
  (`is_token_word`): an MCP server's URL that carries its key in the path
  (`/mcp/<key>/sse`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import SplitResult, parse_qsl, unquote, urlsplit

from agent_cli.tools.credential_names import name_parts
from agent_cli.tools.hook_urls import HOOK_HOST, hook_url_secrets
from agent_cli.tools.placeholders import is_placeholder
from agent_cli.tools.token_shape import is_token_word, is_user_part_token
from agent_cli.tools.url_escapes import read_url_escapes

CREDENTIAL_PARAMETER = re.compile(
    r"key|token|secret|passw|passphrase|passcode|pwd|auth|sig|credential|session|jwt",
    re.IGNORECASE,
)
# Whole parameter names that carry a credential without a word above in them: Azure
# Functions' function key (`?code=`, also Azure's remote MCP endpoint
# `/runtime/webhooks/mcp/sse?code=`) and an OAuth redirect's authorization code (one use,
# but whoever reads it first may redeem it), its PKCE `code_verifier` and a door's or a
# meeting's `access_code`; a meeting's or a share's `?pwd=`, `?pw=`, `?pass=`. Whole names
# only, as `name_parts` writes them (`accessCode`: `ACCESS_CODE`): `country_code`,
# `status_code`, `compass` are none.
CREDENTIAL_PARAMETER_NAMES = frozenset({"CODE", "PASS", "PW", "ACCESS_CODE", "CODE_VERIFIER"})
# Parts of a parameter's name that say it holds a one-time code or a PIN, wherever they
# stand (`otp`, `totp_code`, `pinCode`, `user_pin`); not inside a word (`spin`, `pinned`).
CREDENTIAL_PARAMETER_PARTS = frozenset({"OTP", "TOTP", "HOTP", "PIN"})
# The words of those names and parts: a name holding none (most, `limit`, `lang`) is none
# of them, told without splitting it into parts.
_NAMED_WORDS = re.compile(
    "|".join(
        sorted(
            {
                word
                for name in CREDENTIAL_PARAMETER_NAMES | CREDENTIAL_PARAMETER_PARTS
                for word in name.split("_")
            }
        )
    ),
    re.IGNORECASE,
)
# A URL inside a longer value (a list, a JSON or YAML value, a command): from the scheme
# that `://` follows (so `mysql` of `jdbc:mysql://`: `jdbc` read as the scheme would
# leave the user and password in the path) to a blank, a quote, an angle bracket or a
# `,`, `;` or `|` right before the next URL's scheme, less the punctuation a sentence or
# a bracket puts after it. A `|` elsewhere does not end it: a password written raw may
# hold one (`postgres://app:Xy7|kQ9@db/app`), and the secret of Slack's `<url|label>` is
# read by its key characters (`hook_urls`). Linear: each looks ahead over one scheme.
_SCHEME = r"[A-Za-z][A-Za-z0-9+.-]*://"
_WRITTEN_URL = re.compile(rf"{_SCHEME}(?:[^\s\"'`<>,;|]|[,;|](?!{_SCHEME}))+")
# A hook URL written without its scheme (`hooks.slack.com/services/...`, `discord.com/api/
# webhooks/...`): a host that issues hooks under its own name (`hook_urls.HOOK_HOST`)
# where no word, host, path or user part goes on before it, then its path, to the
# characters a written URL ends at, or a `,`, `;` or `|` before another such URL. Matched
# in lower case (a host is written in any). Linear: the look-behind fails at once inside a
# word, so a run is tried from its start only.
_BARE_HOOK = (
    rf"(?<![\w.@/%\\-])(?:{HOOK_HOST})(?::\d{{1,5}})?/"
    rf"(?:[^\s\"'`<>,;|]|[,;|](?!{_SCHEME}|(?:{HOOK_HOST})))*"
)
_BARE_HOOK_LOWER = re.compile(_BARE_HOOK)
_BARE_HOOK_ANY_CASE = re.compile(_BARE_HOOK, re.IGNORECASE)
# What every such URL holds, a host's last label and the `/` after it: a value without one
# is not scanned for hooks (one scan for a literal `.`; the scan above tries each word).
_HOST_END = re.compile(r"\.[A-Za-z]{2,63}(?::\d{1,5})?/")
MAX_NESTED_URLS = 2  # `?next=<url>` whose `?next=<url>`: how deep URLs in a query are read
_AFTER_A_URL = ".,;:)]}"
_OPENERS = {")": "(", "]": "[", "}": "{"}
# Oracle's JDBC URL: `jdbc:oracle:<driver>:user/password@...`.
_ORACLE_JDBC = re.compile(r"jdbc:oracle:[A-Za-z0-9]+:[^/@\s\"'`]+/([^@\s\"'`]+)@", re.IGNORECASE)


def url_credentials(value: str) -> Iterator[str]:
    """The credentials of the URLs in `value` (module contract)."""
    read = read_url_escapes(value)
    for view in (value, read) if read != value else (value,):
        for readings in _credential_readings(view):
            if not any(map(is_placeholder, readings)):
                yield from readings


def _credential_readings(value: str, depth: int = 0) -> Iterator[tuple[str, ...]]:
    """Of each credential of the URLs in `value`, its readings: as written and decoded
    (what the server is given; the URL holds it encoded); a query parameter as decoded.
    `depth`: how many URLs' queries `value` was found in."""
    for found in _ORACLE_JDBC.finditer(value):
        yield found.group(1), unquote(found.group(1))
    for url in _urls_in(value):
        parts = _split(url)
        if parts is None:
            continue
        if parts.password:
            yield parts.password, unquote(parts.password)
        if parts.username and is_user_part_token(unquote(parts.username)):
            yield parts.username, unquote(parts.username)
        yield from _parameter_readings(parts, depth)
        for secret in hook_url_secrets(parts):
            yield (secret,)


def _parameter_readings(parts: SplitResult, depth: int) -> Iterator[tuple[str, ...]]:
    """The credential-named parameters of a URL's query and of its fragment written as a
    query (`#?code=`, `#/callback?code=`, `#access_token=`), and the credentials of a URL
    a parameter holds (`?next=https://hooks...`, decoded; a hook without its scheme too,
    `?next=hooks.slack.com%2Fservices%2F...`), `MAX_NESTED_URLS` deep. A
    value holding a `|` is read whole and up to it: a token written before a label or a
    pipe (`?token=X|alerts`) is a credential on its own too."""
    fragment_query = parts.fragment.partition("?")[2] or parts.fragment
    for query in (parts.query, fragment_query):
        for name, parameter in _parameters(query):
            if is_credential_parameter(name):
                yield (parameter,)
                head = parameter.partition("|")[0].rstrip()
                if head and head != parameter:  # `?token=X|label`, `?token=X | grep`
                    yield (head,)
            elif depth < MAX_NESTED_URLS and "/" in parameter:
                yield from _credential_readings(parameter, depth + 1)


def _parameters(query: str) -> list[tuple[str, str]]:
    """The parameters of `query` joined by `&`, and, where a `;` stands, also as read with
    `;` a separator too (`?a=1;token=X`, as older servers and Java's matrix style write
    them): a raw `;` inside a value (`?token=X;Y`) gives both readings."""
    parameters = parse_qsl(query)
    if ";" in query:
        parameters += parse_qsl(query.replace(";", "&"))
    return parameters


def is_credential_parameter(name: str) -> bool:
    """Whether a URL's query parameter `name` holds a credential (`CREDENTIAL_PARAMETER`,
    `CREDENTIAL_PARAMETER_NAMES`, `CREDENTIAL_PARAMETER_PARTS`)."""
    if CREDENTIAL_PARAMETER.search(name):
        return True
    if not _NAMED_WORDS.search(name):
        return False
    parts = name_parts(name)
    return parts in CREDENTIAL_PARAMETER_NAMES or not CREDENTIAL_PARAMETER_PARTS.isdisjoint(
        parts.split("_")
    )


def url_path_tokens(url: str) -> Iterator[str]:
    """The segments of `url`'s path that have a key's shape (module contract)."""
    parts = _split(url)
    if parts is None:
        return
    for segment in parts.path.split("/"):
        segment = unquote(segment)
        if is_token_word(segment):
            yield segment


def _urls_in(value: str) -> list[str]:
    """Each URL written in `value`, and the whole value when it holds one URL only (its
    password may hold a blank or a quote; a value of several is a list, read URL by URL),
    and each hook URL written without its scheme, as `https://` it, each once."""
    whole = value.strip()
    urls: list[str] = []
    if "://" in whole:
        urls = [_without_punctuation_after(found.group()) for found in _WRITTEN_URL.finditer(whole)]
        if whole.count("://") == 1:
            urls.insert(0, whole)
    urls.extend(_bare_hook_urls(whole))
    return list(dict.fromkeys(urls))


def _bare_hook_urls(value: str) -> Iterator[str]:
    """Each hook URL written in `value` without its scheme, as `https://` it."""
    if not _HOST_END.search(value):
        return
    lowered = value.lower()
    # where lowering keeps each character one (ASCII text), a match stands where it was
    # written, and the slower case-blind scan is not needed
    text, pattern = (
        (lowered, _BARE_HOOK_LOWER) if len(lowered) == len(value) else (value, _BARE_HOOK_ANY_CASE)
    )
    for found in pattern.finditer(text):
        yield f"https://{_without_punctuation_after(value[found.start() : found.end()])}"


def _without_punctuation_after(url: str) -> str:
    """`url` less the punctuation a sentence or a bracket puts after it (`_AFTER_A_URL`),
    but a bracket the URL opened stays: `?token=${API_TOKEN}` keeps its placeholder's `}`.
    Each bracket is counted once, so a value ending in many `)` costs its length, no more."""
    opened = {closer: url.count(opener) for closer, opener in _OPENERS.items()}
    closed = {closer: url.count(closer) for closer in _OPENERS}
    end = len(url)
    while end and url[end - 1] in _AFTER_A_URL:
        last = url[end - 1]
        if last in closed:
            if opened[last] >= closed[last]:
                break
            closed[last] -= 1
        end -= 1
    return url[:end]


def _split(url: str) -> SplitResult | None:
    try:
        return urlsplit(url.strip())
    except ValueError:  # an unclosed `[` of an IPv6 host
        return None
