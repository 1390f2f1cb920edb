"""Credentials in the workspace's dotenv files, in every form dotenv readers read (21st
tester).

The attack: with a `.env` holding a private key in single quotes over several lines, a
password with an escaped quote, one name given twice, a `.env` saved with a byte-order
mark or as UTF-16, a `.devcontainer/.env`, a `.env` over 256 KB, or `NAME: value`,
`cat` and `read_file` sent those values whole, and the start said nothing. Now the
files are read as python-dotenv, Node's dotenv and a shell read them
(`tools.dotenv_syntax`), dot folders one level down too, a large file to its first
4 MB, and what is not read is named at start.
"""

from __future__ import annotations

import codecs
import json
import os
from pathlib import Path

from e2e_support import build_env, run_piped, run_scripted
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from hostile_support import recoverable_secrets

from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools.workspace_secrets import MAX_DOTENV_BYTES

KEY = "sk-ant-FAKE-dotenv-forms-0123456789"
KEY_LINES = (
    "MIIEowIBAAKCAQEAsingleQuotedLine1abcdefghijklmnopQRSTUVWX",
    "MIIEsecondLineOfKeyMaterialqrstuvwxyz0123456789ABCDEFGHIJ",
)
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(KEY_LINES) + "\n-----END RSA PRIVATE KEY-----"
PASSWORD = 'Xk9"mQ2vLp7wRtZ4'
FIRST, SECOND = "Dup0First1Secret2Valueabcd", "Dup9Second8Secret7Valuewxyz"
COLON = "Yaml0Style1Secret2Valuezz"
BOM = "ghp_Bom0Saved1Token2Value3abcdefghijklm"
UTF16 = "ghp_Utf16Saved1Token2Value3abcdefghijk"
DEVCONTAINER = "ghp_Dot0Folder1Token2Value3abcdefghijkl"
LARGE = "sk_live_Big0Env1File2Secret3Value4xyz"
SECRETS = (*KEY_LINES, PASSWORD, "mQ2vLp7wRtZ4", FIRST, SECOND, COLON, BOM, UTF16, DEVCONTAINER)
SECRETS += (LARGE,)
FILES = (".env", "bom.env", "windows.env", ".devcontainer/.env", "large.env")


def plant_dotenv_files(workspace: Path) -> None:
    (workspace / ".devcontainer").mkdir(parents=True)
    (workspace / ".env").write_text(
        f"PRIVATE_KEY='{PEM}'\n"
        'DB_PASSWORD="Xk9\\"mQ2vLp7wRtZ4"\n'
        f"API_TOKEN={FIRST}\n"
        "DEBUG=true\n"
        f"API_TOKEN={SECOND}\n"
        f"SESSION_SECRET: {COLON}\n"
    )
    (workspace / "bom.env").write_bytes(codecs.BOM_UTF8 + f"GITHUB_TOKEN={BOM}\nA=1\n".encode())
    (workspace / "windows.env").write_bytes(f"\ufeffGITHUB_TOKEN={UTF16}\r\n".encode("utf-16-le"))
    (workspace / ".devcontainer" / ".env").write_text(f"GITHUB_TOKEN={DEVCONTAINER}\n")
    (workspace / "large.env").write_text("#" + "x" * 300_000 + f"\nSTRIPE_SECRET_KEY={LARGE}\n")


def read_them_all() -> Reply:
    calls = []
    for number, path in enumerate(FILES):
        calls.append(tool_use_block(f"toolu_c{number}", "bash", {"command": f"cat {path}"}))
        calls.append(tool_use_block(f"toolu_r{number}", "read_file", {"path": path}))
    return Reply(calls, stop_reason="tool_use")


def leaked(text: str) -> set[str]:
    """The secrets `text` gives back, also as UTF-16 shows them (a NUL between)."""
    return recoverable_secrets(text, SECRETS) | recoverable_secrets(
        text.replace("\x00", "").replace("\\u0000", ""), SECRETS
    )


