"""A secret stored or printed in another encoding is redacted too (fifth outside attack).

The attack: a password with a non-ASCII letter kept in a Latin-1 file (read back as UTF-8
with one U+FFFD for the letter) or in NFD (macOS, some editors) while the environment
holds NFC; a `DATABASE_URL` holding it percent-encoded (and an MCP server's URL in config.toml
holding it so, while a file holds it decoded); Python printing its bytes
(`b'...\\xc3\\xa7...'`); a token in a UTF-16 file (what PowerShell's `>` writes) shown
by `cat`, a NUL between its characters. Each reached the model whole but for one letter
or the encoding. The tests write real files and run real programs through a `Toolbox`.
"""

from __future__ import annotations

import base64
import os
import shlex
import unicodedata
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tools_support import FakeArtifactStore

from agent_cli.secret_forms import REDACTED_MARK, SecretForms
from agent_cli.tools import Toolbox
from agent_cli.tools.redaction import collect_mcp_secret_values

PASSWORD = "Tr0ub4dor&3-\u00e79xyz"
ACCENTED = unicodedata.normalize("NFC", "Crème-brûlée-2024!")
URL_PASSWORD = "p@ss&w0rd!2024#x"
TOKEN = "ghp_Zq7Rk2mXv9LpW4tYc8NbH3sJd6FgQ1"


def make_box(folder: Path, **secrets: str) -> Toolbox:
    environment = {**secrets, "PATH": os.environ["PATH"]}
    return Toolbox(
        folder, FakeArtifactStore(), "s1", auto_approve=True, secret_environment=environment
    )


def contents(box: Toolbox, path: str) -> list[str]:
    """What read_file and `cat` give of `path`, and grep of its lines (grep shows no line
    that holds a secret, so those must be gone)."""
    found = box.run("grep", {"pattern": "password|GITHUB", "path": "."}).content
    assert found.startswith("No matches"), found
    return [
        box.run("read_file", {"path": path}).content,
        box.run("bash", {"command": f"cat {path}"}).content,
    ]


def test_a_password_in_a_latin_1_file_is_redacted(tmp_path):
    (tmp_path / "db.ini").write_bytes(f"[db]\npassword={PASSWORD}\n".encode("latin-1"))
    for content in contents(make_box(tmp_path, DB_PASSWORD=PASSWORD), "db.ini"):
        assert "Tr0ub4dor&3-" not in content
        assert f"password={REDACTED_MARK}" in content


@pytest.mark.parametrize("form", ["NFD", "NFKD"])
def test_a_password_in_a_file_saved_in_another_normal_form_is_redacted(tmp_path, form):
    stored = unicodedata.normalize(form, ACCENTED)
    assert stored != ACCENTED
    (tmp_path / "db.ini").write_text(f"[db]\npassword={stored}\n")
    for content in contents(make_box(tmp_path, DB_PASSWORD=ACCENTED), "db.ini"):
        assert ACCENTED not in unicodedata.normalize("NFC", content)
        assert f"password={REDACTED_MARK}" in content


def test_a_password_in_a_database_url_and_python_bytes_is_redacted(tmp_path):
    url = f"postgres://app:{urllib.parse.quote(URL_PASSWORD, safe='')}@db.internal/app"
    box = make_box(tmp_path, DB_PASSWORD=URL_PASSWORD, SMTP_PASSWORD=PASSWORD)
    variables = {"DATABASE_URL": url, "DB_PASSWORD": URL_PASSWORD, "SMTP_PASSWORD": PASSWORD}
    script = (
        "import os, urllib.parse as u; print(os.environ['DATABASE_URL']); "
        "print(u.quote_plus(os.environ['DB_PASSWORD'])); print(os.environb[b'SMTP_PASSWORD'])"
    )
    settings = " ".join(f"{name}={shlex.quote(value)}" for name, value in variables.items())
    command = f"{settings} python3 -c {shlex.quote(script)}"
    shown = box.run("bash", {"command": command}).content.splitlines()[1:4]
    assert shown == [
        f"postgres://app:{REDACTED_MARK}@db.internal/app",
        REDACTED_MARK,
        f"b'{REDACTED_MARK}'",
    ]


