"""Keeping secrets the agent holds out of tool results, whichever way a tool got them.

Contract: `SecretRedactor.redact(text)` replaces every occurrence of a known secret value
with `REDACTED_MARK` and counts them. `Toolbox.run` passes every result of every tool
through `redact_result` (output, errors, and the full text stored as an artifact) before
anything is recorded or sent, and the result's header then says how many were hidden.
Tools that number a file's lines or show a window of them (`read_file`, `grep`) first
hide secrets in the file's own lines (`agent_cli.secret_lines`, which keeps the line
count): a secret that spans lines is never whole once a gutter or a window cuts it
apart. They report how many they hid (`ToolResult.secrets_hidden`), and the result is
still redacted here like any other.
Hiding the key from a command's environment is not enough: a command can read it from
the agent's own `/proc/<pid>/environ`, from a file, or from anywhere the user keeps it.

What counts as secret (`collect_secret_values`): the values of `ANTHROPIC_API_KEY` and
`ANTHROPIC_AUTH_TOKEN`, of the variables the user names in `AGENT_CLI_SECRET_NAMES`
(comma or space separated), and of every environment variable whose name looks like a
credential (`agent_cli.tools.credential_names.is_credential_name`: `*_KEY`, `*_API_KEY`,
`*_TOKEN`, `*_SECRET`, `*_PASSWORD`, each in the plural too, `*_APIKEY`, `*_AUTHTOKEN`,
`*_CLIENTSECRET`, `*_JWT`, `*PASSWORD`, `*_PWD`, `*_PW`, `*_PASS`, `*_PAT`, `*_AUTH`,
`*_DSN`, `*_WEBHOOK_URL`, `*_CONNECTION_STRING`, `SSHPASS`, ...; never `PWD`, nor a name
that says where a credential is, `*_KEY_FILE`, `*_TOKEN_PATH`, `GPG_KEY_ID`, or a public
key) unless the value is a setting word (`true`, `disabled`), plainly a file-system
path (`credentials.holds_no_secret`: `GOOGLE_APPLICATION_CREDENTIALS=/home/dev/sa.json`
says where the key is, as `*_KEY_FILE` does) or a setting the name's last part says it is
(`tools.setting_values`: a plain URL under `OAUTH_TOKEN_URL`, digits under
`JWT_EXPIRATION_MS`, a column's name under `DYNAMODB_SORT_KEY`); and, in every variable
whatever its name, the credentials inside its value (`credentials_inside`): the password
of a URL (`DATABASE_URL`, `REDIS_URL`, a proxy, `jdbc:mysql://`) and a user part shaped
like a token (`https://<token>@github.com/`), its credential-named query parameters,
the credential-named fields of a JSON value (the `private_key` of a service-account key;
read as `tools.dotenv_json` reads a `.env.json`)
and of a `key=value;` connection string, a database password in a connection form that is
no URL (libpq's `password=`, a Go MySQL DSN, Oracle's EZConnect), the value of a
credential header line (`X-API-Key: ...`, `Cookie: session=...`) whose credential has a
key's shape, and a PEM/OpenSSH private key block; and of a variable whose name says it
holds a header list (`OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=...,...`), its
headers' credentials (`credentials.header_list_credentials`); and of every value so
found, what it decodes to when it is base64 of text (`credentials.decoded_credentials`:
`REGISTRY_AUTH` holding `user:password` encoded, a service-account key in `GCP_SA_KEY`),
with the password and the credentials inside that. Values shorter than `MIN_SECRET_CHARS` are left
alone: they would match ordinary text; so is a value that is one ordinary word
(`credentials.is_ordinary_word`: `POSTGRES_PASSWORD=postgres` would blank `postgres`
in every image name and path, and grep would miss those lines) unless the user names its
variable. `find_secrets` says which variables were left visible so, and why.
The same rule reads the workspace's dotenv files (`tools.workspace_secrets`).

The credentials config.toml gives MCP servers count too (`collect_mcp_secret_values`):
in a server's `env`, the values whose names look like a credential by the same rule but
for setting words and paths (or are named in `AGENT_CLI_SECRET_NAMES`) and the credentials inside every value, as above;
in its `headers`, every value but those of headers that carry no credential (`Accept`,
`Content-Type`, `User-Agent`, ... see `PLAIN_HEADERS`), and of an `<scheme>
<credential>` value (`Bearer xyz`) the credential alone too (of `Basic`, also what it
decodes to, and the password in it), of a `Cookie` each cookie's value
(`credentials.named_header_credentials`); the credentials inside its `url`; and in its
`args` (`argument_credentials`), those inside each argument (a `postgresql://` URL), the
value of a credential-named flag (`--access-token X`, `--api-key=X`, `-token X`), of a
credential-named `NAME=value` (`--env=GITHUB_TOKEN=X` too) and of a `--header` that
carries a credential, read after its `command` as one command line, so that a shell's
`-c` line (`command = "sh"`, `args = ["-c", "exec srv --api-key X"]`) is read as the
shell splits it. Other values (paths, levels,
ids) are no secret: redacting them would blank ordinary words in every result.

`StreamRedactor` does the same for output shown while a command runs.

Forms covered (`agent_cli.secret_forms`, pure, so compaction knows them too), for the
value in each Unicode normalisation: the value as it is; its base64 (standard and
URL-safe alphabets, at any of the three byte alignments, so inside a longer encoded stream
too, and on its own to its last character and padding); its base32 (both alphabets, at any of the five byte alignments); its hex (lower and
upper case); the value as Python, JSON and shells print it inside quotes, with bash's
`printf %q` and GNU's `ls -b` backslashes, and as Python prints its
bytes (`escaped_forms`), in each form every `/` also as JSON's `\\/` (PHP) or HTML's
`&#x2F;`, `&#47;`, `&sol;`; a dump of a value on one line in any layout (`xxd`, `xxd -u`,
`od -An -tx1`, `hexdump -C`: hex bytes with blanks, offsets and text columns between
lines, and the rest of its last line, whose text column holds the value's end; and the
bytes any dump row shows, `agent_cli.secret_dumps`: `hexdump`'s and `od -x`'s
little-endian words, `od -tx4`/`-tx8`, `xxd -e`/`-g 4`/`-g 8`/`-c 32`/`-b`/`-i`, `od`,
`od -b`, `od -td1`, `hexdump -d`, rows of any width down to one byte (`xxd -c 1`,
`xxd -b -c 3`), hex with any punctuation between bytes (`bytes.hex('-', 3)`)) and its characters spaced out (`od -c`,
`sed 's/./& /g'`), or a token's in pieces of 7 or more with separators between them
(`agent_cli.secret_spacing`: `sed 's/.\\{8\\}/& /g'`, a JSON list of its pieces); a long run of a token-like value's own characters
(`agent_cli.secret_runs`: at least 16 characters and half the value, so `cut -c1-48`,
`cut -c14-`, `head -c` of a token, key or generated password hide what they keep; a value
with `:`, `@` or blanks, a URL, a DSN, a phrase, has no runs, its whole forms only); percent-encoded in any spelling
and any of its characters escaped as JSON (`\\u0026`, Go's and Gson's way), HTML (`&#38;`,
`&#x3C;`, `&amp;`), YAML, SQL or CSV (`''`, `""`) or `.properties` (`\\=`) write one, in
any mix (`agent_cli.percent_forms`); a value on one line of up to 256 bytes with any of
its bytes or characters escaped, letters and digits too, all of it or some, with or
without separators (`hexdump -e '"\\\\x" 1/1 "%02x"'`, `\\u%04x` or `&#x%x;` per
character, `od | sed 's/ /\\\\x/g'`: `agent_cli.secret_escapes`); what a tool shows of it stored in UTF-16, Latin-1 or cp1252
(`misdecoded_forms`); each of these also when broken across lines (`base64` wraps at 76
columns, `xxd -p` at 60), and a value that spans lines (a PEM key) also with a short
prefix before each line (`git diff`, `cat -n`, `grep -n`, an indentation:
`secret_pieces.LINE_GAP`); of a private key a value holds, its private numbers as
`openssl -text` and `asn1parse` print them, in hex and decimal, and their octets as a
JWK (base64url), `base64` of a raw key and Python's bytes print them
(`agent_cli.key_number_forms`; not its public ones: the modulus, the public exponent, an
EC public point). A
command that rewrites the value another way is not caught: no filter can catch every
transformation. Not caught: a run shorter than the threshold (`cut -c1-30` of a 40-character
token keeps 17 of its characters; two commands can each take a piece), a run of an
encoded form (half of its hex or base64), a run whose characters are escaped (an AWS key
cut after `\\/`: the run stops at the backslash), reversed (`rev`), folded into short
groups (`fold -w5 | tr '\n' ' '`), encrypted; a dump of a multi-line value (a PEM
key) or of a value over 256 bytes, in UTF-16 (`0077004a`), or in groups of 3 bytes
(`xxd -g 3`); base2 (`basenc --base2msbf`) and base85; pieces shorter than 7 characters
(`sed 's/.\\{4\\}/&-/g'`). Redaction finds only whole forms and
long runs, so every place that shortens text before it is redacted cuts where no form is
split and no run is left at or above the threshold on either side (`agent_cli.safe_cuts`);
`forms` is what this redactor finds, handed to them.
"""

