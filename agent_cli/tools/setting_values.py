"""Values a credential-named variable holds that are settings by what its name says. Pure.

Why: a name that holds a credential word often names a setting about the credential,
not the credential (`OAUTH_TOKEN_URL=https://oauth2.googleapis.com/token`,
`JWT_EXPIRATION_MS=86400000`, `DYNAMODB_SORT_KEY=created_at`, `PASSWORD_FIELD=
password_hash`). Hidden, the URL, the number or the column's name became `[REDACTED]` in
every result (a source file, a log, a timestamp holding the number). Shown, a secret
cannot be taken back, so each rule asks two things, and narrowly: the name's last part
says what kind of setting it is, and the value has that setting's shape, words a person
would write and never a key's; a value either misses stays hidden, as does any value
under a PIN's, a seed's or a one-time code's name, and any under a password's but a
reset page's URL and a hash's field.

Contract: `is_setting_value(name, value)`, of a credential-named `name`
(`tools.credential_names`) and the `value` it holds, is whether the value is
- a location: the name ends in `_URL`, `_URI` or `_ENDPOINT` (in the plural too) and
  holds no word that makes the URL itself the credential (`WEBHOOK`, `SAS`, `DSN`,
  `SECRET`, `PRIVATE`), under a password's name only a page that resets or changes one
  (`PASSWORD_RESET_URL`), and
  the value is one URL (`<scheme>://<host>...`, no blank) with no user part, no query, no
  fragment, no credential `tools.url_credentials` finds in it, no piece of its host with
  a key's shape, and a path of plain words only (`is_plain_word`: pieces of lower-case
  letters with at most one digit after them, a version `v2.0` or a number of up to 4
  digits, joined by `-`, `_` or `.`, each segment at most `MAX_PLAIN_SEGMENT_CHARS`):
  `/realms/app/protocol/openid-connect/token` is a location, `/api/push/Ab3dE5gH7j` or
  `/verify?otp=48291337` is not;
- a measure: the name's last part says a duration, a limit, a size or a count
  (`MEASURE_ENDINGS`: `_MS`, `_SECONDS`, `_EXPIRES_IN`, `_MAX_AGE`, `_LIMIT`, `_BUDGET`,
  `_INTERVAL`, `_ROUNDS`, ...; not words that also mean other things, `_SEC`, `_IN`,
  `_MAX`, `_RATE`) and the value is at most `MAX_MEASURE_DIGITS` ASCII digits alone;
- a column's name: the name ends in `_KEY` or `_KEYS` right after a word that says the
  key finds a row by a column (`COLUMN_KEY_WORDS`: `PARTITION`, `SORT`, `RANGE`,
  `FOREIGN`, `ROW`) and the value is a column's name in snake or camel case whose last
  word says what it holds (`is_column_name`, `COLUMN_ENDINGS`: `created_at`,
  `customer_id`, `updatedAt`; not `letmein_now`);
- a tracker's key: `JIRA_KEY` or `TICKET_KEY` holding a project's key or a ticket
  (`PROJ`, `PROJ-1234`);
- a hash's field: the name's last part says what a record, a form or a hasher calls the
  credential (`_FIELD`, `_COLUMN`, `_ATTRIBUTE`, `_PARAM`, `_HASHER`, in the plural too;
  under a password's name too) and the value is a column's name holding a hash or a
  hasher's name (`is_hash_field`: `password_hash`, `api_token_digest`, `argon2id`; not
  `client_secret` nor `mySecretPassword`: a credential's own word is what a weak
  password holds too).

Not `PRIMARY_KEY` (the rotation's first key), `PROJECT_KEY`, `ROUTING_KEY` (PagerDuty's),
`CACHE_KEY`, `I18N_KEY`, `STORAGE_KEY` or `REDIS_KEY` (Azure's): a passphrase reads like
their values.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from agent_cli.tools.credential_names import name_parts, names_passwords
from agent_cli.tools.header_lines import has_key_shape
from agent_cli.tools.url_credentials import url_credentials

_URL_NAME = re.compile(r"_(?:URLS?|URIS?|ENDPOINTS?)$")
# Names whose URL is itself the credential: a hook's URL, an Azure SAS URL, a DSN.
# A `SECRET` or `PRIVATE` URL is a capability URL (a calendar's private feed); a URL under
# a password's name is a location only when it is where a password is reset or changed.
_URL_IS_THE_CREDENTIAL = re.compile(r"(?:^|_)(?:WEBHOOKS?|SAS|DSNS?|SECRET|PRIVATE)(?:_|$)")
_PASSWORD_PAGE = re.compile(r"(?:^|_)(?:RESET|CHANGE|FORGOT|FORGOTTEN|RECOVERY|POLICY)(?:_|$)")
# Names of what no setting holds: a PIN, a seed, a one-time code.
_NEVER_A_SETTING = re.compile(r"(?:^|_)(?:PINS?|SEEDS?|OTPS?|TOTP|HOTP|MFA)(?:_|$)")
_ONE_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s@]+")
_HOST_PIECE_BREAK = re.compile(r"[^A-Za-z0-9_-]+")
MAX_PLAIN_SEGMENT_CHARS = 24
_PLAIN_PIECE = re.compile(r"[a-z]{1,16}[0-9]?|v[0-9]{1,3}(?:\.[0-9]{1,3}){0,2}|[0-9]{1,4}")
_PLAIN_BREAK = re.compile(r"[-_.]")

MEASURE_ENDINGS = (
    *("MS", "MSEC", "MSECS", "MILLIS", "MILLISECONDS", "SECONDS", "SECS"),
    *("MINUTES", "MINS", "HOURS", "HRS", "DAYS", "WEEKS", "MONTHS", "YEARS"),
    *("EXPIRES_IN", "MAX_AGE", "PERIOD", "INTERVAL", "DELAY", "DURATION", "WINDOW"),
    *("LIMIT", "LIMITS", "BUDGET", "QUOTA", "THRESHOLD", "CAPACITY"),
    *("COUNT", "ROUNDS", "RETRIES", "ATTEMPTS", "BYTES", "KB", "MB", "GB"),
)
_MEASURE_NAME = re.compile(rf"_(?:{'|'.join(MEASURE_ENDINGS)})$")
MAX_MEASURE_DIGITS = 10
_MEASURE = re.compile(rf"[0-9]{{1,{MAX_MEASURE_DIGITS}}}")

# Keys that find a row by a column: their value is a column's name (`created_at`).
COLUMN_KEY_WORDS = ("PARTITION", "SORT", "RANGE", "FOREIGN", "ROW")
_COLUMN_KEY_NAME = re.compile(rf"(?:^|_)(?:{'|'.join(COLUMN_KEY_WORDS)})_KEYS?$")
# Keys that name a tracker's project or ticket: `PROJ`, `PROJ-1234`.
_TICKET_KEY_NAME = re.compile(r"(?:^|_)(?:JIRA|TICKET)_KEYS?$")
_TICKET = re.compile(r"[A-Z][A-Z0-9]{1,9}(?:-[0-9]{1,7})?")
_FIELD_NAME = re.compile(r"_(?:FIELDS?|COLUMNS?|ATTRIBUTES?|ATTRS?|PARAMS?|PARAMETERS?|HASHERS?)$")
MAX_IDENTIFIER_CHARS = 48
# A column's name: snake or camel case whose last word says what the column holds.
_COLUMN = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*|[a-z]{2,16}(?:[A-Z][a-z0-9]{1,16}){1,4}")
COLUMN_ENDINGS = frozenset(
    {"id", "at", "on", "date", "time", "timestamp", "ts", "key", "pk", "sk", "name", "type"}
    | {"number", "no", "num", "seq", "index", "version", "code", "slug", "uuid", "email"}
)
# What a field or a hasher of a credential is called by: its hash, or its hasher.
_HASH_WORD = re.compile(r"(?i)hash|digest|crypted|ciphertext")
_HASHER = re.compile(
    r"argon2(?:id|i|d)?|bcrypt(?:_sha256)?|scrypt|yescrypt|pbkdf2(?:_sha(?:1|256|512))?"
    r"|sha(?:256|512)_crypt|md5_crypt"
)


def is_setting_value(name: str, value: str) -> bool:
    """Whether credential-named `name`'s `value` is a setting (module contract)."""
    parts, value = name_parts(name), value.strip()
    if _NEVER_A_SETTING.search(parts):
        return False
    if _URL_NAME.search(parts):
        if _URL_IS_THE_CREDENTIAL.search(parts):
            return False
        if names_passwords(name) and not _PASSWORD_PAGE.search(parts):
            return False
        return is_plain_url(value)
    if _FIELD_NAME.search(parts):
        return is_hash_field(value)
    if names_passwords(name):
        return False
    if _MEASURE_NAME.search(parts):
        return bool(_MEASURE.fullmatch(value))
    if _COLUMN_KEY_NAME.search(parts):
        return is_column_name(value)
    if _TICKET_KEY_NAME.search(parts):
        return bool(_TICKET.fullmatch(value))
    return False


