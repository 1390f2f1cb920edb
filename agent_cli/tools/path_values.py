"""Whether a value is plainly a file-system path, not a credential. Pure.

Why: a credential-named variable often holds where its credential is, not the credential
(`GOOGLE_APPLICATION_CREDENTIALS=/home/dev/keys/gcp-sa.json`, `SSH_KEY=~/.ssh/id_deploy`),
as a `*_FILE` or `*_PATH` name says outright. Hidden, the path would blank every line that
names it (a volume in docker-compose.yml), and the model would write `[REDACTED]` back.
Shown, a secret that merely looks like a path (a webhook's `/api/webhook/<hex>`, a
password `/Summer/2024`, a passphrase `~/correct-horse-battery-staple`) cannot be taken
back; so the rule takes only what reads as a path a person writes to a file or folder,
and errs towards hiding.

Contract: `is_path_value(value)`, of the value stripped:
- it starts as a path does: `/` (not `//`), `~/`, `./`, `../`, or a drive (`C:\\`,
  `C:/`); or, relative, its last segment is a file name with a key's or a setting file's
  extension (`KEY_FILE_EXTENSIONS`: `keys/sa.json`);
- segments are split at `/` or `\\`, none empty but a trailing one (a folder), of path
  characters only (`PATH_SEGMENT`: letters, digits, `.`, `_`, `-`, `@`; no blank, no `+`
  or `=`); each word of a segment (the pieces between `.`, `_`, `-`, `@`) is digits
  alone, lower-case hex alone, or letters in one case or written as words are
  (`Library`, `serviceAccountKey`, `HTTPServer`), with digits before or after
  (`ed25519`, `deploy2024`, `2fa`): `NAME_WORD`; never digits between letters (`k9Pq`)
  nor random case (`zXkjHx`);
- a word is random (`is_random_word`) when it is lower-case hex with a digit of
  `RANDOM_HEX_CHARS` or more (`3f2a1b9c`), a run of `RANDOM_DIGITS` digits or more, or
  a run of letters in one case longer than `LONGEST_NAME_RUN` (`abcdefghijklmnopqrstu`);
  a word is a name (`is_name_word`) when it is no random word and it holds letters:
  letters alone (`x`, `Library`) or two letters in a row with digits (`ed25519`, `v1`
  is none: hex pieces such as `9a2f` and version marks name nothing);
- a segment names something when one of its words is a name; no segment but the last
  holds a random word; the last segment is a file name with a known extension whose
  stem names something (random words beside it are the key's id, as Google writes
  `myproject-3f2a1b9c0d4e.json`; a stem of hex alone, `secrets/<hex>.json`, is none,
  since a hex file name under a credential name may as well be the credential), or a
  name with no random word (`id_ed25519`, `credentials`, a folder);
- at least `MIN_NAMED_SEGMENTS` segments name something (`/run/secrets/db_password`,
  `~/.aws/credentials`); after `~/`, `./`, `../` or a drive a single segment may stand
  alone only as a file name with a known extension (`~/sa.json`): a single word after
  them (`./hunter2024`, `C:\\Summer2024`, `~/sk-proj-...`) is a password's or a token's
  shape as much as a file's.
Measured on random base64 and hex after `/`, `~/`, `./`, `C:\\` (40,000 of each length;
the tests keep a seeded sample): no hex passes; of base64 about 1 in 600 of 12
characters, 1 in 3,000 of 16, 1 in 15,000 of 20, at most 1 in 20,000 of 22 and 27, none
of 32 or 43 (a token's lengths). A variable the user names in
`AGENT_CLI_SECRET_NAMES` is hidden whatever it holds. A path with a blank (`Program
Files`), a random folder (`/tmp/<hex>/key.json`) or a lone file (`/credentials.json`,
`~/.netrc`) is no path here, and stays hidden.
"""

from __future__ import annotations

import re

