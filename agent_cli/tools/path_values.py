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
- it starts as a path does: `/` (not `//`), `~/`, `./`, `../`, a drive (`C:\\`,
  `C:/`), or a variable that holds a folder, which reads as `~/` does (`$HOME/`,
  `${XDG_CONFIG_HOME}/`, `$env:USERPROFILE\\`, `%APPDATA%\\`: `_PATH_START`): a
  well-known one (`LOCATION_VARIABLES`) or one named as a folder (`$CONFIG_DIR/`); any
  other (`$a/Summer/Autumn`) is a password's `$` as much, and no start; or,
  relative, its last segment is a file name with a key's or a setting file's extension
  (`KEY_FILE_EXTENSIONS`: `keys/sa.json`), or it is a known file name alone (`.env.local`);
- segments are split at `/` or `\\`, none empty but a trailing one (a folder), of path
  characters only (`PATH_SEGMENT`: letters, digits, `.`, `_`, `-`, `@`; no `+` or `=`; a
  blank only in a known folder's name, `FOLDERS_WITH_BLANKS`: `Application Support`,
  `Program Files`, which names nothing); each word of a segment (the pieces between
  `.`, `_`, `-`, `@`) is digits alone, lower-case hex alone, or letters in one case or
  written as words are (`Library`, `serviceAccountKey`, `HTTPServer`), with digits
  before or after (`ed25519`, `deploy2024`, `2fa`): `NAME_WORD`; or a word in lower
  case and a signing algorithm's mark (`jwtRS256`, `hmacSHA512`: `_ALGORITHM_NAME`), a
  name; or, naming nothing by itself, digits between two short runs of letters in one
  case (`k3s`, `i18n`, `sha256sum`, `K8S`: `_MIXED_WORD`); never random case (`zXkjHx`,
  `jvFLU4`, `kjhHGF123`) nor digits and letters mixed further (`k9Pq`);
- a word is random (`is_random_word`) when it is lower-case hex with a digit of
  `RANDOM_HEX_CHARS` or more (`3f2a1b9c`), a run of `RANDOM_DIGITS` digits or more that
  is no date (`20240115` is one), or a run of letters in one case longer than
  `LONGEST_NAME_RUN` (`abcdefghijklmnopqrstu`); a word is a name (`is_name_word`) when
  it is no random word and it holds letters: letters alone (`x`, `Library`) or two
  letters in a row with digits (`ed25519`, `v1` is none: hex pieces such as `9a2f` and
  version marks name nothing);
- a segment names something when one of its words is a name (a known folder with a
  blank does not: `/Program Files/Password1` names one thing); no segment but the last
  holds a random word; the last segment is a file name with a known extension, maybe
  followed by up to `MAX_QUALIFIERS` known qualifiers (`QUALIFIERS`:
  `credentials.yml.enc`, `.pem.bak`, `.env.development.local`; not any word,
  `.env.hunter`), whose stem names something (`jwtRS256.key`; mixed words alone,
  `kp9wz.json`, are a random string's shape as much; random words beside a name are the
  key's id, as Google writes `myproject-3f2a1b9c0d4e.json`; a stem of hex alone,
  `secrets/<hex>.json`, is none, since a hex file name under a credential name may as
  well be the credential), or a name with no random word (`id_ed25519`, `credentials`,
  a folder);
- at least `MIN_NAMED_SEGMENTS` segments name something (`/run/secrets/db_password`,
  `~/.aws/credentials`); after `~/`, `./`, `../`, a drive or a variable a single segment
  may stand alone only as a file name with a known extension (`~/sa.json`) or as a known
  key or setting file's name (`KEY_FILE_NAMES`, maybe qualified: `./id_rsa`, `~/.netrc`,
  `./.env.production`): a single word after them (`./hunter2024`, `C:\\Summer2024`,
  `~/sk-proj-...`) is a password's or a token's shape as much as a file's; relative with
  no mark, a single segment stands alone only as a known file's name (`.env.local`).
