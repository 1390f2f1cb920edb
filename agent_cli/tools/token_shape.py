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
"""

from __future__ import annotations

import re

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