# The start of a path: absolute (not `//`, a network share or a token's doubled `/`),
# the home folder, relative to here, or a Windows drive.
_PATH_START = re.compile(r"(?P<root>/(?!/))|(?P<marked>~/|\.\.?/|[A-Za-z]:[\\/])")
MIN_NAMED_SEGMENTS = 2
# What a file name must end in to stand alone after `~/`, `./`, `../` or a drive, to end
# a relative path without them, and to let its stem hold a key's id.
KEY_FILE_EXTENSIONS = frozenset(
    {
        *("json", "pem", "key", "crt", "cer", "der", "p12", "pfx", "jks", "keystore"),
        *("pub", "ppk", "gpg", "asc", "kdbx", "txt", "yaml", "yml", "toml", "ini"),
        *("cfg", "conf", "env", "properties", "xml"),
    }
)
PATH_SEGMENT = re.compile(r"[A-Za-z0-9._@-]+")
NAME_WORD = re.compile(
    r"[0-9a-f]+"
    r"|[0-9]*(?:[a-z]+|[A-Z]+|(?:[A-Z]+(?=[A-Z][a-z])|[a-z]+)?(?:[A-Z][a-z]{2,})+)[0-9]*"
)
RANDOM_HEX_CHARS = 8
RANDOM_DIGITS = 8
LONGEST_NAME_RUN = 16
_RANDOM_WORD = re.compile(
    rf"(?=[a-f]*[0-9])[0-9a-f]{{{RANDOM_HEX_CHARS},}}"
    rf"|.*(?:[0-9]{{{RANDOM_DIGITS},}}|[a-z]{{{LONGEST_NAME_RUN + 1},}}"
    rf"|[A-Z]{{{LONGEST_NAME_RUN + 1},}}).*"
)
_LETTERS_OF_A_NAME = re.compile(r"[A-Za-z]+|.*[A-Za-z]{2}.*")
_SEPARATORS = re.compile(r"[\\/]")
_WORD_BREAKS = re.compile(r"[._@-]")


def is_path_value(value: str) -> bool:
    """Whether `value` is plainly a file-system path (module contract)."""
    value = value.strip()
    start = _PATH_START.match(value)
    segments = _SEPARATORS.split(value[start.end() :] if start else value)
    if segments and segments[-1] == "" and len(segments) > 1:
        segments.pop()  # a folder written with its trailing `/`
    if not all(_is_path_segment(segment) for segment in segments):
        return False
    *folders, last = segments
    if any(_holds_random_word(folder) for folder in folders):
        return False
    is_file = _is_key_file_name(last)
    if not (is_file or (_names_something(last) and not _holds_random_word(last))):
        return False
    if start is not None and start.group("marked") is not None and not folders:
        return is_file
    named = sum(_names_something(segment) for segment in folders) + 1
    return named >= MIN_NAMED_SEGMENTS and (start is not None or is_file)


def is_random_word(word: str) -> bool:
    """A word of a segment that is a key's random part, no name (module contract)."""
    return bool(_RANDOM_WORD.fullmatch(word))


def is_name_word(word: str) -> bool:
    """A word of a segment that names something (module contract)."""
    return bool(_LETTERS_OF_A_NAME.fullmatch(word)) and not is_random_word(word)


def _is_path_segment(segment: str) -> bool:
    """A segment of path characters whose words all have a name's shape."""
    if not PATH_SEGMENT.fullmatch(segment):
        return False
    return all(not word or NAME_WORD.fullmatch(word) for word in _words(segment))


def _is_key_file_name(segment: str) -> bool:
    """A file name with a known extension whose stem names something."""
    stem, dot, extension = segment.rpartition(".")
    return bool(dot) and extension.lower() in KEY_FILE_EXTENSIONS and _names_something(stem)


def _names_something(segment: str) -> bool:
    return any(is_name_word(word) for word in _words(segment))


def _holds_random_word(segment: str) -> bool:
    return any(is_random_word(word) for word in _words(segment))


def _words(segment: str) -> list[str]:
    return _WORD_BREAKS.split(segment)