from __future__ import annotations

import codecs
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from agent_cli.safe_cuts import safe_head_end
from agent_cli.secret_forms import MIN_SECRET_CHARS, REDACTED_MARK, SecretForms
from agent_cli.terminal_escapes import unfinished_escape_start, unsplit_secrets, without_escapes
from agent_cli.tools.credential_names import is_credential_name
from agent_cli.tools.credentials import (
    argument_credentials,
    credentials_inside,
    decoded_credentials,
    header_list_credentials,
    holds_no_secret,
    is_ordinary_word,
    named_header_credentials,
)
from agent_cli.tools.output import ToolResult
from agent_cli.tools.url_credentials import url_path_tokens

SECRET_NAMES_VARIABLE = "AGENT_CLI_SECRET_NAMES"
ALWAYS_SECRET_NAMES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")


class ConfiguredServer(Protocol):
    """What `collect_mcp_secret_values` reads of an MCP server's settings."""

    @property
    def env(self) -> Mapping[str, str]: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    @property
    def url(self) -> str | None: ...

    @property
    def args(self) -> Sequence[str]: ...

    @property
    def command(self) -> str | None: ...


@dataclass(frozen=True)
class Redaction:
    text: str
    count: int


SHORT = "short"  # why a credential's value is not hidden: under MIN_SECRET_CHARS
ORDINARY_WORD = "word"  # or one ordinary word (`credentials.is_ordinary_word`)
SHORT_WORTH_SAYING = 4  # shorter values (`0`, `no`) are no credential worth a notice


