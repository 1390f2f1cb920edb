"""Which configured values are credentials, and the credentials inside a value.

`tools.redaction.collect_secret_values` (agent-cli's own environment) and
`collect_mcp_secret_values` (what config.toml gives MCP servers) ask here.

Contract:
- `is_credential_name(name)`: a variable (or JSON key, or flag) name that looks like it
  holds a credential. A credential word as a part of the name, parts split at `_`, `-`,
  `.`, a blank or a lower-to-upper case change (`apiKey`), in the singular or the plural
  (`API_KEYS`, `SLACK_TOKENS`, `APP_SECRETS`, `DB_PASSWORDS`): `KEY` (`STRIPE_KEY`,
  `RAILS_MASTER_KEY`, `APP_KEY`, `AZURE_OPENAI_KEY`, `API_KEY`, `SECRET_KEY`,
  `PRIVATE_KEY`...), `TOKEN` and `SECRET`, each of these three also glued to the word
  before that says which (`GLUED_QUALIFIERS`: `APIKEY`, `SECRETKEY`, `PRIVATEKEY`,
  `APITOKEN`, `ACCESSTOKEN`, `AUTHTOKEN`, `REFRESHTOKEN`, `CLIENTSECRET`, so ngrok's
  `NGROK_AUTHTOKEN`, Azure Pipelines' `SYSTEM_ACCESSTOKEN`, `BW_CLIENTSECRET`),
  `PASSPHRASE`, `CREDENTIAL`, `AUTHORIZATION`, `BEARER`, `WEBHOOK` (`SLACK_WEBHOOK_URL`:
  the URL is the credential), `DSN` (`SENTRY_DSN`), `JWT` (GitLab's `CI_JOB_JWT`,
  `CI_JOB_JWT_V2`), a connection string (`*_CONNECTION_STRING`, `*_CONN_STR`), the seed
  of one-time codes or of a wallet (`TOTP_SEED`, `OTP_SEED`, `MFA_SEED`, `2FA_SEED`,
  `WALLET_SEED`, `SEED_PHRASE`), a `MNEMONIC` (`WALLET_MNEMONIC`), a pre-shared key
  (`PSK`: `WIFI_PSK`) and keytool's passwords glued (`STOREPASS`, `KEYPASS`,
  `KEYSTOREPASS`, `TRUSTSTOREPASS`, `SSHPASS`), a `PASSCODE`, an OAuth client's or a
  SAML assertion (`CLIENT_ASSERTION`, a signed token); `PASSWORD`/`PASSWD` also glued to
  what comes before (`PGPASSWORD`), `PRIVKEY` anywhere (`SSH_PRIVKEY`, `TLS_PRIVKEY_PEM`);
  as the last part only, `AUTH` (`REDISCLI_AUTH`), `PAT` (`GITHUB_PAT`), `COOKIE`, an
  Azure shared access signature (`AZURE_STORAGE_SAS`, `*_SAS_URL`), a kubeconfig's
  content (`KUBECONFIG_DATA`, `KUBE_CONFIG_DATA`, `*_B64`; `KUBECONFIG` itself is a
  path) and SonarQube's token (`SONAR_LOGIN`; no other `*_LOGIN`, which names a user); `PWD`/`PW`/`PASS` only as the last part after another
  (`MYSQL_PWD`, `LDAP_BIND_PW`, `SMTP_PASS`), so the shell's `PWD` and `OLDPWD` are no
  secret; and the session keys of password managers' command-line tools (Bitwarden's
  `BW_SESSION`, 1Password's `OP_SESSION_<account>`), though no other `*_SESSION`
  (`DESKTOP_SESSION` names a desktop) nor a bare `SEED` (`RANDOM_SEED` seeds a test run).
  A name that describes a credential rather than holding it is none: its last
  part says where or what it is (`*_FILE`, `*_PATH`, `*_DIR`, `*_NAME`, `*_ID` after
  `KEY`, `*_ARN`, `*_TYPE`, `*_HOST`, `*_COMMAND`, `*_ENV`, `*_ISSUER`, ... see
  `DESCRIBES_A_CREDENTIAL`: `SSH_KEY_PATH`, `GPG_KEY_ID`, `POSTGRES_PASSWORD_FILE`,
  `JWT_ISSUER`), it is a public key (`SSH_PUBLIC_KEY`, `STRIPE_PUBLISHABLE_KEY`,
  `SSH_AUTHORIZED_KEYS`), or it counts a model's tokens (`MAX_TOKENS`,
  `MAX_OUTPUT_TOKENS`). Names where `KEY` is only part of a word (`KEYBOARD`, `KEYMAP`,
  `TOKENIZERS_PARALLELISM`, `SSH_AUTH_SOCK`) are none either. `collect_secret_values`
  and `collect_mcp_secret_values` (an MCP server's `env`, a flag in its `args`) both ask
  this one rule.
- `is_setting_word(value)`: a value that is a setting, not a secret (`true`, `disabled`,
  `required`, ...), though its variable looks like a credential.
- `is_ordinary_word(value)`: a value that is one ordinary word (`postgres`), which a
  variable that looks like a credential may hold; it is not hidden unless the user
  names the variable.
- `credentials_inside(value)`: the credentials a value holds inside it, whatever its
  name: those of the URLs in it (`tools.url_credentials`: a password, a user part with a
  key's shape as in `https://<token>@github.com/`, credential-named query parameters,
  `jdbc:mysql://user:password@host` too); in a JSON object or array (a service-account
  key, a headers object), every string under a key that `is_credential_name` takes
  (`private_key`, `client_secret`, `Authorization`, `apiKey`), at any depth, and of an
  `<scheme> <credential>` string the credential alone (of one no parser takes whole,
  nested past it or cut short, each credential-named `"key": "string"` pair written in
  it: such a value never stops the start); in a `key=value;...` connection
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
  whose header carries a credential: `named_header_credentials`. An argument a shell
  runs as a command line (`sh -c "exec srv --api-key X"`, `cmd /c`, `powershell
  -Command`: `tools.shell_command_lines`) is read as the shell reads it: the words of
  each of its commands by this same rule, a `NAME=value` before the program as an
  assignment (`GITHUB_TOKEN=X exec srv`: `X`), not as one value. A flag's or a
  `NAME=`'s value that is a placeholder (`tools.placeholders`: `--password=${DB_PASS}`)
  is none.
Nothing here checks length: the caller leaves out values too short to tell from text.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterator, Sequence

from agent_cli.tools.connection_credentials import connection_passwords
from agent_cli.tools.header_lines import (
    COOKIE_HEADERS,
    credential_cookies,
    has_key_shape,
    header_lines_in,
    header_list_pairs,
    names_a_header_list,
)
from agent_cli.tools.placeholders import is_placeholder
from agent_cli.tools.quoted_pairs import quoted_pairs
from agent_cli.tools.shell_command_lines import command_lines, command_words
from agent_cli.tools.token_shape import looks_like_token
from agent_cli.tools.url_credentials import url_credentials

# The words that say which key, token or secret, written glued to it as often as apart
# (`APIKEY`, ngrok's `AUTHTOKEN`, `ACCESSTOKEN`, `CLIENTSECRET`); a closed list, so
# `MONKEY` or `TURNKEY` is no credential.
GLUED_QUALIFIERS = (
    "API|ACCESS|APP|AUTH|BOT|CLIENT|ENCRYPTION|ID|MASTER|PRIVATE|REFRESH|SECRET|SESSION|SIGNING"
)
# A credential word as a whole part of an upper-cased name whose parts `_` separates.
# Each word also in the plural (`API_KEYS`, `SLACK_TOKENS`, `DB_PASSWORDS`): a list of
# credentials is credentials. Not a connection string: ASP.NET's `ConnectionStrings__X`
# names a setting whose credential is found inside it (`credentials_inside`).
CREDENTIAL_NAME = re.compile(
    rf"(?:^|_)(?:(?:{GLUED_QUALIFIERS})?(?:KEYS?|TOKENS?|SECRETS?)|PASSPHRASES?"
    r"|CREDENTIALS?|AUTHORIZATION|BEARERS?|WEBHOOKS?|DSNS?|JWTS?|CONN(?:ECTION)?_?STR(?:ING)?"
    r"|(?:SSH|KEY|STORE|KEYSTORE|TRUSTSTORE)PASS|(?:T?OTP|MFA|2_?FA|WALLET)_SEEDS?"
    r"|SEED_?PHRASES?|MNEMONICS?|PSKS?|PASSCODES?|(?:CLIENT|SAML)_?ASSERTIONS?)(?:$|_)"
    r"|PASSW(?:OR)?DS?(?:$|_)|PRIVKEYS?|_(?:PWDS?|PWS?|PASS)$|(?:^|_)(?:AUTH|PAT|COOKIES?)$"
    r"|(?:^|_)SAS(?:_URLS?|_URIS?)?$|(?:^|_)KUBE_?CONFIG_(?:DATA|CONTENTS?|B64|BASE64)$"
    r"|^BW_SESSION$|^OP_SESSION_|(?:^|_)SONAR_LOGIN$"
)
# The last part of a name that describes a credential (where it is, what kind, who
# issues it) instead of holding it; public keys (`SSH_AUTHORIZED_KEYS` too); and a count
# of a model's tokens (`MAX_TOKENS`, `MAX_OUTPUT_TOKENS`).
DESCRIBES_A_CREDENTIAL = re.compile(
    r"_(?:FILES?|PATHS?|DIRS?|DIRECTORY|FOLDER|NAMES?|ALIAS|ARN|REF|TYPE|KIND|ALGORITHM|ALG"
    r"|SIZE|BITS|LENGTH|LEN|VERSION|FORMAT|FINGERPRINT|PREFIX|SUFFIX|HEADER|REGION|HOST"
    r"|PORT|ENDPOINT|COMMAND|CMD|HELPER|PROVIDER|BACKEND|MODE|POLICY|ENABLED|DISABLED"
    r"|REQUIRED|EXPIRY|EXPIRES|EXPIRATION|TTL|TIMEOUT|LIFETIME|SOCK|SOCKET|ENV|VAR|STDIN"
    r"|ISSUER|AUDIENCE|LEEWAY|IDENTITY)$"
    rf"|(?:^|_)(?:{GLUED_QUALIFIERS})?KEY_IDS?$|(?:^|_)(?:PUBLIC|PUBLISHABLE|AUTHORIZED)_KEYS?$"
    r"|(?:^|_)(?:MAX|MIN|NUM)(?:_[A-Z0-9]+)*_TOKENS$"
)
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
_PART_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[-.\s]+")
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


def name_parts(name: str) -> str:
    """`name` upper-cased with its parts joined by `_` (`apiKey`, `api-key`: `API_KEY`)."""
    return _PART_BREAK.sub("_", name.strip()).upper()


def is_credential_name(name: str) -> bool:
    """Whether `name` looks like it holds a credential (module contract)."""
    parts = name_parts(name)
    return bool(CREDENTIAL_NAME.search(parts)) and not DESCRIBES_A_CREDENTIAL.search(parts)


def is_setting_word(value: str) -> bool:
    return value.strip().lower() in SETTING_WORDS


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
        if name in HEADER_FLAGS:
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
        ):
            yield from header_credentials(following)
    for line in lines.values():
        for words in command_words(line):
            yield from _arguments_credentials(words, depth + 1)


def _assignment_credentials(name: str, value: str) -> Iterator[str]:
    """Of `NAME=value` or `--flag=value` (one dash or two), the value when the name looks
    like a credential; of a flag's value that is itself `NAME=value` (docker's
    `--env=GITHUB_TOKEN=X`, `--build-arg=NPM_TOKEN=X`), that value when so named."""
    if not _ARGUMENT_NAME.fullmatch(name):
        return
    if is_credential_name(name.lstrip("-")):
        if not is_placeholder(value):  # `--password=${DB_PASS}` names a value elsewhere
            yield from header_credentials(value)
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
        if not is_credential_name(name) or is_setting_word(header):
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
        if header.lower() in PLAIN_HEADERS or is_setting_word(text):
            continue
        if is_credential_name(header) or has_key_shape(text.split()[-1]):
            yield from named_header_credentials(header, text)
            yield from credentials_inside(text)


def _json_credentials(value: str) -> Iterator[str]:
    """Of a JSON object or array, every string under a credential-named key; of one no
    parser takes whole (nested past it, cut short), each credential-named `"key":
    "string"` pair written in it (`quoted_pairs`). Walked with a stack of its own: no
    depth is a recursion limit."""
    if not value.lstrip().startswith(("{", "[")):
        return
    try:
        document = json.loads(value)
    except (ValueError, RecursionError):
        for name, text in quoted_pairs(value):
            if is_credential_name(name):
                yield from header_credentials(text)
        return
    yield from _credentials_in_document(document)


def _credentials_in_document(document: object) -> Iterator[str]:
    """Every string under a credential-named key of `document`, in document order."""
    stack: list[tuple[object, bool]] = [(document, False)]
    while stack:
        node, named = stack.pop()
        if isinstance(node, dict):
            stack.extend(
                (item, named or is_credential_name(str(key)))
                for key, item in reversed(node.items())
            )
        elif isinstance(node, list):
            stack.extend((item, named) for item in reversed(node))
        elif named and isinstance(node, str):
            yield from header_credentials(node)


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