def test_dotenv_credentials_in_every_form_are_never_sent(tmp_path: Path) -> None:
    """As a user meets it: the installed agent-cli, the real SDK, the fake API; the
    model cats and reads every file."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    plant_dotenv_files(workspace)
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(read_them_all(), Reply([text_block("Read them.")]))
        env = build_env(home, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url})
        done = run_piped(["--yes"], cwd=workspace, env=env, stdin_text="read the env files\n")
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    for where, body in enumerate(bodies):
        assert leaked(json.dumps(body, ensure_ascii=False)) == set(), f"request {where}"
    for path in home.rglob("*"):
        if path.is_file():
            assert leaked(path.read_bytes().decode("utf-8", "replace")) == set(), path
    assert leaked(done.stdout + done.stderr) == set()
    results = json.dumps(bodies[-1]["messages"][-1], ensure_ascii=False)
    assert results.count(REDACTED_MARK) >= 2 * len(FILES)  # each file, cat and read_file
    assert "DEBUG=true" in results  # a setting, shown
    assert "Not hidden from the model" not in done.stdout + done.stderr


def test_dotenv_files_not_read_whole_are_named_at_start(tmp_path: Path) -> None:
    """A pipe, a file that cannot be opened and the part of a file past the bound are
    not read: the start says so, naming them; the rest of the files is read."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    os.mkfifo(workspace / ".env.pipe")
    os.symlink("loop.env", workspace / "loop.env")  # opening it fails (a link loop)
    (workspace / "huge.env").write_text(
        f"STRIPE_SECRET_KEY={LARGE}\n" + "#" * MAX_DOTENV_BYTES + f"\nLATE_TOKEN={FIRST}\n"
    )
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(
            Reply(
                [tool_use_block("toolu_1", "bash", {"command": "head -c 200 huge.env"})],
                stop_reason="tool_use",
            ),
            Reply([text_block("Done.")]),
        )
        env = build_env(home, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url})
        done = run_piped(["--yes"], cwd=workspace, env=env, stdin_text="look\n")
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert said.count("Not read for secrets at start") == 1, said
    assert ".env.pipe (a pipe, socket or device, not a file" in said
    assert "loop.env (could not be read)" in said
    assert "huge.env past its first 4 MB" in said
    assert "Not hidden from the model" not in said
    assert LARGE not in json.dumps(bodies[-1], ensure_ascii=False)  # its head was read


JSON_STRIPE = "sk_live_51Hx9Json0Pretty1Zq8xW3vR7tY2"
JSON_GITHUB = "ghp_Json0OneLine1Token2Value3abcdefghi"
JSON_NESTED = "sk_live_51Hx9Json2Nested3pL9mK4nB6cD1"


