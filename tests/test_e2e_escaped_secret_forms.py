"""The twenty-fourth outside attack as a user meets it: the installed agent-cli with
`--yes`, the real SDK, the fake Messages API and the real tools that escape a value.

A `.env` password holding `&`, `<`, `>` went to the model whole through `kubectl create
configmap --from-env-file=.env -o json` (Go's encoder writes `\\u0026`, `\\u003c`,
`\\u003e`), and so did an environment password the same way, one holding a `'` through
`-o yaml` (`''`), and the forms Java's `Properties.store` and SQLite's `.dump` write
(`\\:`, `\\=`, `\\#`, `\\!`, `\\u00E9`; `''`). Each tool runs here as the model asks; no
value, in any of these forms or decoded from them, reaches a request, a file under
AGENT_CLI_HOME or the terminal.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import urllib.parse
from pathlib import Path

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import (
    Reply,
    start_fake_server,
    text_block,
    tool_result_texts,
    tool_use_block,
)
from hostile_support import recoverable_secrets

from agent_cli.secret_forms import REDACTED_MARK

KEY = "sk-ant-FAKE-a24-escapes-0123456789abcdef"
DOTENV_PASSWORD = "Xk9#mQ2&vL7pR4zT<w>Qe"
SMTP_PASSWORD = "Zr8!pW3&hT6yN1<q>Lm4"
DB_PASSWORD = "!Kq7'mZ2vL9:pR4=zTx8w\u00e9"
SECRETS = (DOTENV_PASSWORD, SMTP_PASSWORD, DB_PASSWORD, KEY)
PROPERTIES_PROGRAM = """\
import java.util.Properties;
public class Props {
    public static void main(String[] args) throws Exception {
        Properties properties = new Properties();
        properties.setProperty("db.password", System.getenv("DB_PASSWORD"));
        properties.store(System.out, null);
    }
}
"""
COMMANDS = {
    "go json of .env": (
        "kubectl create configmap app --from-env-file=.env --dry-run=client -o json"
    ),
    "go json of env": (
        'kubectl create configmap app2 --from-literal=SMTP_PASSWORD="$SMTP_PASSWORD"'
        " --dry-run=client -o json"
    ),
    "yaml": (
        'kubectl create configmap app3 --from-literal=DB_PASSWORD="$DB_PASSWORD"'
        " --dry-run=client -o yaml"
    ),
    "java properties": "java Props.java",
    "sqlite dump": (
        "printf %s \"$DB_PASSWORD\" > /tmp/$$.pw && sqlite3 :memory: 'CREATE TABLE t(v TEXT);'"
        " \"INSERT INTO t VALUES(CAST(readfile('/tmp/$$.pw') AS TEXT));\" .dump;"
        " rm -f /tmp/$$.pw"
    ),
}
NEEDS = {"kubectl", "java", "sqlite3"}


def decoded_views(text: str) -> list[str]:
    """`text`, and as each escaping read back gives it: JSON's `\\uXXXX` (surrogate pairs
    joined), HTML's references, a doubled quote, a backslash before any character."""
    unicode_undone = re.sub(
        r"(?:\\u[0-9a-fA-F]{4})+",
        lambda found: b"".join(
            bytes.fromhex(unit) for unit in re.findall(r"[0-9a-fA-F]{4}", found.group())
        ).decode("utf-16-be", errors="replace"),
        text,
    )
    return [
        text,
        unicode_undone,
        html.unescape(text),
        text.replace("''", "'").replace('""', '"'),
        re.sub(r"\\(.)", r"\1", unicode_undone),
    ]


def leaked(text: str) -> set[str]:
    return {found for view in decoded_views(text) for found in recoverable_secrets(view, SECRETS)}


def call(tool_id: str, command: str) -> Reply:
    return Reply([tool_use_block(tool_id, "bash", {"command": command})], stop_reason="tool_use")


