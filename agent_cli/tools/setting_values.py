"""Values a credential-named variable holds that are settings by what its name says. Pure.

Why: a name that holds a credential word often names a setting about the credential,
not the credential (`OAUTH_TOKEN_URL=https://oauth2.googleapis.com/token`,
`JWT_EXPIRATION_MS=86400000`, `DYNAMODB_SORT_KEY=created_at`, `JIRA_KEY=PROJ-1234`).
Hidden, the URL, the number or the column's name became `[REDACTED]` in every result (a
source file, a log, a timestamp holding the number). Shown, a secret cannot be taken
back, so each rule asks two things: the name's last part says what kind of setting it
is, and the value has that setting's shape and no key's shape; a value either misses
stays hidden.

Contract: `is_setting_value(name, value)`, of a credential-named `name`
(`tools.credential_names`) and the `value` it holds, is whether the value is
- a location: the name ends in `_URL`, `_URI` or `_ENDPOINT` (in the plural too) and
  holds no word that makes the URL itself the credential (`WEBHOOK`, `SAS`, `DSN`), and
  the value is one URL (`<scheme>://<host>...`, no blank) with no user part (`user@`,
  `user:password@`), no credential `tools.url_credentials` finds in it (a
  credential-named query parameter) and no piece of its host, path, query or fragment
  with a key's shape (`_has_key_piece`: `header_lines.has_key_shape`, or 16 digits or
  more), so a hook's URL whose path is its key stays hidden whatever its host;
- a measure: the name's last part says a duration, a limit, a size or a count
  (`MEASURE_WORDS`: `_MS`, `_SECONDS`, `_IN` as in `EXPIRES_IN`, `_LIMIT`, `_BUDGET`,
  `_INTERVAL`, `_ROUNDS`, ...) and the value is ASCII digits alone (`86400000`); a
  password of digits under `DB_PASSWORD` or a PIN under `*_PASSCODE` is no measure's;
- a record's key: the name ends in `_KEY` or `_KEYS` right after a word that says the
  key finds a record, an entry or an issue (`LOOKUP_KEY_WORDS`: `PARTITION`, `SORT`,
  `PRIMARY`, `CACHE`, `LOCAL_STORAGE`, `JIRA`, `ISSUE`, `PROJECT`, `ROUTING`, ...; not
  `STORAGE` alone nor `REDIS`, which name Azure's access keys, nor `SEARCH`, Algolia's
  search key), and the value is an identifier (`is_identifier`: at most
  `MAX_IDENTIFIER_CHARS` characters, words joined by `_`, `-`, `.`, `:` or `/`, each
  lower-case letters, capitals or camel case with up to 3 digits after them, or up to 6
  digits alone: `customer_id`, `updatedAt`, `PROJ-1234`, `myapp-cache-v2`,
  `org_my-project`), never a token's shape (`sk_live_51H...`, hex);
- a setting word with where or when it holds (`SETTING_PHRASE`: `disabled-in-dev`,
  `required for admins`), under any credential name, as the setting word alone is
  (`tools.credentials.is_setting_word`).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

from agent_cli.tools.credential_names import name_parts
from agent_cli.tools.header_lines import has_key_shape
from agent_cli.tools.url_credentials import url_credentials

_URL_NAME = re.compile(r"_(?:URLS?|URIS?|ENDPOINTS?)$")
# Names whose URL is itself the credential: a hook's URL, an Azure SAS URL, a DSN.
_URL_IS_THE_CREDENTIAL = re.compile(r"(?:^|_)(?:WEBHOOKS?|SAS|DSNS?)(?:_|$)")
_ONE_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s@]+")
_URL_PIECE_BREAK = re.compile(r"[^A-Za-z0-9_-]+")
MIN_DIGITS_OF_A_KEY = 16

MEASURE_WORDS = (
    *("MS", "MSEC", "MSECS", "MILLIS", "MILLISECONDS", "SEC", "SECS", "SECONDS"),
    *("MIN", "MINS", "MINUTES", "HOURS", "HRS", "DAYS", "WEEKS", "MONTHS", "YEARS"),
    *("IN", "AGE", "PERIOD", "INTERVAL", "DELAY", "DURATION", "WINDOW"),
    *("LIMIT", "LIMITS", "BUDGET", "QUOTA", "RATE", "MAX", "THRESHOLD", "CAPACITY"),
    *("COUNT", "ROUNDS", "RETRIES", "ATTEMPTS", "BYTES", "KB", "MB", "GB"),
)
_MEASURE_NAME = re.compile(rf"_(?:{'|'.join(MEASURE_WORDS)})$")
_DIGITS = re.compile(r"[0-9]+")

LOOKUP_KEY_WORDS = (
    *("PARTITION", "SORT", "RANGE", "PRIMARY", "FOREIGN", "COMPOSITE", "ROW", "LOOKUP"),
    *("CACHE", "LOCALSTORAGE", "SESSIONSTORAGE", "LOCAL_STORAGE", "SESSION_STORAGE"),
    *("I18N", "TRANSLATION", "JIRA", "ISSUE", "TICKET", "PROJECT", "ROUTING"),
    *("DEDUP", "DEDUPLICATION", "IDEMPOTENCY", "LOCK", "QUEUE", "SHARD", "FLAG"),
)
_LOOKUP_KEY_NAME = re.compile(rf"(?:^|_)(?:{'|'.join(LOOKUP_KEY_WORDS)})_KEYS?$")
MAX_IDENTIFIER_CHARS = 64
_IDENTIFIER_WORD = re.compile(
    r"(?:[a-z]{1,16}|[A-Z]{1,16}|[A-Z]?[a-z]{2,16}(?:[A-Z][a-z]{2,16})*(?:[A-Z][a-z])?)[0-9]{0,3}"
    r"|[0-9]{1,6}"
)
_IDENTIFIER_BREAK = re.compile(r"[-_.:/]")

SETTING_PHRASE = re.compile(
    r"(?i)(?:enabled|disabled|required|optional|off|none)"
    r"[-_ ](?:in|for|on|off|when|until|except|outside|during|unless|by|per|at)"
    r"(?:[-_ ][a-z0-9]{1,16}){1,3}"
)


def is_setting_value(name: str, value: str) -> bool:
    """Whether credential-named `name`'s `value` is a setting (module contract)."""
    parts, value = name_parts(name), value.strip()
    if SETTING_PHRASE.fullmatch(value):
        return True
    if _MEASURE_NAME.search(parts):
        return bool(_DIGITS.fullmatch(value))
    if _LOOKUP_KEY_NAME.search(parts):
        return is_identifier(value)
    if _URL_NAME.search(parts) and not _URL_IS_THE_CREDENTIAL.search(parts):
        return is_plain_url(value)
    return False