def test_a_dotenv_file_written_as_json_is_read_for_its_credentials(tmp_path: Path) -> None:
    """Twenty-fifth outside attack: `.env.json` (pretty, on one line, or one object per
    environment as env-cmd's `.env-cmdrc` is) sent its keys to `read_file` and `cat`;
    its other values stay as they are."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    (workspace / "api").mkdir(parents=True)
    pretty = {"STRIPE_SECRET_KEY": JSON_STRIPE, "PORT": "3000"}
    (workspace / ".env.json").write_text(json.dumps(pretty, indent=2) + "\n")
    (workspace / "api" / ".env.json").write_text(json.dumps({"GITHUB_TOKEN": JSON_GITHUB}))
    rc = {"development": {"PORT": 3000}, "production": {"STRIPE_SECRET_KEY": JSON_NESTED}}
    (workspace / ".env-cmdrc").write_text(json.dumps(rc, indent=2))
    paths = (".env.json", "api/.env.json", ".env-cmdrc")
    calls = [tool_use_block(f"toolu_r{n}", "read_file", {"path": p}) for n, p in enumerate(paths)]
    calls.append(tool_use_block("toolu_cat", "bash", {"command": "cat " + " ".join(paths)}))
    replies = [Reply(calls, stop_reason="tool_use"), Reply([text_block("Read.")])]
    done, bodies = run_scripted(home, workspace, KEY, replies, stdin_text="read them\n")
    assert done.returncode == 0, done.stderr
    sent = json.dumps(bodies[-1], ensure_ascii=False)
    assert f'\\"STRIPE_SECRET_KEY\\": \\"{REDACTED_MARK}\\"' in sent
    assert f'{{\\"GITHUB_TOKEN\\": \\"{REDACTED_MARK}\\"}}' in sent
    assert '\\"PORT\\": \\"3000\\"' in sent and '\\"PORT\\": 3000' in sent
    secrets = (JSON_STRIPE, JSON_GITHUB, JSON_NESTED)
    for where, body in enumerate(bodies):
        assert recoverable_secrets(json.dumps(body), secrets) == set(), f"request {where}"
    for path in home.rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            assert recoverable_secrets(text, secrets) == set(), path
    assert recoverable_secrets(done.stdout + done.stderr, secrets) == set()


LIST_TOKEN = "ghp_Ar7ayNameValue0Qw3Er5Ty8Ui2Op4As6Df9"
JSONC_KEY = "sk_live_JsoncLeadingComment0123456789ab"
VAULT_TOKEN = "ghp_Jn5NestedCred0Zx2Cv4Bn6Mk8Lp1Qa3Ws7"
SETTINGS_JSON = """{
  "PORT": 3000,
  "auth": {"audience": "https://api.example.com", "sessionMaxAge": 86400000,
           "header": "Authorization"},
  "secrets": {"region": "us-east-1"},
  "tokens": ["primary-500", "gray-900"]
}
"""
SERVER_JS = """// region us-east-1, audience https://api.example.com
const h = req.headers["Authorization"];
res.cookie("sid", id, { maxAge: 86400000 });
// theme: primary-500 on gray-900
"""


def test_json_dotenv_lists_and_jsonc_are_hidden_and_settings_under_auth_shown(
    tmp_path: Path,
) -> None:
    """Second twenty-fifth outside attack: a `[{"name", "value"}]` list, a `.env.json`
    opening with a `//` line, and one with a comment above a `credentials` object sent
    their keys; a `.env.json` grouping settings under `auth`, `secrets` and `tokens`
    blanked `Authorization`, `us-east-1`, a URL and `86400000` in every result."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    (workspace / "config").mkdir(parents=True)
    (workspace / "src").mkdir()
    listed = [{"name": "GITHUB_TOKEN", "value": LIST_TOKEN, "slotSetting": False}]
    (workspace / ".env.json").write_text(json.dumps(listed, indent=2))
    (workspace / "config" / ".env.json").write_text(
        f'// local overrides\n{{\n  "STRIPE_SECRET_KEY": "{JSONC_KEY}",\n  "PORT": 3000,\n}}\n'
    )
    (workspace / ".env.local.json").write_text(
        f'{{\n  // from the vault\n  "credentials": {{"github": "{VAULT_TOKEN}"}}\n}}\n'
    )
    (workspace / "config" / ".env.settings.json").write_text(SETTINGS_JSON)
    (workspace / "src" / "server.js").write_text(SERVER_JS)
    paths = (".env.json", "config/.env.json", ".env.local.json", "src/server.js")
    calls = [tool_use_block(f"toolu_r{n}", "read_file", {"path": p}) for n, p in enumerate(paths)]
    calls.append(tool_use_block("toolu_cat", "bash", {"command": "cat " + " ".join(paths)}))
    replies = [Reply(calls, stop_reason="tool_use"), Reply([text_block("Read.")])]
    done, bodies = run_scripted(home, workspace, KEY, replies, stdin_text="read them\n")
    assert done.returncode == 0, done.stderr
    secrets = (LIST_TOKEN, JSONC_KEY, VAULT_TOKEN)
    for where, body in enumerate(bodies):
        assert recoverable_secrets(json.dumps(body), secrets) == set(), f"request {where}"
    for path in home.rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            assert recoverable_secrets(text, secrets) == set(), path
    assert recoverable_secrets(done.stdout + done.stderr, secrets) == set()
    sent = json.dumps(bodies[-1]["messages"][-1], ensure_ascii=False)
    for line in SERVER_JS.splitlines():
        assert sent.count(json.dumps(line)[1:-1]) == 2, line  # read_file's and cat's
