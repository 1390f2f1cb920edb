"""Whether a word may be a key or token rather than a word of text. Pure.

Contract: `looks_like_token(word)`: at least `MIN_TOKEN_CHARS` characters with letters
and at least `MIN_TOKEN_DIGITS` digits, or at least twice as long (a token of letters
only, base64 of a short password). `is_token_word(word)`: a word of letters, digits, `-`
and `_` only, with a letter and a digit, that `looks_like_token` (`ghp_...`, `glpat-...`,
a hex or base62 key): the shape of a key written where a name could stand (a segment of
a URL's path, its user part), so a name such as `deploy` or `python3-requests-adapter`
is none. `is_user_part_token(word)`: `is_token_word`, or a word of those characters at
least `MIN_TOKEN_CHARS` long with a digit and both cases (a GitLab `glpat-` token with
one digit, a random base62 key), or one starting with a token prefix of a forge: where a
URL's user part is no name a person or a service was given, it is a key.
`has_prefixed_key(word)`: a word given on its own where a name or a setting could stand
(an MCP server's `args`: `["-y", "some-mcp", "ghp_..."]`) that is a key by its prefix:
letters, digits, `-` and `_` only, not a flag, not a UUID, not made of plain pieces alone
(`sk-learn-toolkit`, `npm_package_config_port`: words of letters, numbers, pieces of at
most 5), starting with a prefix services give their keys (`KEY_PREFIXES`: `sk-`,
`xoxb-`, `ghp_`, ...) and at least `MIN_TOKEN_CHARS` long; or a JSON Web Token (three
base64url parts joined by `.`, the first two JSON objects: `eyJ...`), which is a bearer
credential wherever it is given. A shorter or hex word without such a prefix is no key
by this test: in arguments it is far more often an id (a commit SHA, a model's id, a
pod's name), and taking it for a secret would hide it in every result of the session;
a longer one of both cases and digits may be one by the next.
`has_generated_key_shape(word)`: a word given on its own that is a generated key with no
service's prefix (an AWS secret access key, `openssl rand -base64 32`,
`secrets.token_urlsafe()`): at least `MIN_GENERATED_KEY_CHARS` characters (without its
`=` padding) of one alphabet, base64's (`+`, `/`) or base64url's (`-`, `_`), with both
cases and a digit, not a flag, a UUID, a `0x` hex address or a path
(`path_values.is_path_value`), and at least a third of its letters in runs (between `-`,
`_`, `+`, `/` and digits) that read as no name: a name is at least `MIN_NAME_RUN`
letters, `path_values.is_name_word` or capitalized words after maybe 3 lower-case letters
(`feature/AddLoginPage2ForUsers`, `JaneDoe/Projects2024/MyApp`,
`createOrUpdateFileContentsInRepository2` are none; `getUserByIdV2AndRegion` is one).
Measured on random keys (20,000 of each alphabet and length): about 1 in 100 of 32
characters is missed, 1 in 300 of 40, 1 in 3,000 of 64 (and one that starts with `-`,
1 in 64 of base64url, is a flag). Hex in one case
(a commit SHA, a digest, a Cloudflare or Notion id), one case of letters (a ULID, a
base32 seed) and anything shorter (a KSUID, a Figma key, a Stripe id) are none; a
Google Sheet's id (44 base62 characters) has a key's shape exactly and is hidden.
`has_key_alone(word)`: `has_prefixed_key` or `has_generated_key_shape`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agent_cli.tools.path_values import is_name_word, is_path_value

MIN_TOKEN_CHARS = 16
MIN_TOKEN_DIGITS = 4
_TOKEN_WORD = re.compile(r"(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]+")


def looks_like_token(word: str) -> bool:
    """A word that may be a key rather than a word of text (module contract)."""
    if len(word) < MIN_TOKEN_CHARS or not any(c.isalpha() for c in word):
        return False
    digits = sum(c.isdigit() for c in word)
    return digits >= MIN_TOKEN_DIGITS or len(word) >= 2 * MIN_TOKEN_CHARS


def is_token_word(word: str) -> bool:
    """A key's shape written where a name could stand (module contract)."""
    return bool(_TOKEN_WORD.fullmatch(word)) and looks_like_token(word)


# The prefixes forges give their tokens (GitHub's classic and fine-grained, GitLab's).
TOKEN_PREFIXES = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "gldt-")
_MIXED_CASE_TOKEN = re.compile(r"(?=.*[0-9])(?=.*[a-z])(?=.*[A-Z])[A-Za-z0-9_-]+")
_WORD_OF_A_KEY = re.compile(r"[A-Za-z0-9_-]+")