@dataclass(frozen=True)
class FoundSecrets:
    """The secret values of an environment, longest first, and the variables whose
    credential is not hidden: `(name, SHORT or ORDINARY_WORD)`, sorted."""

    values: tuple[str, ...]
    unhidden: tuple[tuple[str, str], ...]


def collect_secret_values(environment: Mapping[str, str]) -> tuple[str, ...]:
    """The secret values `environment` holds (see the module contract), longest first."""
    return find_secrets(environment).values


def find_secrets(environment: Mapping[str, str]) -> FoundSecrets:
    """The secret values `environment` holds (see the module contract), and the
    variables whose credential is left visible because it is short or an ordinary word
    (the session says so once at start)."""
    named = set(ALWAYS_SECRET_NAMES) | named_secrets(environment)
    values: set[str] = set()
    unhidden: dict[str, str] = {}
    for name, value in environment.items():
        if name == SECRET_NAMES_VARIABLE:
            continue  # it names secrets; it holds none
        inside = (*credentials_inside(value), *header_list_credentials(name, value))
        candidates = [(found, False) for found in inside]
        if name in named:
            candidates.append((value.strip(), True))
        elif is_credential_name(name) and not holds_no_secret(name, value):
            candidates.append((value.strip(), False))
        for candidate, is_named in candidates:
            why = _why_not_hidden(candidate, is_named)
            if why is None:
                values.add(candidate)
                values.update(_decoded_secrets([candidate]))
            elif len(candidate) >= SHORT_WORTH_SAYING:
                unhidden[name] = why
    ordered = tuple(sorted(values, key=len, reverse=True))
    return FoundSecrets(ordered, tuple(sorted(unhidden.items())))