def is_identifier(value: str) -> bool:
    """Whether `value` is an identifier's words (module contract), with letters."""
    if len(value) > MAX_IDENTIFIER_CHARS or not any(c.isalpha() for c in value):
        return False
    return all(_IDENTIFIER_WORD.fullmatch(word) for word in _IDENTIFIER_BREAK.split(value))


def is_plain_url(value: str) -> bool:
    """Whether `value` is one URL that carries no credential (module contract)."""
    if not _ONE_URL.fullmatch(value) or any(True for _ in url_credentials(value)):
        return False
    try:
        parts = urlsplit(value)
    except ValueError:  # an unclosed `[` of an IPv6 host
        return False
    if not parts.hostname or parts.username is not None:
        return False
    query = [piece for pair in parse_qsl(parts.query, keep_blank_values=True) for piece in pair]
    texts = (parts.netloc, parts.path, *query, parts.fragment)
    return not any(_has_key_piece(text) for text in texts)


def _has_key_piece(text: str) -> bool:
    """Whether a piece of `text` between its punctuation has a key's shape, or is a long
    run of digits (a hook's numeric secret)."""
    return any(
        has_key_shape(piece) or (piece.isdigit() and len(piece) >= MIN_DIGITS_OF_A_KEY)
        for piece in _URL_PIECE_BREAK.split(text)
        if piece
    )