def is_user_part_token(word: str) -> bool:
    """A key's shape where a URL's user part stands (module contract)."""
    if is_token_word(word):
        return True
    if len(word) < MIN_TOKEN_CHARS or not _WORD_OF_A_KEY.fullmatch(word):
        return False
    return word.startswith(TOKEN_PREFIXES) or bool(_MIXED_CASE_TOKEN.fullmatch(word))


# Prefixes services give their keys (the forges' above; OpenAI's and Stripe's `sk-`/`sk_`,
# Stripe's restricted `rk_`, Slack's, npm's, PyPI's, Hugging Face's, AWS's and Google's
# key ids, Shopify's, DigitalOcean's).
KEY_PREFIXES = (
    *TOKEN_PREFIXES,
    "sk-",
    "sk_",
    "rk_",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xoxe-",
    "xoxr-",
    "xoxs-",
    "xapp-",
    "npm_",
    "pypi-",
    "hf_",
    "AKIA",
    "ASIA",
    "AIza",
    "shpat_",
    "dop_v1_",
)
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# A piece of a name between `-` and `_`: a word in one case or capitalized, a number, or
# a piece too short to be a key's random part (`v2`, `q1`, `py311`).
_PLAIN_PIECE = re.compile(r"[a-z]{1,12}|[A-Z][a-z]{1,11}|[A-Z]{1,12}|[0-9]+|[A-Za-z0-9]{1,5}")


# A JSON Web Token: a header and claims, each a base64url JSON object (`{"` is `eyJ`),
# then a signature.
_JWT = re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}")


def has_prefixed_key(word: str) -> bool:
    """A key given on its own by a service's prefix, or a JWT (module contract)."""
    return bool(_JWT.fullmatch(word)) or (_may_be_key(word) and _has_key_prefix(word))


def _may_be_key(word: str) -> bool:
    """Not a flag, a UUID, or a name of plain pieces; only a key's characters."""
    if word.startswith("-") or not _WORD_OF_A_KEY.fullmatch(word) or _UUID.fullmatch(word):
        return False
    return not all(_PLAIN_PIECE.fullmatch(piece) for piece in re.split(r"[-_]", word))


def _has_key_prefix(word: str) -> bool:
    return word.startswith(KEY_PREFIXES) and len(word) >= MIN_TOKEN_CHARS


MIN_GENERATED_KEY_CHARS = 32
# One alphabet, base64's or base64url's, maybe padded with `=`.
_GENERATED_KEY = re.compile(r"(?:[A-Za-z0-9+/]+|[A-Za-z0-9_-]+)={0,2}")
# A generated key's runs of letters: between its separators and its digits.
_LETTER_RUN_BREAKS = re.compile(r"[-_+/]|[0-9]+")
MIN_NAME_RUN = 4
# `MyApplication`, `JaneDoe`, `createOrUpdateFile` (a lower-case start of 3 letters or more:
# shorter ones let about three times more random keys read as names)
_CAPITALIZED_WORDS = re.compile(r"(?:[a-z]{3,})?(?:[A-Z][a-z]+)+")
_HEX_ADDRESS = re.compile(r"0x[0-9A-Fa-f]+")  # an Ethereum address, mixed case by EIP-55


def has_generated_key_shape(word: str) -> bool:
    """A generated key given on its own, with no service's prefix (module contract)."""
    body = word.rstrip("=")
    if len(body) < MIN_GENERATED_KEY_CHARS or word.startswith("-"):
        return False
    if not _GENERATED_KEY.fullmatch(word) or _UUID.fullmatch(word) or is_path_value(word):
        return False
    if _HEX_ADDRESS.fullmatch(word):
        return False
    if not (_has(body, str.islower) and _has(body, str.isupper) and _has(body, str.isdigit)):
        return False
    runs = _LETTER_RUN_BREAKS.split(body)
    random = sum(len(run) for run in runs if not _is_name_run(run))
    return 3 * random >= sum(len(run) for run in runs)


def has_key_alone(word: str) -> bool:
    """A key given on its own: by a service's prefix or a generated key's shape."""
    return has_prefixed_key(word) or has_generated_key_shape(word)


def _has(word: str, kind: Callable[[str], bool]) -> bool:
    return any(kind(c) for c in word)


def _is_name_run(run: str) -> bool:
    """A run of letters that reads as a name (`Header`, `AddLoginPage`, `MyRepo`)."""
    return len(run) >= MIN_NAME_RUN and (
        is_name_word(run) or bool(_CAPITALIZED_WORDS.fullmatch(run))
    )