def _why_not_hidden(value: str, is_named: bool) -> str | None:
    if len(value) < MIN_SECRET_CHARS:
        return SHORT
    if not is_named and is_ordinary_word(value):
        return ORDINARY_WORD
    return None


def _decoded_secrets(values: Iterable[str]) -> set[str]:
    """What `values` decode to (`credentials.decoded_credentials`), but what is too short
    or one ordinary word (`password` inside `ci-bot:password` would blank that word)."""
    found = (decoded for value in values for decoded in decoded_credentials(value))
    return {decoded for decoded in found if _why_not_hidden(decoded, False) is None}


def named_secrets(environment: Mapping[str, str]) -> set[str]:
    """The variable names the user lists in `AGENT_CLI_SECRET_NAMES`."""
    return {n for n in re.split(r"[\s,]+", environment.get(SECRET_NAMES_VARIABLE, "")) if n}


def _long_enough(values: Iterable[str]) -> tuple[str, ...]:
    """The values long enough to be told from ordinary text, longest first."""
    return tuple(sorted((v for v in values if len(v) >= MIN_SECRET_CHARS), key=len, reverse=True))


def collect_mcp_secret_values(
    servers: Iterable[ConfiguredServer], environment: Mapping[str, str]
) -> tuple[str, ...]:
    """The secret values config.toml gives MCP servers (see the module contract); the
    names in `environment`'s `AGENT_CLI_SECRET_NAMES` count in their `env` too."""
    named = named_secrets(environment)
    values: set[str] = set()
    for server in servers:
        for name, value in server.env.items():
            if name in named or (is_credential_name(name) and not holds_no_secret(name, value)):
                values.add(value.strip())
            values.update(credentials_inside(value))
            values.update(header_list_credentials(name, value))
        for name, value in server.headers.items():
            values.update(named_header_credentials(name, value))
        if server.url:
            values.update(credentials_inside(server.url))
            values.update(url_path_tokens(server.url))
        # the program and its arguments as one command (`command = "sh"`, `args = ["-c",
        # "..."]`), a command line written where a program belongs split at blanks
        program = server.command.split() if server.command else []
        values.update(argument_credentials([*program, *server.args]))
    return _long_enough([*values, *_decoded_secrets(values)])


