"""An MCP server started through a shell is read for credentials as the shell reads its
command line (twenty-fifth session, second outside attack).

The attack: `command = "sh"`, `args = ["-c", "exec srv -e GITHUB_TOKEN=<T1> --api-key
<T2>"]` and `["-c", "GITHUB_TOKEN=<T3> exec srv"]`: the same flags as separate arguments
were hidden, inside one `-c` argument T1, T2 and T3 reached the model when the server
named its arguments or its environment. Of `GITHUB_TOKEN=<T3> exec srv` the value
`T3 exec srv` was learned, not `T3`.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_result_texts, tool_use_block
from hostile_support import McpServer, recoverable_secrets

from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools.redaction import collect_mcp_secret_values
from agent_cli.tools.shell_command_lines import command_lines, command_words

T1 = "ghp_ShDashCEnvFlag0Token1abcdefghijklmn"
T2 = "sk-proj-ShDashCApiKeyFlag0123456789abcd"
T3 = "ghp_ShDashCInlineAssign0Token1abcdefghij"
LEAKY = Path(__file__).parent / "mcp_fixtures" / "leaky_server.py"


def secrets_of(command: str, *args: str) -> set[str]:
    return set(collect_mcp_secret_values([McpServer(command=command, args=args)], {}))


def encoded_powershell(line: str) -> str:
    return base64.b64encode(line.encode("utf-16-le")).decode("ascii")


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("sh", ("-c", f"exec srv -e GITHUB_TOKEN={T1} --api-key {T2}")),
        ("/bin/bash", ("-lc", f"srv -e 'GITHUB_TOKEN={T1}' --api-key=\"{T2}\"")),
        ("zsh", ("-e", "-c", f"srv --header 'X-Token: {T1}' --api-key {T2}")),
        ("dash", ("-o", "errexit", "-c", f"srv -e GITHUB_TOKEN={T1}; srv --api-key {T2}")),
        ("docker", ("run", "--rm", "img", "sh", "-c", f"srv -e GITHUB_TOKEN={T1} --api-key {T2}")),
        ("sh", ("-c", f'bash -c "srv -e GITHUB_TOKEN={T1} --api-key {T2}"')),
        ("cmd.exe", ("/s", "/c", f"set GITHUB_TOKEN={T1} && srv --api-key {T2}")),
        ("powershell", ("-NoProfile", "-Command", f"$env:GITHUB_TOKEN = '{T1}'; srv -apikey {T2}")),
        ("pwsh", ("-ec", encoded_powershell(f"$env:GITHUB_TOKEN='{T1}'; srv --api-key {T2}"))),
        ("sh -c", (f"exec srv -e GITHUB_TOKEN={T1} --api-key {T2}",)),
    ],
)
def test_credentials_inside_a_shells_command_line_are_secrets(command, args):
    assert secrets_of(command, *args) >= {T1, T2}


def test_an_assignment_before_the_program_gives_its_value_alone():
    found = secrets_of("sh", "-c", f"GITHUB_TOKEN={T3} exec srv binary")
    assert found == {T3}


def test_a_name_assigned_earlier_in_the_line_is_expanded_where_a_flag_uses_it():
    line = f'KEY_VALUE={T2}; export KEY_VALUE; exec srv --api-key "$KEY_VALUE"'
    assert T2 in secrets_of("bash", "-c", line)


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("sh", ("-c", "exec srv --port 8080 --log-level debug --workspace /srv/app")),
        ("bash", ("-c", "cd /srv/app && LOG_LEVEL=debug exec node server.js --stdio")),
        ("python", ("-c", "import os; print(os.environ['GITHUB_TOKEN'])")),
        ("sh", ("script.sh", "-c", "--api-key")),
    ],
)
def test_a_shell_line_without_credentials_gives_none(command, args):
    assert secrets_of(command, *args) == set()


def test_command_lines_are_found_after_a_shells_options_and_split_as_it_splits_them():
    args = ("run", "img", "/usr/bin/env", "bash", "--login", "-o", "pipefail", "-ec", "a 'b c'")
    assert list(command_lines(args)) == [(8, "a 'b c'")]
    assert list(command_lines(("sh", "script.sh", "-c", "x"))) == []
    # what follows `cmd /c` is one line, read once (its own `cmd /c` at the next depth)
    assert list(command_lines(("cmd", "/c", "cmd", "/c", "srv"))) == [(2, "cmd /c srv")]
    assert list(command_words('A=1 exec srv "two words"; next $A')) == [
        ("A=1", "exec", "srv", "two words"),
        ("next", "1"),
    ]


def config_toml() -> str:
    wrapped = f"exec {sys.executable} {LEAKY} binary -e GITHUB_TOKEN={T1} --api-key {T2}"
    inline = f"GITHUB_TOKEN={T3} exec {sys.executable} {LEAKY} binary"
    return "".join(
        f'[mcp_servers.{name}]\ncommand = "sh"\nargs = {json.dumps(["-c", line])}\n'
        "startup_timeout = 40\n\n"
        for name, line in (("wrapped", wrapped), ("inline", inline))
    )


@pytest.mark.e2e
def test_a_server_started_through_sh_c_shows_no_credential_of_its_line(tmp_path: Path) -> None:
    key = "sk-ant-FAKE-shc-0123456789abcdef"
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    workspace.mkdir()
    (home / "config.toml").write_text(config_toml(), encoding="utf-8")
    (workspace / "secret.txt").write_text("nothing secret here\n", encoding="utf-8")
    calls = [
        tool_use_block("toolu_args", "mcp__wrapped__arguments", {}),
        tool_use_block("toolu_env", "mcp__inline__env_value", {"name": "GITHUB_TOKEN"}),
    ]
    with start_fake_server(api_key=key) as fake:
        fake.enqueue(Reply(calls, stop_reason="tool_use"), Reply([text_block("done.")]))
        env = build_env(home, {"ANTHROPIC_API_KEY": key, "ANTHROPIC_BASE_URL": fake.base_url})
        done = run_piped(["--yes"], cwd=workspace, env=env, stdin_text="go\n")
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    arguments, env_value = tool_result_texts(bodies[-1])
    assert f"-e GITHUB_TOKEN={REDACTED_MARK} --api-key {REDACTED_MARK}" in arguments
    assert f"GITHUB_TOKEN={REDACTED_MARK}" in env_value
    secrets = (T1, T2, T3, key)
    assert recoverable_secrets(json.dumps(bodies), secrets) == set()
    for path in home.rglob("*"):
        if path.is_file() and path.name != "config.toml":
            text = path.read_bytes().decode("utf-8", "replace")
            assert recoverable_secrets(text, secrets) == set(), path
    assert recoverable_secrets(done.stdout + done.stderr, secrets) == set()


GHP = "ghp_PositionalToken0123456789abcdefABCD"
SK_LIVE = "sk-live-abcdefghijklmnopqrstuvwx"  # a prefix and a random run, no digit
XOXB = "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
HEX_KEY = "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"
AWS_ID = "AKIAIOSFODNN7EXAMPLE"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJtY3AtYm90IiwiaWF0IjoxNzAwMDAwMDAwfQ"
    ".Qm9ndXNTaWduYXR1cmVGb3JUZXN0c09ubHkwMTIz"
)
# Keys with no service's prefix, generated (session 33): AWS's secret access key, base62,
# base64url (`secrets.token_urlsafe`), base64 with padding (an Azure storage key).
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
AWS_TEMPORARY_ID = "ASIAY34FZKBOKMUTVV7A"
BASE62_KEY = "Xk9mP2qR7sT4vW8yZ1aB3cD5eF6gH0jK"
URLSAFE_KEY = "wrk4fAfjoVP99xE-kOyP2NCF8fb_CsuiplU2XqOSWLU"
PADDED_KEY = (
    "VXeN9V+k9uOQJJrTnv4a2o+jfTwco5FtIbs/pHyLowO1m8nHXjgQuj8gTC89ogEd0Y2yZ2LG6vK36J34IwT2wg=="
)
SHEET_ID = "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms"
HEX_TOKEN = "9b1c6f0e2d8a4c7b9e3f1a5d6c8b0e2f"  # hex, after a flag that names it


@pytest.mark.parametrize(
    ("command", "args", "keys"),
    [
        ("npx", ("-y", "some-mcp", GHP), {GHP}),
        ("srv", ("--", SK_LIVE, "serve"), {SK_LIVE}),
        ("srv", (XOXB, HEX_KEY, AWS_ID), {XOXB, AWS_ID}),
        ("sh", ("-c", f"exec srv --stdio {GHP}"), {GHP}),
        ("npx", ("-y", GHP), {GHP}),
        ("srv", ("--profile", "default", "-y", GHP), {GHP}),
        ("npx", ("-y", "supabase-mcp", JWT), {JWT}),  # left by session 31
        ("srv", (f"--anon={JWT}",), {JWT}),  # after `=` under a name no credential's
        ("env", (f"SUPA={GHP}", "srv"), {GHP}),
        # left by sessions 31 and 32: a key with no prefix given alone (session 33)
        ("npx", ("-y", "mcp-server-aws", AWS_ID, AWS_SECRET), {AWS_ID, AWS_SECRET}),
        ("srv", (AWS_TEMPORARY_ID, AWS_SECRET), {AWS_TEMPORARY_ID, AWS_SECRET}),
        ("srv", ("serve", BASE62_KEY), {BASE62_KEY}),
        ("srv", ("--stdio", URLSAFE_KEY, "--port", "8080"), {URLSAFE_KEY}),
        ("srv", ("--account", "prod", PADDED_KEY), {PADDED_KEY}),
        ("srv", (f"--key-file-contents={PADDED_KEY}",), {PADDED_KEY}),
        ("sh", ("-c", f"exec srv --stdio {AWS_SECRET}"), {AWS_SECRET}),
        ("srv", ("--token", HEX_TOKEN), {HEX_TOKEN}),
        # an id of a generated key's shape cannot be told from one: hidden (session 33)
        ("npx", ("-y", "mcp-gsheets", SHEET_ID), {SHEET_ID}),
    ],
)
def test_a_key_given_on_its_own_in_args_is_a_secret(command, args, keys):
    """T3, session 30: a key given positionally, no flag naming it, was shown. A word with
    a service's key prefix is one, after a flag too; so is one with a generated key's
    shape, 32 characters of base64 or base64url with both cases and a digit (session 33:
    an AWS secret key given alone was shown); a random-looking word shorter than that or
    in one case (a commit SHA, hex ids) is not: see the ordinary arguments below."""
    assert secrets_of(command, *args) == keys


@pytest.mark.parametrize(
    "word",
    [
        "some-mcp",
        "@modelcontextprotocol/server-github",
        "@scope/pkg@1.2.3",
        "/srv/data/projects-2024",
        "./config/settings.production.json",
        "https://example.com/api/v2",
        "8080",
        "20241022",
        "123e4567-e89b-12d3-a456-426614174000",
        "claude-3-5-sonnet-20241022",
        "mcp-server-postgres-v2024",
        "production_db_replica2",
        "sk-learn-toolkit",
        "supercalifragilisticexpialidocious",
        "--read-only",
        # ids a review found taken for keys by a shape rule, hidden in every result after
        HEX_KEY,  # a commit SHA (SHA-1 of "test")
        HEX_KEY.upper(),
        "aBcDeFgH1234IjKlMnOp56",  # a Figma file's key
        "team_a1B2c3D4e5F6g7H8i9J0",  # a Vercel team
        "acct_1032D82eZvKYlo2C",  # a Stripe account id
        "price_1MoBy5LkdIwHu7ixZhnattbh",
        "507f1f77bcf86cd799439011",  # a MongoDB ObjectId
        "023e105f4ecef8ad9ca31a8372d0c353",  # a Cloudflare account id
        "01ARZ3NDEKTSV4RRFFQ69G5FAV",  # a ULID
        "0ujtsYcgvSTl8PAuAdqWYSMnLOv",  # a KSUID
        "i-0abcd1234ef567890",  # an EC2 instance
        "web-7d4b9c8f6d-x2k9p",  # a pod
        "WIN-SRV2019-DC01",
        "AdventureWorksDW2019",
        "DeepSeek-Coder-V2-Lite-Instruct",
        "TinyLlama-1_1B-Chat-v1_0",
        "backup-20240101T120000Z",
        "Zq7Rk2mXv9LpW4tYc8Nb",
        "eyJhbGciOiJIUzI1NiJ9",  # a JWT's header alone
        "config.eyJ.json",
        # beside the generated key's shape (session 33)
        "/home/u/projects/my-app",
        "--port=8080",
        "stdio",
        "ghcr.io/github/github-mcp-server:latest",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",  # a SHA-256
        "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",
        "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP2024",  # one case
        "src/components/Header2/HeaderNavigation",
        "docs/Architecture/Overview2024/README",
        "/Users/JaneDoe/Projects2024/MyApplication",
        "AbstractSingletonProxyFactoryBean2024",
        "Mistral-Small-24B-Instruct-2501-GGUF",
        "Meta-Llama-3_1-70B-Instruct-Q4_K_M-00001",
        "dGhpcyBpcyBhIHRlc3Q=",  # base64, short
        "0ujtsYcgvSTl8PAuAdqWYSMnLOvA12",  # under 32 characters
        "feature/AddLoginPage2ForUsersAndAdmins",
        "0xdAC17F958D2ee523a2206206994597C13D831ec7",  # an Ethereum address (EIP-55)
        "createOrUpdateFileContentsInRepository2",
    ],
)
def test_an_ordinary_argument_is_no_secret(word):
    assert secrets_of("npx", "some-mcp", word, "serve") == set()