def test_a_token_in_a_utf_16_file_is_redacted_from_cat(tmp_path):
    for codec in ("utf-16", "utf-16-be"):
        text = f"deploy notes\r\nGITHUB_TOKEN={TOKEN}\r\n"
        (tmp_path / "notes.txt").write_bytes(text.encode(codec))
        content = make_box(tmp_path, GITHUB_TOKEN=TOKEN).run("bash", {"command": "cat notes.txt"})
        assert TOKEN not in content.content.replace("\x00", ""), codec
        assert REDACTED_MARK in content.content


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-16"])
@pytest.mark.parametrize("secret", [TOKEN, PASSWORD, ACCENTED])
def test_the_utf_16_bytes_of_a_secret_printed_by_python_or_as_hex_are_redacted(
    tmp_path, codec, secret
):
    """Two forms at once (twenty-second tester): the secret's UTF-16 bytes as Python prints
    bytes (`b'g\\x00h\\x00...'`) and as hex (`bytes.hex()`), each read back whole."""
    box = make_box(tmp_path, GITHUB_TOKEN=secret)
    script = (
        "import os, sys; data = os.environ['GITHUB_TOKEN'].encode(sys.argv[1]); "
        "print(data); print(data.hex()); print(data.hex().upper())"
    )
    command = f"GITHUB_TOKEN={shlex.quote(secret)} python3 -c {shlex.quote(script)} {codec}"
    shown = box.run("bash", {"command": command}).content
    data = secret.encode(codec)
    for printed in (repr(data)[2:-1], data.hex(), data.hex().upper()):
        assert printed[12:-12] not in shown, (codec, shown)
    printed_lines = shown.splitlines()[1:]
    assert len(printed_lines) == 3 and all(REDACTED_MARK in line for line in printed_lines), shown


@pytest.mark.parametrize("secret", [TOKEN, f"{TOKEN}x", f"{PASSWORD}!"])
def test_a_secret_base64_encoded_on_its_own_is_hidden_to_its_last_character_and_padding(
    tmp_path, secret
):
    """`base64` and base64url of a value alone end in a character holding its last bits
    and its `=` padding (session 27): the whole encoding is the secret, not all but its
    last character."""
    box = make_box(tmp_path, GITHUB_TOKEN=secret)
    script = (
        "import base64, os; data = os.environb[b'GITHUB_TOKEN']; "
        "print(base64.b64encode(data).decode()); "
        "print(base64.urlsafe_b64encode(data).decode().rstrip('='))"
    )
    command = f"GITHUB_TOKEN={shlex.quote(secret)} python3 -c {shlex.quote(script)}"
    shown = box.run("bash", {"command": command}).content.splitlines()[1:]
    assert len(secret.encode("utf-8")) % 3 != 0  # its encoding ends in a partial character
    assert shown == [REDACTED_MARK, REDACTED_MARK]


@pytest.mark.parametrize("secret", [PASSWORD, ACCENTED, URL_PASSWORD, TOKEN, "ab" * 300])
def test_every_form_of_a_secret_is_found_whole_by_the_trie_pattern(secret):
    forms = SecretForms.from_values([secret])
    assert forms.pattern is not None
    for form in forms.forms:
        found = forms.pattern.search(f"<{form}>")
        assert found is not None and found.group() == form, form


@dataclass(frozen=True)
class Server:
    """An MCP server's settings as config.toml gives them (`ConfiguredServer`)."""

    env: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    url: str | None = None
    args: tuple[str, ...] = ()
    command: str | None = None


def test_the_password_of_an_mcp_servers_url_is_redacted_decoded_too(tmp_path):
    """config.toml holds `postgres://app:p%40ss%26w0rd%21x@db/app`; the project's
    docker-compose.yml holds the password itself, which is what the server is given."""
    servers = [Server(env={"DATABASE_URL": "postgres://app:p%40ss%26w0rd%21x@db/app"})]
    (tmp_path / "compose.yml").write_text('POSTGRES_PASSWORD: "p@ss&w0rd!x"\n')
    box = Toolbox(
        tmp_path,
        FakeArtifactStore(),
        "s1",
        auto_approve=True,
        secret_environment={},
        extra_secrets=collect_mcp_secret_values(servers, {}),
    )
    shown = box.run("read_file", {"path": "compose.yml"}).content
    assert "p@ss&w0rd!x" not in shown and f'POSTGRES_PASSWORD: "{REDACTED_MARK}"' in shown


@pytest.mark.parametrize("encode", [base64.b32encode, base64.b32hexencode])
@pytest.mark.parametrize("before", range(6))
def test_a_token_in_a_base32_stream_of_binary_content_is_found_at_every_alignment(encode, before):
    """`base32` / `basenc --base32hex` output saved among binary bytes (an artifact read by
    byte range, an MCP blob): the bytes redaction finds the token at every 5-byte
    alignment, wrapped too (`base32 -w 20`) (a ninth outside attack)."""
    forms = SecretForms.from_values([TOKEN])
    encoded = encode(b"x" * before + TOKEN.encode() + b"tail").decode("ascii")
    wrapped = "\n".join(encoded[i : i + 20] for i in range(0, len(encoded), 20))
    for text in (encoded, encoded.rstrip("="), wrapped):
        data = b"\x00\xff" + text.encode("ascii") + b"\x00"
        redacted, count = forms.redact_bytes(data)
        assert count == 1 and REDACTED_MARK.encode() in redacted, text
        occurrences = list(forms.byte_occurrences(data, 0, len(data)))
        assert occurrences and all(2 <= start < end <= len(data) - 1 for start, end in occurrences)