class SecretRedactor:
    """Finds known secret values (and their encodings) in text; built once per toolbox."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self.forms = SecretForms.from_values(secrets)
        self._pattern = self.forms.pattern
        self.longest_match = self.forms.longest_match

    @classmethod
    def from_environment(
        cls, environment: Mapping[str, str] | None = None, extra: Iterable[str] = ()
    ) -> SecretRedactor:
        """The secrets of `environment` (default: this process's), and `extra` values
        (the credentials config.toml gives MCP servers)."""
        found = collect_secret_values(os.environ if environment is None else environment)
        return cls((*found, *extra))

    def with_secrets(self, values: Iterable[str]) -> SecretRedactor:
        """A redactor of this one's secrets and `values` too (a secret learned mid-session,
        `tools.dotenv_watch`): one is never dropped, so a rotated key stays hidden."""
        return SecretRedactor((*self.forms.values, *values))

    def redact(self, text: str) -> Redaction:
        """`text` with every secret form replaced by `REDACTED_MARK`, and how many. Where
        terminal escape sequences split a secret (a coloured log read back, an MCP
        server's output), the text is taken without them first
        (`terminal_escapes.unsplit_secrets`), as bash output is."""
        if self._pattern is None or not text:
            return Redaction(text, 0)
        redacted, count = self._pattern.subn(REDACTED_MARK, unsplit_secrets(text, self.forms))
        return Redaction(redacted, count)

    def safe_cut(self, text: str, cut: int) -> int:
        """`cut`, moved back to the start of a match that would cross it, if any."""
        if self._pattern is None:
            return len(text)
        for match in self._pattern.finditer(text):
            if match.end() > cut:
                return min(cut, match.start())
        return cut


class StreamRedactor:
    """Redacts output that arrives in pieces (a running command's live view).

    `feed` takes raw bytes and returns the text that is safe to show now: everything but
    a tail as long as the longest possible match (or less, when a match may start there),
    which is held back until more arrives or `finish` is called, so a secret cut across
    two pieces is still caught. Terminal escape sequences are dropped first (an unfinished
    one waits for its end), as the screen drops them: a token that colour escapes split
    (`grep --color=always`) is whole again, and redacted (`agent_cli.terminal_escapes`).
    """

    def __init__(self, redactor: SecretRedactor) -> None:
        self._redactor = redactor
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._held = ""
        self._unfinished = ""  # an escape sequence the last piece cut off

    def use(self, redactor: SecretRedactor) -> None:
        """Redact what is held and what comes from now on with `redactor` (one that knows
        more secrets: `SecretRedactor.with_secrets`); what was shown stays shown."""
        self._redactor = redactor

    def feed(self, chunk: bytes) -> str:
        text = self._unfinished + self._decoder.decode(chunk)
        start = unfinished_escape_start(text)
        self._unfinished = text[start:] if start is not None else ""
        self._held += without_escapes(text[:start])
        return self._release(len(self._held) - self._redactor.longest_match)

    def finish(self, *, stopped: bool = False) -> str:
        """The rest of the output; where the stream was `stopped` (Ctrl-C, the timeout, the
        cap) what came next is unknown and redaction cannot tell half a key, so an ending
        that could be the start of a secret is held back, as the result holds it back
        (`safe_cuts.safe_head_end`, `stream_stopped`)."""
        self._held += without_escapes(self._unfinished + self._decoder.decode(b"", final=True))
        self._unfinished = ""
        if not stopped:
            return self._release(len(self._held))
        end = safe_head_end(self._held, len(self._held), self._redactor.forms, stream_stopped=True)
        shown, self._held = self._held[:end], ""
        return self._redactor.redact(shown).text

    def _release(self, cut: int) -> str:
        cut = self._redactor.safe_cut(self._held, max(cut, 0))
        shown, self._held = self._held[:cut], self._held[cut:]
        return self._redactor.redact(shown).text


def redact_result(result: ToolResult, redactor: SecretRedactor) -> ToolResult:
    """`result` without secrets; its header says how many were hidden, if any. A result
    the tool redacted itself (`ToolResult.already_redacted`) is left as it is."""
    if result.already_redacted:
        return result
    header, body, summary = (
        redactor.redact(part) for part in (result.header, result.body, result.summary)
    )
    count = header.count + body.count + summary.count + result.secrets_hidden
    if count == 0:
        return result
    return replace(
        result,
        header=header.text + describe_redaction(count),
        body=body.text,
        summary=(summary.text or "done") + " (secrets redacted)",
    )


def redact_message(message: str, redactor: SecretRedactor) -> str:
    """An error message without secrets, saying so when something was hidden."""
    redaction = redactor.redact(message)
    return redaction.text + describe_redaction(redaction.count) if redaction.count else message


def describe_redaction(count: int) -> str:
    noun = "value" if count == 1 else "values"
    return (
        f" [{count} secret {noun} held by agent-cli (an API key or token) redacted from "
        f"this output as {REDACTED_MARK}]"
    )
