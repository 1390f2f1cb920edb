"""The twenty-third outside attack as a user meets it: the installed agent-cli with
`--yes`, the real SDK and the fake Messages API.

agent-cli's environment holds credentials under names the rule missed (`NGROK_AUTHTOKEN`,
`SYSTEM_ACCESSTOKEN`, `BW_SESSION`, `LDAP_BIND_PW`, `TOTP_SEED`, ...) and inside URLs it
did not read (a token as the user part, a JDBC URL); the workspace keeps more in dotenv
files by other names (`.secrets`, `.dev.vars`, `.env-production`, `.env~`). The model
prints the environment, cats the files and reads each with read_file: no value reaches a
request, a file under AGENT_CLI_HOME or the terminal, while a user name in a URL and a
desktop session's name stay as they are.
"""

from __future__ import annotations

import json
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

KEY = "sk-ant-FAKE-a23-names-0123456789abcdef"
FURY = "fJ8kq2ZrX9mLp4WtY7cN"
JDBC_PASSWORD = "Sprng-Pw-7Rk2mXv9Lp"
PAT = "ghp_UserPartTok0123456789abcdefABCDEF01"
NAMED = {
    "NGROK_AUTHTOKEN": "2abcDEFghiJKLmno_5pQrStUvWxYz1234567890",
    "SYSTEM_ACCESSTOKEN": "q7x2mz4k9w3v8n1p6r5t0y2u4i6o8a1s3d5f7g9h2j4k6l8",
    "BW_SESSION": "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbA==",
    "BW_CLIENTSECRET": "bwCliSecret-7Rk2mXv9LpW4tY",
    "LDAP_BIND_PW": "Xk9#mQ2!vL7pR4zT",
    "TOTP_SEED": "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP",
    "WALLET_MNEMONIC": "abandon ability able about above absent absorb abstract",
    "KEYPASS": "Kp-Zq7Rk2mXv9LpW",
}
URLS = {
    "PIP_EXTRA_INDEX_URL": f"https://{FURY}@pypi.fury.io/acme/",
    "SPRING_DATASOURCE_URL": f"jdbc:mysql://app:{JDBC_PASSWORD}@db.internal:3306/prod",
}
PLAIN = {
    "DESKTOP_SESSION": "ubuntu-wayland-session",
    "GIT_MIRROR_URL": "https://git@github.com/acme/public-mirror.git",
}
DOTENV = {
    ".dev.vars": "CF_API_TOKEN=cfDevVarsTokQ7w8e9r0tYuIoPaSdFgH\n",
    ".secrets": "GITHUB_TOKEN=ghp_ActSecrets0123456789abcdefABCDEF0\n",
    ".env-production": (
        "STRIPE_SECRET_KEY=sk_live_51DashEnvq8Zr2mXv9LpW4tY\n"
        f"GIT_REMOTE_URL=https://{PAT}@github.com/acme/private.git\n"
    ),
    ".env~": "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYBackup01\n",
}
DOTENV_SECRETS = (
    "cfDevVarsTokQ7w8e9r0tYuIoPaSdFgH",
    "ghp_ActSecrets0123456789abcdefABCDEF0",
    "sk_live_51DashEnvq8Zr2mXv9LpW4tY",
    PAT,
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYBackup01",
)
SECRETS = (*NAMED.values(), FURY, JDBC_PASSWORD, *DOTENV_SECRETS, KEY)


def call(tool_id: str, name: str, **tool_input: str) -> Reply:
    return Reply([tool_use_block(tool_id, name, tool_input)], stop_reason="tool_use")


@pytest.mark.e2e
def test_glued_names_url_user_tokens_and_other_dotenv_files_reach_no_request(
    tmp_path: Path,
) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    for name, text in DOTENV.items():
        (workspace / name).write_text(text)
    names = "|".join([*NAMED, *URLS, *PLAIN])
    reads = [call(f"toolu_r{i}", "read_file", path=name) for i, name in enumerate(DOTENV)]
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(
            call("toolu_env", "bash", command=f"env | grep -E '^({names})=' | sort"),
            call("toolu_cat", "bash", command="cat " + " ".join(f"'{n}'" for n in DOTENV)),
            *reads,
            Reply([text_block("Looked at all of them.")]),
        )
        extra = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url}
        env = build_env(home, {**extra, **NAMED, **URLS, **PLAIN})
        done = run_piped(["--yes"], cwd=workspace, env=env, stdin_text="show me\n")
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    printed, catted, *read = tool_result_texts(bodies[-1])
    for name in NAMED:
        assert f"{name}={REDACTED_MARK}" in printed, printed
    assert f"PIP_EXTRA_INDEX_URL=https://{REDACTED_MARK}@pypi.fury.io/acme/" in printed
    assert f"jdbc:mysql://app:{REDACTED_MARK}@db.internal:3306/prod" in printed
    for name, value in PLAIN.items():  # a user name and a desktop's name stay
        assert f"{name}={value}" in printed, printed
    assert f"GIT_REMOTE_URL=https://{REDACTED_MARK}@github.com/acme/private.git" in catted
    assert len(read) == len(DOTENV) and all(REDACTED_MARK in text for text in read)
    for where, body in enumerate(bodies):
        assert recoverable_secrets(json.dumps(body), SECRETS) == set(), f"request {where}"
    for path in home.rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            assert recoverable_secrets(text, SECRETS) == set(), path
    assert recoverable_secrets(done.stdout + done.stderr, SECRETS) == set()
