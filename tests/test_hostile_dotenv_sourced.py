"""An `.envrc` whose credentials bash assigns differently than they are written (22nd
tester), end to end.

The attack: a GitHub App key set through a heredoc (`export GITHUB_APP_PEM=$(cat
<<'EOF'` ...), an AWS key as the default of `${AWS_SECRET_ACCESS_KEY:-...}` and a token
ending in `;`: only the text as written was a secret, so `read_file .envrc` sent the
key's lines and `set -a; . ./.envrc; printenv` the default and the token. Now the file
is read as bash and python-dotenv assign it (`tools.shell_source`).
"""

from __future__ import annotations

import json
from pathlib import Path

from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

KEY = "sk-ant-FAKE-dotenv-sourced-0123456789"
KEY_LINES = (
    "MIIEowIBAAKCAQEAheredocE2eLine1abcdefghijklmnopQRSTUVWX",
    "MIIEsecondHeredocLineOfKeyMaterialqrstuvwxyz0123456789AB",
)
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(KEY_LINES) + "\n-----END RSA PRIVATE KEY-----"
AWS = "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY"
GITHUB = "ghp_Semi0Trail1Token2Value3abcdefghij"
STRIPE = "sk_live_Def0ault1Stripe2Key3Value4"
SECRETS = (*KEY_LINES, AWS, GITHUB, STRIPE)
ENVRC = (
    f"export GITHUB_APP_PEM=$(cat <<'EOF'\n{PEM}\nEOF\n)\n"
    f"export AWS_SECRET_ACCESS_KEY=${{AWS_SECRET_ACCESS_KEY:-{AWS}}}\n"
    f"export GITHUB_TOKEN={GITHUB};\n"
)
DOTENV = f"STRIPE_SECRET_KEY=${{STRIPE_SECRET_KEY:-{STRIPE}}}\n"
SOURCE = (
    "set -a; . ./.envrc; . ./.env; printenv GITHUB_APP_PEM; printenv AWS_SECRET_ACCESS_KEY;"
    " printenv GITHUB_TOKEN; printenv STRIPE_SECRET_KEY"
)


def leaked(text: str) -> set[str]:
    return {secret for secret in SECRETS if secret in text}


def test_what_bash_assigns_from_an_envrc_is_never_sent(tmp_path: Path) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".envrc").write_text(ENVRC)
    (workspace / ".env").write_text(DOTENV)
    calls = [
        tool_use_block("toolu_1", "read_file", {"path": ".envrc"}),
        tool_use_block("toolu_2", "bash", {"command": "cat .envrc .env"}),
        tool_use_block("toolu_3", "bash", {"command": SOURCE}),
    ]
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(Reply(calls, stop_reason="tool_use"), Reply([text_block("Loaded.")]))
        env = build_env(home, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url})
        done = run_piped(["--yes"], cwd=workspace, env=env, stdin_text="load the env\n")
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    assert len(bodies) == 2
    for where, body in enumerate(bodies):
        assert leaked(json.dumps(body, ensure_ascii=False)) == set(), f"request {where}"
    for path in home.rglob("*"):
        if path.is_file():
            assert leaked(path.read_bytes().decode("utf-8", "replace")) == set(), path
    assert leaked(done.stdout + done.stderr) == set()
    results = json.dumps(bodies[-1]["messages"][-1], ensure_ascii=False)
    assert results.count("[REDACTED]") >= 8