Measured on random base64 and hex after `/`, `~/`, `./`, `C:\\`, `$HOME/` (40,000 of each
length; the tests keep a seeded sample): no hex passes; of base64 61-71 of 12 characters
(about 1 in 600; 73-79 before the review of round 29), 6-14 of 16, 1-5 of 20, 0-4 of
22, 0-1 of 27, none of 32 or 43 (a token's lengths); of generated passwords of letters,
digits and `$/._-@` (40,000 each of 16 and 20 characters), none. A variable the user
names in `AGENT_CLI_SECRET_NAMES` is hidden whatever it holds. A path with a blank
elsewhere (`my keys`), a random folder (`/tmp/<hex>/key.json`) or a lone file after `/`
(`/credentials.json`) is no path here, and stays hidden.
"""

from __future__ import annotations

import re

# The start of a path: absolute (not `//`, a network share or a token's doubled `/`),
# the home folder, relative to here, a Windows drive, or a variable that holds a folder
# (`$HOME/`, `${XDG_CONFIG_HOME}/`, PowerShell's `$env:USERPROFILE\`, cmd's `%APPDATA%\`),
# which reads as `~/` does.
_VARIABLE = (
    r"\$(?P<powershell>env:)?(?P<name>[A-Za-z_]\w*)|\$\{(?P<braced>[A-Za-z_]\w*)\}"
    r"|%(?P<cmd>[A-Za-z_]\w*)%"
)
_PATH_START = re.compile(
    rf"(?P<root>/(?!/))|(?P<marked>~/|\.\.?/|[A-Za-z]:[\\/]|(?P<variable>{_VARIABLE})[\\/])",
    re.ASCII,
)
# Variables that hold a folder, so that a path may start with one as with `~/`: these,
# or a name in capitals that says it is a folder (`_LOCATION_NAME`: `$CONFIG_DIR/`,
# `${APP_HOME}/`); POSIX names as written, Windows' (whose case does not matter there)
# compared in capitals. Any other (`$a/Summer/Autumn`, `$money/money/money`) is a
# password's `$` as much as a variable's, and the value has no path start.
LOCATION_VARIABLES = frozenset(
    {
        *("HOME", "PWD", "OLDPWD", "TMPDIR", "TEMP", "TMP", "USERPROFILE", "HOMEPATH"),
        *("APPDATA", "LOCALAPPDATA", "PROGRAMDATA", "ALLUSERSPROFILE", "PROGRAMFILES"),
        *("SYSTEMROOT", "WINDIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"),
        *("XDG_CACHE_HOME", "XDG_RUNTIME_DIR", "GNUPGHOME", "CREDENTIALS_DIRECTORY"),
        *("GITHUB_WORKSPACE", "RUNNER_TEMP", "CI_PROJECT_DIR", "WORKSPACE"),
    }
)
_LOCATION_NAME = re.compile(r"[A-Z][A-Z0-9_]*_(?:DIR|DIRECTORY|FOLDER|HOME|ROOT)", re.ASCII)
MIN_NAMED_SEGMENTS = 2
# What a file name must end in to stand alone after `~/`, `./`, `../`, a drive or a
# variable, to end
# a relative path without them, and to let its stem hold a key's id.
KEY_FILE_EXTENSIONS = frozenset(
    {
        *("json", "pem", "key", "crt", "cer", "der", "p12", "pfx", "jks", "keystore"),
        *("pub", "ppk", "gpg", "asc", "kdbx", "txt", "yaml", "yml", "toml", "ini"),
        *("cfg", "conf", "env", "properties", "xml"),
    }
)
# Names of key and setting files that need no extension to be plainly one, alone after a
# mark or relative (`./id_rsa`, `~/.netrc`, `.env`). Words as general as `credentials`
# or `token` are none: alone, `/credentials` is a word more than a file.
KEY_FILE_NAMES = frozenset(
    {
        *("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk"),
        *(".env", ".envrc", ".netrc", "_netrc", ".pgpass", ".npmrc", ".yarnrc", ".pypirc"),
        *(".git-credentials", ".dockercfg", ".htpasswd", ".vault-token", ".boto"),
        *(".s3cfg", ".my.cnf", ".authinfo", "authorized_keys", "known_hosts"),
    }
)
# A file name's last extensions that qualify it (`.yml.enc`, `.env.local`,
# `.env.development.local`, `.pem.bak`), at most this many, from this list (compared in
# lower case): any word would let `.env.hunter` or `id_rsa.Summer` through.
MAX_QUALIFIERS = 2
QUALIFIERS = frozenset(
    {
        *("local", "production", "prod", "development", "dev", "staging", "stage"),
        *("test", "testing", "ci", "preview", "qa", "uat", "example", "sample"),
        *("template", "dist", "defaults", "default", "override", "vault", "me"),
        *("enc", "encrypted", "sops", "gpg", "pgp", "age", "asc"),
        *("bak", "backup", "old", "orig", "save", "new", "tmp", "copy"),
    }
)
# Folders whose names hold a blank, which a path may pass through (compared casefolded).
FOLDERS_WITH_BLANKS = frozenset(
    {
        *("application support", "mobile documents", "program files", "common files"),
        *("application data", "local settings", "my documents", "cloud sdk"),
        *("google drive", "my drive"),
    }
)
PATH_SEGMENT = re.compile(r"[A-Za-z0-9._@-]+")
NAME_WORD = re.compile(
    r"[0-9a-f]+"
    r"|[0-9]*(?:[a-z]+|[A-Z]+|(?:[A-Z]+(?=[A-Z][a-z])|[a-z]+)?(?:[A-Z][a-z]{2,})+)[0-9]*"
)
# A word with digits among its letters, as a tool's name is written: digits between two
# short runs of letters in one case (`k3s`, `i18n`, `sha256sum`, `K8S`); hex alone is none.
_MIXED_WORD = re.compile(r"[a-z]{1,3}[0-9]{1,3}[a-z]{1,4}|[A-Z]{1,3}[0-9]{1,3}[A-Z]{1,3}")
# A word in lower case followed by a signing algorithm's mark (`jwtRS256`, `keyES384`,
# `hmacSHA512`), which names a key; other capitals and digits after lower case
# (`jvFLU4`, `kjhHGF123`) are a random string's.
_ALGORITHM_NAME = re.compile(
    r"[a-z]{2,}(?:(?:RS|PS|ES|HS|SHA)(?:256|384|512)|SHA1|P(?:256|384|521))"
)
RANDOM_HEX_CHARS = 8
RANDOM_DIGITS = 8
LONGEST_NAME_RUN = 16
_RANDOM_WORD = re.compile(
    rf"(?=[a-f]*[0-9])[0-9a-f]{{{RANDOM_HEX_CHARS},}}"
    rf"|.*(?:[0-9]{{{RANDOM_DIGITS},}}|[a-z]{{{LONGEST_NAME_RUN + 1},}}"
    rf"|[A-Z]{{{LONGEST_NAME_RUN + 1},}}).*"
)
# A date written as eight digits (`20240115`), a folder's name, not a key's digits.
_DATE = re.compile(r"(?:19|20)[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])")
_HEX_ALONE = re.compile(r"[0-9a-f]+|[0-9A-F]+")
_LETTERS_OF_A_NAME = re.compile(r"[A-Za-z]+|.*[A-Za-z]{2}.*")
_SEPARATORS = re.compile(r"[\\/]")
_WORD_BREAKS = re.compile(r"[._@-]")


def is_path_value(value: str) -> bool:
    """Whether `value` is plainly a file-system path (module contract)."""
    value = value.strip()
    start = _path_start(value)
    segments = _SEPARATORS.split(value[start.end() :] if start else value)
    if segments and segments[-1] == "" and len(segments) > 1:
        segments.pop()  # a folder written with its trailing `/`
    if not all(_is_path_segment(segment) for segment in segments):
        return False
    *folders, last = segments
    if any(_holds_random_word(folder) for folder in folders):
        return False
    if not folders:
        return _stands_alone(last, start)
    is_file = _is_key_file_name(last)
    if not (is_file or (_names_something(last) and not _holds_random_word(last))):
        return False
    named = sum(_names_something(segment) for segment in folders) + 1
    return named >= MIN_NAMED_SEGMENTS and (start is not None or is_file)


def _path_start(value: str) -> re.Match[str] | None:
    """How `value` starts as a path does, None when it does not (a variable that holds no
    known folder is no start)."""
    start = _PATH_START.match(value)
    if start is None or start.group("variable") is None:
        return start
    name = start.group("name") or start.group("braced")
    if name is None or start.group("powershell") is not None:
        name = (name or start.group("cmd")).upper()  # Windows: case does not matter
    return start if _is_location_variable(name) else None


def _is_location_variable(name: str) -> bool:
    return name in LOCATION_VARIABLES or bool(_LOCATION_NAME.fullmatch(name))


def _stands_alone(segment: str, start: re.Match[str] | None) -> bool:
    """A single segment is a path only as a known file's name (`.env.local`) or, after a
    mark or a variable, a key file's name (`~/sa.json`); after `/` alone, never."""
    if start is None:
        return _is_known_file_name(segment)
    if start.group("marked") is None:
        return False
    return _is_key_file_name(segment) or _is_known_file_name(segment)


def is_random_word(word: str) -> bool:
    """A word of a segment that is a key's random part, no name (module contract)."""
    return bool(_RANDOM_WORD.fullmatch(word)) and not _DATE.fullmatch(word)


def is_name_word(word: str) -> bool:
    """A word of a segment that names something (module contract)."""
    if _ALGORITHM_NAME.fullmatch(word):
        return True
    return bool(
        NAME_WORD.fullmatch(word) and _LETTERS_OF_A_NAME.fullmatch(word)
    ) and not is_random_word(word)


def _is_mixed_word(word: str) -> bool:
    """A word with digits among letters (`k3s`), which a path may hold but which names
    nothing by itself."""
    if _HEX_ALONE.fullmatch(word):
        return False  # a key id's piece, `ab12cd`
    return bool(_MIXED_WORD.fullmatch(word)) and not is_random_word(word)


def _is_path_segment(segment: str) -> bool:
    """A segment of path characters whose words all have a name's shape, or a known
    folder whose name holds a blank."""
    if _is_folder_with_blanks(segment):
        return True
    if not PATH_SEGMENT.fullmatch(segment):
        return False
    return all(
        not word or NAME_WORD.fullmatch(word) or _is_mixed_word(word) or is_name_word(word)
        for word in _words(segment)
    )


def _is_key_file_name(segment: str) -> bool:
    """A file name with a known extension, maybe qualified (`credentials.yml.enc`), whose
    stem names something (`jwtRS256.key`; a stem of mixed words alone, `kp9wz.json`, is
    a random string's shape as much as a name)."""
    stem, dot, extension = _unqualified(segment).rpartition(".")
    if not dot or extension.lower() not in KEY_FILE_EXTENSIONS:
        return False
    return _names_something(stem)


def _is_known_file_name(segment: str) -> bool:
    """One of `KEY_FILE_NAMES`, maybe qualified (`.env.local`, `id_rsa.old`)."""
    return segment in KEY_FILE_NAMES or _unqualified(segment) in KEY_FILE_NAMES


def _unqualified(segment: str) -> str:
    """`segment` without up to `MAX_QUALIFIERS` last extensions of letters that are no
    known extension: `credentials.yml.enc` is `credentials.yml`, `.env.local` is `.env`."""
    for _ in range(MAX_QUALIFIERS):
        rest, dot, extension = segment.rpartition(".")
        if not (dot and rest and extension.lower() in QUALIFIERS):
            break
        if extension.lower() in KEY_FILE_EXTENSIONS or segment in KEY_FILE_NAMES:
            break
        segment = rest
    return segment


def _is_folder_with_blanks(segment: str) -> bool:
    return " " in segment and segment.casefold() in FOLDERS_WITH_BLANKS


def _names_something(segment: str) -> bool:
    """Whether a word of `segment` is a name; a known folder with a blank is none (`/Program
    Files/Password1` is one name)."""
    if _is_folder_with_blanks(segment):
        return False
    return any(is_name_word(word) for word in _words(segment))


def _holds_random_word(segment: str) -> bool:
    if _is_folder_with_blanks(segment):
        return False
    return any(is_random_word(word) for word in _words(segment))


def _words(segment: str) -> list[str]:
    return _WORD_BREAKS.split(segment)
