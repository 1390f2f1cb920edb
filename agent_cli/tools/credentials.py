"""Which configured values are credentials, and the credentials inside a value.

`tools.redaction.collect_secret_values` (agent-cli's own environment) and
`collect_mcp_secret_values` (what config.toml gives MCP servers) ask here.

Contract:
Which names are a credential's is `tools.credential_names.is_credential_name`'s one rule,
asked here of variables, keys, flags and header names.
- `is_setting_word(value)`: a value that is a setting, not a secret (`true`, `disabled`,
  `required`, ...), though its variable looks like a credential.
- `holds_no_secret(name, value)`: a value credential-named `name` holds that is no
  secret: a setting word, plainly a file-system path (`tools.path_values.is_path_value`:
  `GOOGLE_APPLICATION_CREDENTIALS=/home/dev/keys/sa.json`, `SSH_KEY=~/.ssh/id_deploy`),
  which says where the credential is, as a `*_FILE` name's value does, or a setting its
  name's last part says it is (`tools.setting_values.is_setting_value`: a plain URL under
  `*_TOKEN_URL`, digits under `*_EXPIRATION_MS`, a column's name under
  `*_PARTITION_KEY`). Every reader that takes a credential name's value whole asks it
  (the environment, dotenv files, an MCP server's `env` and flags, a JSON value's keys, a
  header list, a header line).
- `is_ordinary_word(value)`: a value that is one ordinary word (`postgres`), which a
  variable that looks like a credential may hold; it is not hidden unless the user
  names the variable.
- `credentials_inside(value)`: the credentials a value holds inside it, whatever its
  name: those of the URLs in it (`tools.url_credentials`: a password, a user part with a
  key's shape as in `https://<token>@github.com/`, credential-named query parameters,
  `jdbc:mysql://user:password@host` too); in a JSON (or JSONC) object or array (a
  service-account key, a headers object) each value that `tools.dotenv_json.json_pairs`
  names by a credential name and that is no setting word, the same reading a `.env.json`
  file gets: by its own key (`private_key`, `client_secret`, `Authorization`, `apiKey`)
  at any depth, by a name member (`{"name": "GITHUB_TOKEN", "value": X}`), or by a
  credential-named key above it when it looks like a key (`{"auth": {"header":
  "Authorization", "region": "us-east-1"}}` holds none), and of an `<scheme>
  <credential>` string the credential alone too; one no parser takes whole (nested past
  it, cut short) is read token by token and never stops the start; in a `key=value;...` connection
  string (`AccountKey=...;`, `Password=...;`, `Pwd=...;`) the credential-named values;
  a database password in a connection form that is no URL (`tools.connection_credentials`:
  `password=`/`pwd=` in libpq's `host=db password=X` and elsewhere, the Go MySQL DSN
  `user:X@tcp(host)/db`, Oracle's EZConnect `user/X@//host:1521/service`);
  the credential of an authorization written anywhere in it (`Authorization: <scheme>
  <credential>`, `Proxy-Authorization: ...`, and `Bearer <credential>` or `Basic
  <credential>` on its own: a header passed through a variable of any name, mcp-remote's
  `AUTH_HEADER`); of a header line written in it (`tools.header_lines`: one word, a
  scheme and a word, or cookies; not prose such as `Token: see the wiki` nor a
  `$VARIABLE`) whose name `is_credential_name` takes (`X-API-Key: X`, `Cookie:
  session=X`, `Private-Token: X`) and whose value is no setting word, what
  `named_header_credentials` takes of its value (of a cookie header, the line and its
  credential cookies alone: `header_lines.credential_cookies`); such a line found in a
  longer value is a guess, so its credential must have a key's shape
  (`header_lines.has_key_shape`: `X-RateLimit-Key: ip-address`, `Jira-Key: PROJ-1234`,
  `X-API-Key: YOUR_API_KEY`, `Cookie: tz=Europe/Berlin` hold none); and every PEM or OpenSSH private key
  block (`-----BEGIN RSA PRIVATE KEY-----` to its `-----END ...-----`: `OPENSSH`, `ENCRYPTED`, `EC`, `DSA`, PKCS#8, OpenPGP's `PGP
  PRIVATE KEY BLOCK`), whole, as a value that spans lines (with its `\\n` made line
  breaks too when it is written on one line); a certificate or public key is none.
- `header_list_credentials(name, value)`: of a variable whose name says it holds a
  header list (`header_lines.names_a_header_list`: `OTEL_EXPORTER_OTLP_HEADERS`), the
  credentials of each `name=value` header in it (percent-decoded) but `PLAIN_HEADERS`:
  of a credential-named one (`api-key=X`, `Authorization=Bearer%20X`) or one whose value
  has a key's shape (`x-honeycomb-team=X`), as `named_header_credentials` takes them and
  those inside them (`x-uptrace-dsn=https://X@host/1`); `x-honeycomb-dataset=web` is none.
- `header_credentials(value)`: a header value, the credential after its scheme (`Bearer
  xyz`: `xyz`) and, of `Basic`, what it decodes to and the password in it.
- `named_header_credentials(name, value)`: of a header that carries a credential (any
  but `PLAIN_HEADERS`), `header_credentials(value)`, and of `Cookie` each cookie's value
  too (of `Set-Cookie`, its cookie's; the rest are attributes).
- `argument_credentials(args)`: the credentials in a command's arguments (an MCP
  server's `args`): those inside each argument (`credentials_inside`), the value of a
  flag whose name looks like a credential, with two dashes or one (`--access-token X`,
  `--api-key=X`, `--password X`, Go's `-token X`, `-apikey X`, `-token=X`), of a
  `NAME=value` argument so named (`-e GITHUB_TOKEN=X`) or a flag's `NAME=value` so named
  (`--env=GITHUB_TOKEN=X`), and of a header flag (`--header "Authorization: Bearer X"`)
  whose header carries a credential: `named_header_credentials`; and an argument that is
  a key on its own (`token_shape.has_key_alone`), by a service's prefix (`npx -y
  some-mcp ghp_...`, `-- sk-live-... serve`) or a generated key's shape (`srv AKIA...
  wJalrXUtnFEMI/K7MDENG/...`: 32 characters of base64 with both cases and a digit; a
  commit SHA, a hex id, a shorter id is none). An argument a shell
  runs as a command line (`sh -c "exec srv --api-key X"`, `cmd /c`, `powershell
  -Command`: `tools.shell_command_lines`) is read as the shell reads it: the words of
  each of its commands by this same rule, a `NAME=value` before the program as an
  assignment (`GITHUB_TOKEN=X exec srv`: `X`), not as one value. A flag's or a
  `NAME=`'s value that is a placeholder (`tools.placeholders`: `--password=${DB_PASS}`)
  is none.
- `decoded_credentials(value)`: of a credential kept in base64 (as CI variables keep a
  registry's `user:password`, a service-account key or a kubeconfig: `GCP_SA_KEY`,
  `REGISTRY_AUTH`, `KUBECONFIG_DATA`; wrapped on lines or with its breaks written `\n`),
  what it decodes to when that is text (UTF-8, printable but for line breaks and tabs):
  the credentials inside the text (`credentials_inside`: a service-account key's
  `private_key`, a kubeconfig's token), each read the same way in turn, `MAX_DECODINGS`
  deep, or, when it holds none, the text whole and trimmed; and the password of a
  `user:password` so decoded (a user part of a name's characters, no blank after). A
  command that decodes the value (`base64 -d`) prints the secret itself, not a form of
  it. A value whose octets are no text (a random key, a hex digest) decodes to nothing.
Nothing here checks length: the caller leaves out values too short to tell from text.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator, Sequence

from agent_cli.secret_encodings import decode_base64
from agent_cli.tools.connection_credentials import connection_passwords
from agent_cli.tools.credential_names import is_credential_name, name_parts
from agent_cli.tools.dotenv_json import json_pairs
from agent_cli.tools.header_lines import (
    COOKIE_HEADERS,
    credential_cookies,
    has_key_shape,
    header_lines_in,
    header_list_pairs,
    names_a_header_list,
)
from agent_cli.tools.path_values import is_path_value
from agent_cli.tools.placeholders import is_placeholder
from agent_cli.tools.setting_values import is_setting_value
from agent_cli.tools.shell_command_lines import command_lines, command_words
from agent_cli.tools.token_shape import has_key_alone, looks_like_token
from agent_cli.tools.url_credentials import url_credentials

# Values a credential-named variable holds when it is a setting, not a secret.
SETTING_WORDS = frozenset(
    {
        "true",
        "false",
        "yes",
        "no",
        "on",
        "off",
        "enabled",
        "disabled",
        "required",
        "optional",
        "none",
        "null",
        "undefined",
        "default",
        "auto",
    }
)
# Headers that carry no credential; every other header value configured is taken as one.
PLAIN_HEADERS = frozenset(
    {
        "accept",
        "accept-charset",
        "accept-encoding",
        "accept-language",
        "cache-control",
        "connection",
        "content-language",
        "content-type",
        "host",
        "mcp-protocol-version",
        "origin",
        "pragma",
        "referer",
        "user-agent",
    }
)
AUTH_SCHEME = re.compile(r"^\s*([A-Za-z][A-Za-z0-9._-]*)\s+(\S.*?)\s*$")
# An authorization written inside a longer value: the header's line (any scheme), or a
# `Bearer`/`Basic` credential standing on its own.
AUTHORIZATION_LINE = re.compile(
    r"(?i)(?<![A-Za-z0-9-])(?:proxy-)?authorization\s*[:=]\s*([^\r\n]+)"
)
SCHEME_CREDENTIAL = re.compile(r"(?i)(?<![A-Za-z0-9])(bearer|basic)\s+([A-Za-z0-9._~+/=-]+)")
# Keys of a `key=value;...` connection string that hold a credential but are no credential
# name elsewhere (ODBC's `Pwd`; Azure's `SharedAccessSignature`).
CONNECTION_STRING_CREDENTIALS = frozenset({"PWD", "SHAREDACCESSSIGNATURE"})
HEADER_FLAGS = frozenset({"-H", "--header", "--headers"})
MAX_SHELL_NESTING = 4  # `sh -c "bash -c '...'"`: shells inside a shell's command line
_ARGUMENT_NAME = re.compile(r"-{0,2}[A-Za-z0-9][A-Za-z0-9_.-]*")  # `--2fa-seed` too
_CONNECTION_PAIR = re.compile(r"^\s*([A-Za-z][A-Za-z0-9 _.-]*?)\s*=\s*(.*?)\s*$")
# A PEM or OpenSSH private key block (`RSA`, `EC`, `DSA`, `OPENSSH`, `ENCRYPTED`, PKCS#8's
# bare `PRIVATE KEY`, OpenPGP's `PGP PRIVATE KEY BLOCK`), from its BEGIN line to the END
# line of the same label, or to the end of the value when that is missing (a key cut
# short is still key material).
PRIVATE_KEY_BLOCK = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----.*?(?:-----END \1-----|\Z)",
    re.DOTALL,
)


_ORDINARY_WORD = re.compile(r"[a-z]{1,12}|[A-Z][a-z]{1,11}|[A-Z]{1,12}")


def is_setting_word(value: str) -> bool:
    return value.strip().lower() in SETTING_WORDS


def holds_no_secret(name: str, value: str) -> bool:
    """Whether credential-named `name`'s `value` is a setting word, a path or a setting
    its name says it is (module contract)."""
    return is_setting_word(value) or is_path_value(value) or is_setting_value(name, value)


def is_ordinary_word(value: str) -> bool:
    """A value that is one ordinary word: letters only, in one case or capitalized, at
    most 12 (`postgres`, `password`, `Changeme`). Hidden, it would blank that word in
    every result (an image name, a path, a function name) and grep would miss its lines;
    a variable the user names in `AGENT_CLI_SECRET_NAMES` is hidden whatever its value."""
    return bool(_ORDINARY_WORD.fullmatch(value.strip()))


def credentials_inside(value: str) -> Iterator[str]:
    """The credentials `value` holds inside it (module contract)."""
    yield from url_credentials(value)
    yield from _json_credentials(value)
    yield from _connection_string_credentials(value)
    yield from connection_passwords(value)
    yield from _authorization_credentials(value)
    yield from _written_header_credentials(value)
    yield from _private_key_blocks(value)


MAX_DECODINGS = 3  # a credential encoded in base64 inside one encoded so, and once more
_BASE64_TEXT = re.compile(r"[A-Za-z0-9+/_-]{12,}={0,2}")
_BASE64_BREAKS = re.compile(r"\s+|\\n")  # line breaks, as written or as `\n` in a `.env`
_TEXT_BLANKS = frozenset("\n\r\t")
_USER_NAME = re.compile(r"[\w.@+-]+")  # the user part of a `user:password`


def decoded_credentials(value: str, depth: int = MAX_DECODINGS) -> Iterator[str]:
    """What a credential kept in base64 decodes to, and the credentials in that (module
    contract)."""
    text = _decoded_text(value)
    if text is None or depth <= 0:
        return
    inside = list(dict.fromkeys(credentials_inside(text)))
    if not inside:  # else what holds a credential is no credential whole (a key's JSON)
        yield text
    user, colon, password = text.partition(":")
    if _is_user_password(user, colon, password):
        yield password  # `user:password`, as a registry's `auth` holds it
    yield from decoded_credentials(text, depth - 1)  # (encoded twice)
    for found in inside:
        yield found
        yield from decoded_credentials(found, depth - 1)


def _is_user_password(user: str, colon: str, password: str) -> bool:
    """Whether `user:password` reads as a login (a URL's `https://...` is none)."""
    if not colon or _USER_NAME.fullmatch(user) is None or password.startswith("//"):
        return False
    return not any(c.isspace() for c in password)


def _decoded_text(value: str) -> str | None:
    """The text base64 `value` (either alphabet, wrapped on lines or not) stands for,
    trimmed, or None when it is no base64 or its octets are no printable UTF-8 text."""
    compact = _BASE64_BREAKS.sub("", value)
    if not _BASE64_TEXT.fullmatch(compact):
        return None
    data = decode_base64(compact)
    try:
        text = data.decode("utf-8").strip() if data else ""
    except UnicodeDecodeError:
        return None
    if not text or not all(c.isprintable() or c in _TEXT_BLANKS for c in text):
        return None
    return text


def _authorization_credentials(value: str) -> Iterator[str]:
    """The credentials of the authorizations written in `value` (module contract): only
    what looks like a token (`looks_like_token`), so prose such as `Basic configuration`
    or `Authorization: handled by the gateway` blanks no word in every result."""
    if not re.search(r"(?i)bearer|basic|authorization", value):
        return
    found: list[str] = []
    for line in AUTHORIZATION_LINE.finditer(value):
        words = line.group(1).strip().strip("\"'").split()
        if len(words) in (1, 2) and looks_like_token(words[-1]):
            found.extend(list(header_credentials(" ".join(words)))[len(words) - 1 :])
    for scheme in SCHEME_CREDENTIAL.finditer(value):
        if looks_like_token(scheme.group(2)):
            found.extend(list(header_credentials(f"{scheme.group(1)} {scheme.group(2)}"))[1:])
    yield from found


def header_credentials(value: str) -> Iterator[str]:
    """A header value, and the credential after its scheme (`Bearer xyz`: `xyz`; of
    `Basic`, also what it decodes to and the password in that)."""
    yield value.strip()
    scheme = AUTH_SCHEME.match(value)
    if scheme is None:
        return
    credential = scheme.group(2)
    yield credential
    if scheme.group(1).lower() == "basic":
        try:
            decoded = base64.b64decode(credential, validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            return
        yield decoded
        yield decoded.partition(":")[2]


def argument_credentials(args: Sequence[str]) -> Iterator[str]:
    """The credentials in a command's arguments (module contract)."""
    yield from _arguments_credentials(args, 0)


def _arguments_credentials(args: Sequence[str], depth: int) -> Iterator[str]:
    """Of `args`, each argument's credentials; of one a shell runs as a command line,
    those of the words of its commands instead (a shell in it too, `MAX_SHELL_NESTING`
    deep), so `GITHUB_TOKEN=X exec srv` gives `X`, not `X exec srv`."""
    lines = dict(command_lines(args)) if depth < MAX_SHELL_NESTING else {}
    for index, argument in enumerate(args):
        yield from credentials_inside(argument)
        if index in lines:
            continue
        following = args[index + 1] if index + 1 < len(args) else None
        name, equals, value = argument.partition("=")
        if has_key_alone(argument):  # `npx -y some-mcp ghp_...`, `srv AKIA... wJal...`
            yield argument
        elif name in HEADER_FLAGS:
            line = value if equals else following
            if line is not None:
                yield from _header_line_credentials(line)
        elif equals:
            yield from _assignment_credentials(name, value)
        elif (
            argument.startswith("-")
            and _ARGUMENT_NAME.fullmatch(argument)
            and is_credential_name(argument.lstrip("-"))
            and following is not None
            and not following.startswith("-")
            and not is_placeholder(following)
            and not holds_no_secret(argument.lstrip("-"), following)
        ):
            yield from header_credentials(following)
    for line in lines.values():
        for words in command_words(line):
            yield from _arguments_credentials(words, depth + 1)


def _assignment_credentials(name: str, value: str) -> Iterator[str]:
    """Of `NAME=value` or `--flag=value` (one dash or two), the value when the name looks
    like a credential or the value is a key by its shape (`has_key_alone`); of a
    flag's value that is itself `NAME=value` (docker's `--env=GITHUB_TOKEN=X`,
    `--build-arg=NPM_TOKEN=X`), that value when so named."""
    if not _ARGUMENT_NAME.fullmatch(name):
        return
    if is_credential_name(name.lstrip("-")):
        # `--password=${DB_PASS}` names a value elsewhere; `--credentials=~/sa.json`, a file
        if not is_placeholder(value) and not holds_no_secret(name.lstrip("-"), value):
            yield from header_credentials(value)
    elif has_key_alone(value):  # `--anon=eyJ...`, `KEY=ghp_...`: a key by its shape
        yield value
    elif name.startswith("-"):
        inner_name, equals, inner_value = value.partition("=")
        if equals and not inner_name.startswith("-"):
            yield from _assignment_credentials(inner_name, inner_value)


def named_header_credentials(name: str, value: str) -> Iterator[str]:
    """The credentials of header `name`'s `value` (module contract)."""
    name = name.strip().lower()
    if name in PLAIN_HEADERS or not value.strip():
        return
    yield from header_credentials(value)
    if name in COOKIE_HEADERS:
        pairs = value.split(";")
        for pair in pairs if name == "cookie" else pairs[:1]:  # the rest are attributes
            yield pair.partition("=")[2].strip().strip('"')


def _header_line_credentials(line: str) -> Iterator[str]:
    """Of `Name: value`, the value's credentials when the header carries one."""
    name, colon, value = line.partition(":")
    if colon:
        yield from named_header_credentials(name, value)


def _written_header_credentials(value: str) -> Iterator[str]:
    """Of each header line written in `value` whose name is a credential's (module
    contract), the credentials of its value (`tools.header_lines`)."""
    for name, header in header_lines_in(value):
        if not is_credential_name(name) or holds_no_secret(name, header):
            continue
        if name.lower() in COOKIE_HEADERS:  # the whole line, and its credential cookies
            yield header
            yield from credential_cookies(name, header)
        else:
            yield from named_header_credentials(name, header)


def header_list_credentials(name: str, value: str) -> Iterator[str]:
    """Of a variable whose name says it holds a header list (module contract), the
    credentials of its headers."""
    if not names_a_header_list(name):
        return
    for header, text in header_list_pairs(value):
        if header.lower() in PLAIN_HEADERS or holds_no_secret(header, text):
            continue
        if is_credential_name(header) or has_key_shape(text.split()[-1]):
            yield from named_header_credentials(header, text)
            yield from credentials_inside(text)


def _json_credentials(value: str) -> Iterator[str]:
    """Of a JSON or JSONC object or array, the credentials of each value `json_pairs`
    names by a credential name (module contract): one reader of JSON for the environment,
    config.toml and `.env.json`, so the same JSON is redacted the same in each."""
    for name, text in json_pairs(value):
        if is_credential_name(name) and not holds_no_secret(name, text):
            yield from header_credentials(text)


def _connection_string_credentials(value: str) -> Iterator[str]:
    """Of a `key=value;...` connection string, the values of credential-named keys, but
    not a placeholder (`Password=${DB_PASS};`: `tools.placeholders`)."""
    if ";" not in value or "=" not in value:
        return
    for pair in value.split(";"):
        found = _CONNECTION_PAIR.match(pair)
        if found is None:
            continue
        key = found.group(1)
        if is_placeholder(found.group(2)):
            continue
        if is_credential_name(key) or name_parts(key).replace("_", "") in (
            CONNECTION_STRING_CREDENTIALS
        ):
            yield found.group(2)


def _private_key_blocks(value: str) -> Iterator[str]:
    """Every private key block in `value`, whole (`PRIVATE_KEY_BLOCK`); of a block kept on
    one line with its line breaks written `\\n` (a `.env` file's way), also the block as
    the program that reads it writes it out, on its lines."""
    if "PRIVATE KEY" not in value:
        return
    for found in PRIVATE_KEY_BLOCK.finditer(value):
        block = found.group().strip()
        yield block
        if "\n" not in block and "\\n" in block:
            yield block.replace("\\r\\n", "\n").replace("\\n", "\n")
