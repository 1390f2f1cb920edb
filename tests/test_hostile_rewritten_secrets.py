"""A known secret reversed, with its case changed or in ROT13 is redacted too.

Found by hand in session 31, driving `make run` in tmux with a GitHub token in `.env`:
`run cat .env | rev` showed `9876...cba_phg=NEKOT_BUHTIG` and `run cat .env | tr a-z A-Z`
showed `GHP_ABC...`, on screen and in what went to the model, while `base32`, `cut` and
`fold` of the same file were hidden. Whoever reads a mirror image or an upper-cased key
can undo it in a second, so each is the secret (`secret_encodings.rewritten_forms`).

The commands are the real programs run as the `bash` tool of a `Toolbox`; the stream
test feeds the live view in small pieces; the e2e test runs the installed `agent-cli`
against the fake Messages API with `--yes`.
"""

from __future__ import annotations

import codecs
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cuts_support import strings_in
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from tools_support import FakeArtifactStore

from agent_cli.secret_encodings import rewritten_forms
from agent_cli.secret_forms import REDACTED_MARK, material_lines
from agent_cli.tools import Toolbox
from agent_cli.tools.redaction import SecretRedactor, StreamRedactor

TOKEN = "ghp_R7x2Kq9LmN4pZ8vT3wY6bC1dF5gH0jS2aE7u"
KEY = "sk-ant-api03-SECRETKEYVALUE1234567890abcdef"
OPENSSL = shutil.which("openssl")


def forms_of(secret: str) -> list[str]:
    """What the attack printed: the value reversed or not, upper- or lower-cased or not,
    or its ROT13."""
    mirrored = secret[::-1]
    rot13 = codecs.encode(secret, "rot13")
    return [mirrored, secret.upper(), secret.lower(), mirrored.upper(), mirrored.lower(), rot13]


def toolbox(tmp_path: Path, environment: dict[str, str]) -> Toolbox:
    return Toolbox(
        tmp_path,
        FakeArtifactStore(),
        "s1",
        auto_approve=True,
        secret_environment={"PATH": "/usr/bin:/bin", **environment},
    )


