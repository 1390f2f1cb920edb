"""Whether a value is plainly a file-system path, not a credential. Pure.

Why: a credential-named variable often holds where its credential is, not the credential
(`GOOGLE_APPLICATION_CREDENTIALS=/home/dev/keys/gcp-sa.json`, `SSH_KEY=~/.ssh/id_deploy`),
as a `*_FILE` or `*_PATH` name says outright. Hidden, the path would blank every line that
names it (a volume in docker-compose.yml), and the model would write `[REDACTED]` back.

Contract: `is_path_value(value)`, of the value stripped:
- it starts as a path does: `/` (not `//`) with at least two segments after it
  (`/run/secrets/token`; `/credentials.json` alone is no path worth the doubt), `~/`,
  `./`, `../`, or a drive (`C:\\`, `C:/`); or, relative, it has at least two segments and
  its last ends in a key's or a setting file's extension (`KEY_FILE_EXTENSIONS`:
  `keys/sa.json`);
- segments are split at `/` or `\\`, none empty but a trailing one, of path characters
  only (`PATH_SEGMENT`: letters, digits, `.`, `_`, `-`, `@`; no blank, no `+` or `=`);
- every word of every segment (the pieces between `.`, `_`, `-`, `@`) looks like a name a
  person gives (`NAME_WORD`): digits alone (`2024`), lower-case hex alone (the key id in
  `myproject-3f2a1b9c0d4e.json`), or letters in one case, or written as words are
  (`Library`, `serviceAccountKey`, `HTTPServer`: a capital starts two or more small
  letters, or a run of capitals before such a word), with digits before or after
  (`ed25519`, `deploy2024`, `2fa`); never digits between letters (`k9Pq`) nor random case
  (`zXkjHx`).
Why the words: 1 in 64 base64 tokens starts with `/`, and many hold more `/`; their
segments are runs of mixed case and digits, which no word of a name is. Measured on
random base64 starting with `/` (40,000 of each length): about 1 in 350 of 12
characters passes, 1 in 1,600 of 16, at most 1 in 40,000 from 22, none from 27. A
variable the user names in `AGENT_CLI_SECRET_NAMES` is hidden whatever it holds. A path
with a blank (`Program Files`) or a segment of random characters is no path here, and
stays hidden: the rule errs towards hiding.
"""

from __future__ import annotations

import re

# The start of a path: absolute (not `//`, a network share or a token's doubled `/`),
# the home folder, relative to here, or a Windows drive; and how many segments must follow.
_PATH_START = re.compile(r"(?P<root>/(?!/))|(?P<marked>~/|\.\.?/|[A-Za-z]:[\\/])")
MIN_ROOTED_SEGMENTS = 2
MIN_RELATIVE_SEGMENTS = 2
# What a relative path without `./` must end in to be told from a token holding `/`.
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
_SEPARATORS = re.compile(r"[\\/]")
_WORD_BREAKS = re.compile(r"[._@-]")


def is_path_value(value: str) -> bool:
    """Whether `value` is plainly a file-system path (module contract)."""
    value = value.strip()
    start = _PATH_START.match(value)
    segments = _SEPARATORS.split(value[start.end() :] if start else value)
    if segments and segments[-1] == "" and len(segments) > 1:
        segments.pop()  # a folder written with its trailing `/`
    if not all(_is_name_segment(segment) for segment in segments):
        return False
    if start is None:
        extension = segments[-1].rpartition(".")[2].lower()
        return len(segments) >= MIN_RELATIVE_SEGMENTS and extension in KEY_FILE_EXTENSIONS
    return start.group("marked") is not None or len(segments) >= MIN_ROOTED_SEGMENTS


def _is_name_segment(segment: str) -> bool:
    """A segment of path characters whose words all look like names (module contract)."""
    if not PATH_SEGMENT.fullmatch(segment):
        return False
    return all(not word or NAME_WORD.fullmatch(word) for word in _WORD_BREAKS.split(segment))