@pytest.mark.e2e
@pytest.mark.skipif(
    not all(shutil.which(tool) for tool in NEEDS), reason="needs kubectl, java and sqlite3"
)
def test_passwords_printed_by_kubectl_java_and_sqlite_reach_no_request(tmp_path: Path) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".env").write_text(f"DB_PASSWORD_APP='{DOTENV_PASSWORD}'\n")
    (workspace / "Props.java").write_text(PROPERTIES_PROGRAM)
    calls = [call(f"toolu_{index}", command) for index, command in enumerate(COMMANDS.values())]
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(*calls, Reply([text_block("Made the configmaps.")]))
        extra = {
            "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_BASE_URL": fake.base_url,
            "SMTP_PASSWORD": SMTP_PASSWORD,
            "DB_PASSWORD": DB_PASSWORD,
            "HOME": str(tmp_path),  # kubectl's and java's caches stay in the test's folder
        }
        done = run_piped(["--yes"], cwd=workspace, env=build_env(home, extra), stdin_text="go\n")
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    results = dict(zip(COMMANDS, tool_result_texts(bodies[-1]), strict=True))
    # kubectl keeps a dotenv value's quotes as part of it
    assert f'"DB_PASSWORD_APP": "\'{REDACTED_MARK}\'"' in results["go json of .env"]
    assert '"SMTP_PASSWORD": "' + REDACTED_MARK + '"' in results["go json of env"]
    assert f"DB_PASSWORD: '{REDACTED_MARK}'" in results["yaml"]
    assert f"db.password={REDACTED_MARK}" in results["java properties"]
    assert f"INSERT INTO t VALUES('{REDACTED_MARK}');" in results["sqlite dump"]
    for where, body in enumerate(bodies):
        assert leaked(json.dumps(body, ensure_ascii=False)) == set(), f"request {where}"
    for path in home.rglob("*"):
        if path.is_file():
            assert leaked(path.read_bytes().decode("utf-8", "replace")) == set(), path
    assert leaked(done.stdout + done.stderr) == set()


URL_IN_URL = (
    "python3 -c \"import os, urllib.parse as u; p = u.quote(os.environ['DB_PASSWORD_APP'],"
    " safe=''); print('https://login.example/cb?next=' + u.quote('postgres://app:' + p"
    " + '@db.example/app', safe=''))\""
)


@pytest.mark.e2e
@pytest.mark.skipif(not shutil.which("systemd-escape"), reason="needs systemd-escape")
def test_a_password_in_a_url_inside_a_url_or_systemd_escaped_reaches_no_request(
    tmp_path: Path,
) -> None:
    """An OAuth `next=` holding a `DATABASE_URL` (`%2526` for `&`) and `systemd-escape`
    (`\\\\x26`) wrote a password no escape of the matcher spelled (session 24)."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    commands = {"url in url": URL_IN_URL, "systemd-escape": 'systemd-escape "$DB_PASSWORD_APP"'}
    calls = [call(f"toolu_{index}", command) for index, command in enumerate(commands.values())]
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(*calls, Reply([text_block("Printed.")]))
        extra = {
            "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_BASE_URL": fake.base_url,
            "DB_PASSWORD_APP": DOTENV_PASSWORD,
        }
        done = run_piped(["--yes"], cwd=workspace, env=build_env(home, extra), stdin_text="go\n")
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    results = dict(zip(commands, tool_result_texts(bodies[-1]), strict=True))
    assert "next=postgres%3A%2F%2Fapp%3A" + REDACTED_MARK in results["url in url"]
    assert results["systemd-escape"].endswith(f"\n{REDACTED_MARK}\n")
    for body in bodies:
        sent = json.dumps(body, ensure_ascii=False)
        once = urllib.parse.unquote(sent)
        for view in (sent, once, urllib.parse.unquote(once)):
            assert leaked(view) == set()
        assert leaked(sent.encode().decode("unicode_escape", "replace")) == set()