@pytest.mark.parametrize(
    "command",
    [
        "rev .env | cut -c1-24",
        "rev .env | cut -c5-28",
        "tr a-z A-Z < .env | cut -c14-40",
        "tr A-Z a-z < .env | cut -c1-34",
        "rev .env | tr a-z A-Z | cut -c1-20",
    ],
)
def test_a_cut_piece_of_a_reversed_or_recased_value_is_hidden(tmp_path, command):
    """Left by session 31: a run of a reversed or recased value, cut by `cut`, went out
    while the same run of the value itself was hidden (`secret_runs`)."""
    (tmp_path / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
    box = toolbox(tmp_path, {"GITHUB_TOKEN": TOKEN})
    content = box.run("bash", {"command": command}).content
    assert REDACTED_MARK in content, (command, content)
    for form in [TOKEN, *forms_of(TOKEN)]:
        for start in range(len(form) - 20 + 1):
            assert form[start : start + 20] not in content, (command, content)


@pytest.mark.parametrize(
    ("secret", "text"),
    [
        ("my_database_password_1", "grep -n MY_DATABASE_PASSWORD config/settings.py"),
        ("Postgres_Password_2024", "env: POSTGRES_PASSWORD_2 is set"),
        ("Kubernetes-Production-1", "namespace kubernetes-production-eu"),
    ],
)
def test_a_recased_run_of_a_value_made_of_words_is_an_ordinary_name(secret, text):
    """(the review of the runs above) a password of words and a number, upper-cased, is
    an environment variable's or a namespace's name: only whole forms of it are hidden."""
    assert SecretRedactor([secret]).redact(text).text == text


def test_the_forms_are_the_mirror_image_and_both_cases_and_never_the_value_itself():
    assert rewritten_forms(TOKEN) == set(forms_of(TOKEN))
    assert rewritten_forms("1234567890123456") == {"6543210987654321"}  # no letter to change
    lines = rewritten_forms("abcdefgh\nijklmnop")
    assert "hgfedcba\nponmlkji" in lines  # `rev`: each line mirrored, in order
    assert "ponmlkji\nhgfedcba" in lines  # a whole-string reversal


@pytest.mark.parametrize(
    "command",
    [
        "rev .env",
        "cat .env | tr a-z A-Z",
        "tr A-Z a-z < .env",
        "awk '{print toupper($0)}' .env",
        "python3 -c \"import sys; print(open('.env').read()[::-1])\"",
        "grep TOKEN .env | rev | tr a-z A-Z",
        "tr a-zA-Z n-za-mN-ZA-M < .env",
    ],
)
def test_a_command_that_reverses_or_recases_the_dotenv_file_shows_no_form(tmp_path, command):
    (tmp_path / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\nANTHROPIC_API_KEY={KEY}\n")
    box = toolbox(tmp_path, {"GITHUB_TOKEN": TOKEN, "ANTHROPIC_API_KEY": KEY})
    content = box.run("bash", {"command": command}).content
    assert REDACTED_MARK in content, (command, content)
    for secret in (TOKEN, KEY):
        for form in forms_of(secret):
            assert form not in content, (command, content)


def test_a_file_holding_the_forms_is_read_redacted_and_its_other_lines_kept(tmp_path):
    lines = [f"mirror {TOKEN[::-1]} end", f"loud {TOKEN.upper()} end", f"low {KEY.lower()} end"]
    (tmp_path / "notes.txt").write_text("\n".join(["keep me", *lines, "KEEP ME TOO"]) + "\n")
    box = toolbox(tmp_path, {"GITHUB_TOKEN": TOKEN, "ANTHROPIC_API_KEY": KEY})
    content = box.run("read_file", {"path": "notes.txt"}).content
    for prefix in ("mirror ", "loud ", "low "):
        assert f"{prefix}{REDACTED_MARK} end" in content
    assert "keep me" in content and "KEEP ME TOO" in content
    for form in [*forms_of(TOKEN), *forms_of(KEY)]:
        assert form not in content


@pytest.mark.parametrize("piece", [1, 3, 7, 64])
def test_the_live_view_never_shows_a_form_whatever_the_pieces(piece):
    output = (f"{TOKEN[::-1]}\n{TOKEN.upper()} x\ny {TOKEN.lower()}\nnext line\n").encode()
    stream = StreamRedactor(SecretRedactor([TOKEN]))
    shown = "".join(stream.feed(output[at : at + piece]) for at in range(0, len(output), piece))
    shown += stream.finish()
    assert shown.count(REDACTED_MARK) == 3, shown
    assert shown.endswith("next line\n")
    for form in forms_of(TOKEN):
        assert form not in shown


def test_ordinary_text_in_capitals_or_mirrored_is_left_alone():
    redactor = SecretRedactor([TOKEN, KEY])
    ordinary = (
        "GITHUB_TOKEN=... SET IT IN .ENV\n"
        "NEKOT_BUHTIG is GITHUB_TOKEN reversed\n"
        f"SK-ANT-API03-... and {TOKEN.upper()[:12]} (too short to be the key)\n"
    )
    assert redactor.redact(ordinary).text == ordinary


@pytest.mark.e2e
def test_rev_and_tr_of_the_dotenv_file_send_nothing_of_the_token(tmp_path):
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
    commands = ("cat .env | rev", "cat .env | tr a-z A-Z", "tr a-zA-Z n-za-mN-ZA-M < .env")
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(
            *(
                Reply([tool_use_block(f"toolu_{n}", "bash", {"command": c})], "tool_use")
                for n, c in enumerate(commands)
            ),
            Reply([text_block("Done looking.")]),
        )
        env = build_env(home, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url})
        done = run_piped(["--yes"], cwd=workspace, env=env, stdin_text="look at .env\n")
        bodies = [json.dumps(request.body) for request in fake.requests]
        strings = [strings_in(request.body) for request in fake.requests]
    assert done.returncode == 0, done.stderr
    assert "Done looking." in done.stdout
    assert strings[-1].count(REDACTED_MARK) >= len(commands), strings[-1][-2000:]
    written = [p.read_bytes().decode("utf-8", "replace") for p in home.rglob("*") if p.is_file()]
    for where, text in enumerate([*bodies, *strings, *written, done.stdout + done.stderr]):
        for form in forms_of(TOKEN):
            assert form not in text, where


@pytest.mark.skipif(OPENSSL is None, reason="no openssl binary installed")
@pytest.mark.parametrize("command", ["rev key.pem", "rev .env", "rev key.pem | tac"])
def test_each_line_of_a_known_private_key_reversed_is_hidden(tmp_path, command):
    """Session 33: `rev key.pem` showed every line of a private key the session knows,
    each mirrored, though each line printed alone is hidden (`material_lines`): whoever
    reads them runs `rev` again. Each private line's mirror image is a secret too."""
    made = [str(OPENSSL), "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]
    key = subprocess.run(made, capture_output=True, text=True, check=True).stdout.strip()
    (tmp_path / "key.pem").write_text(key + "\n")
    (tmp_path / ".env").write_text(f'SIGNING_KEY="{key}"\n')
    box = toolbox(tmp_path, {"SIGNING_KEY": key})
    content = box.run("bash", {"command": command}).content
    private = material_lines(key)
    assert private, "the key has private lines"
    shown = [line for line in private if line[::-1] in content]
    assert shown == [], (command, content)