def is_column_name(value: str) -> bool:
    """Whether `value` is a column's name (module contract)."""
    if len(value) > MAX_IDENTIFIER_CHARS or not _COLUMN.fullmatch(value):
        return False
    last = re.split(r"_|(?=[A-Z])", value)[-1].lower()
    return last in COLUMN_ENDINGS and not has_key_shape(value)


def is_hash_field(value: str) -> bool:
    """Whether `value` names where a credential's hash is kept or which hasher makes it
    (module contract)."""
    if len(value) > MAX_IDENTIFIER_CHARS or has_key_shape(value):
        return False
    if _HASHER.fullmatch(value):
        return True
    is_words = _COLUMN.fullmatch(value) is not None and ("_" in value or value != value.lower())
    return is_words and _HASH_WORD.search(value) is not None


def is_plain_word(text: str) -> bool:
    """Whether `text` is a path segment of plain words (module contract)."""
    if not text:
        return True
    if len(text) > MAX_PLAIN_SEGMENT_CHARS:
        return False
    return all(_PLAIN_PIECE.fullmatch(piece) for piece in _PLAIN_BREAK.split(text))


def is_plain_url(value: str) -> bool:
    """Whether `value` is one URL that carries no credential (module contract)."""
    if not _ONE_URL.fullmatch(value) or any(True for _ in url_credentials(value)):
        return False
    try:
        parts = urlsplit(value)
    except ValueError:  # an unclosed `[` of an IPv6 host
        return False
    if not parts.hostname or parts.username is not None or parts.query or parts.fragment:
        return False
    try:
        parts.port  # noqa: B018 (a port that is no number, `host:hunter2`, raises)
    except ValueError:
        return False
    if any(has_key_shape(piece) for piece in _HOST_PIECE_BREAK.split(parts.netloc) if piece):
        return False
    return all(is_plain_word(segment) for segment in parts.path.split("/"))
