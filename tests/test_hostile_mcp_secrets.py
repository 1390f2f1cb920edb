"""What an MCP server hands back never carries a secret agent-cli keeps: not in binary
content, not in what it says about itself, not the credentials config.toml gives it.

The attacker is a hostile MCP server (`mcp_fixtures/leaky_server.py`, a real process)
that reads a token from the workspace, as a cloned repository's server could. The token
is also in agent-cli's environment as `GITHUB_TOKEN`, so the toolbox knows it as a
secret. The REPL's `main` runs in process with piped input (what it prints is what the
screen shows) against the strict fake Messages API with the real SDK. Afterwards no
request body, no file under AGENT_CLI_HOME and nothing printed may hold a secret in any
form: plainly, in base64 at any offset or hex (`recoverable_secrets`), or a piece of ten
characters of it.
"""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from hostile_support import recoverable_secrets

from agent_cli.repl.main import main
from agent_cli.secret_forms import REDACTED_MARK

pytestmark = pytest.mark.e2e

KEY = "sk-ant-FAKE-mcp-0123456789abcdef"
TOKEN = "ghp_MCPleakTOKEN0123456789abcdefXY"  # in the workspace and in GITHUB_TOKEN
LEAKY = Path(__file__).parent / "mcp_fixtures" / "leaky_server.py"
PIECE = 10


def leaks(data: bytes | str, secrets: Iterable[str]) -> set[str]:
    """The secrets `data` gives away: in any form `recoverable_secrets` reads back, read
    as UTF-8 and byte for byte, or as a piece of `PIECE` characters of the value."""
    secrets = tuple(secrets)
    raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
    found: set[str] = set()
    for text in (raw.decode("utf-8", "replace"), raw.decode("latin-1")):
        found |= recoverable_secrets(text, secrets)
        for secret in secrets:
            pieces = (secret[i : i + PIECE] for i in range(len(secret) - PIECE + 1))
            if any(piece in text for piece in pieces):
                found.add(secret)
    return found


def server_table(name: str, mode: str, extra: str = "") -> str:
    return (
        f"[mcp_servers.{name}]\n"
        f'command = "{sys.executable}"\n'
        f'args = ["{LEAKY}", "{mode}"]\n'
        "startup_timeout = 40\n"
        f"{extra}"
    )


def call(tool_id: str, name: str, tool_input: dict[str, Any] | None = None) -> Reply:
    return Reply([tool_use_block(tool_id, name, tool_input or {})], stop_reason="tool_use")


def say(text: str) -> Reply:
    return Reply([text_block(text)])


class Run:
    """One in-process REPL run: what it printed, what the API received, its state."""

    def __init__(self, code: int, shown: str, bodies: list[Any], home: Path) -> None:
        self.code, self.shown, self.bodies, self.home = code, shown, bodies, home

    def assert_nothing_leaks(self, secrets: Iterable[str], *, skip: Iterable[Path] = ()) -> None:
        secrets = tuple(secrets)
        assert leaks(self.shown, secrets) == set(), self.shown[-3_000:]
        for where, body in enumerate(self.bodies):
            assert leaks(json.dumps(body), secrets) == set(), f"request {where}"
        skipped = set(skip)
        for path in sorted(self.home.rglob("*")):
            if path.is_file() and path not in skipped:
                assert leaks(path.read_bytes(), secrets) == set(), path


def run_repl(
    tmp_path: Path,
    config: str,
    lines: str,
    scripts: Iterable[Reply] = (),
    responder: Callable[[dict[str, Any]], Reply] | None = None,
    argv: Iterable[str] = ("--yes",),
    monkeypatch: pytest.MonkeyPatch | None = None,
) -> Run:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir(exist_ok=True)
    workspace.mkdir(exist_ok=True)
    (workspace / "secret.txt").write_text(TOKEN + "\n", encoding="utf-8")
    (home / "config.toml").write_text(config, encoding="utf-8")
    extra = {"responder": responder} if responder is not None else {}
    with start_fake_server(api_key=KEY, **extra) as fake:
        fake.enqueue(*scripts)
        env = {
            "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_BASE_URL": fake.base_url,
            "AGENT_CLI_HOME": str(home),
            "GITHUB_TOKEN": TOKEN,
            "PATH": "/usr/bin:/bin",
        }
        if monkeypatch is not None:  # what bash children inherit
            for name, value in env.items():
                monkeypatch.setenv(name, value)
        stdout, stderr = io.StringIO(), io.StringIO()
        code = main(
            ["--workspace", str(workspace), *argv],
            stdin=io.StringIO(lines),
            stdout=stdout,
            stderr=stderr,
            env=env,
        )
        bodies = [request.body for request in fake.requests]
    return Run(code, stdout.getvalue() + stderr.getvalue(), bodies, home)


def tool_results(body: dict[str, Any]) -> list[Any]:
    """The content of every tool_result in a request, in order."""
    return [
        block["content"]
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


def result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(block.get("text", "") for block in content if block["type"] == "text")


def result_images(content: Any) -> list[dict[str, Any]]:
    return [] if isinstance(content, str) else [b for b in content if b["type"] == "image"]


ARTIFACT = re.compile(r"artifact:[0-9a-f-]+:[0-9a-f]+\.bin:[0-9a-f]{64}")


def test_binary_content_of_an_mcp_tool_holds_no_secret_on_disk_on_the_wire_or_on_screen(
    tmp_path, monkeypatch
):
    """Images (the token in a PNG text chunk, plainly or as hex), a blob resource and
    audio that hold the token: each is stored with the token redacted; an image that holds
    a secret is withheld from the model, with a text saying why, while a clean image is
    still sent; `read_artifact` ranges that would cut the token, `/expand` and `/last`
    give no piece of it."""
    found: dict[str, str] = {}
    splits = [(4, 9), (13, 40), (0, 12), (9, 3)]  # offset, limit: cut anywhere in the token

    def responder(body: dict[str, Any]) -> Reply:
        text = json.dumps(body["messages"][-1])
        if "pointer" not in found and (match := ARTIFACT.search(text)):
            found["pointer"] = match.group(0)
        step = found.setdefault("step", "0")
        found["step"] = str(int(step) + 1)
        if int(step) < len(splits) and "pointer" in found:
            offset, limit = splits[int(step)]
            arguments = {"pointer": found["pointer"], "offset": offset, "limit": limit}
            return call(f"toolu_r{step}", "read_artifact", arguments)
        return say("all read")

    scripts = [
        call("toolu_1", "mcp__leaky__image"),
        call("toolu_2", "mcp__leaky__image_hex"),
        call("toolu_3", "mcp__leaky__plain_image"),
        call("toolu_4", "mcp__leaky__audio"),
        call("toolu_5", "mcp__leaky__blob"),
    ]
    run = run_repl(
        tmp_path,
        server_table("leaky", "binary"),
        "show me the pictures and files\n/last\n",
        scripts,
        responder,
        monkeypatch=monkeypatch,
    )
    assert run.code == 0, run.shown[-2_000:]
    assert "all read" in run.shown
    last = run.bodies[-1]
    results = tool_results(last)
    assert len(results) == 5 + len(splits)
    image, image_hex, plain, audio_result, blob_result = results[:5]
    for withheld in (image, image_hex):
        assert result_images(withheld) == []
        assert "withheld" in result_text(withheld), result_text(withheld)
    assert [i["source"]["media_type"] for i in result_images(plain)] == ["image/png"]
    assert "withheld" not in result_text(plain)
    for stored in (audio_result, blob_result, image):
        assert "redacted" in result_text(stored), result_text(stored)
    assert "pointer" in found
    artifacts = sorted(run.home.glob("*/tool-results/*"))
    assert len(artifacts) >= 5  # every binary item was stored (redacted)
    run.assert_nothing_leaks([TOKEN, KEY])

    # The user reads the stored blob back, in a session resumed from the same state.
    session = next(run.home.glob("transcripts/*.jsonl")).stem
    pointers = sorted(set(ARTIFACT.findall(next(run.home.glob("transcripts/*.jsonl")).read_text())))
    assert found["pointer"] in pointers
    lines = "".join(f"/expand {pointer}\n" for pointer in pointers)
    again = run_repl(tmp_path, server_table("leaky", "binary"), lines, argv=("--resume", session))
    assert again.code == 0 and "available" in again.shown, again.shown[-2_000:]
    again.assert_nothing_leaks([TOKEN, KEY])


RAW = b"\x00\x01 saved before the fix: cfg=" + TOKEN.encode() + b"\n" + b"tail " * 40


def test_an_artifact_that_already_holds_a_secret_gives_no_piece_of_it_back(tmp_path, monkeypatch):
    """An artifact written before this fix, or before the secret was known, holds the
    token whole. The model reads it by byte ranges of its choosing, cutting the token
    anywhere; the user expands it (`/expand`) and reads it whole (`/last`'s path): none
    of them gives the token or a piece of it."""
    from session_support import ScriptedProvider, make_session

    from agent_cli.store.artifacts import ArtifactStore

    first = run_repl(tmp_path, "", "hello\n", [say("hi")], argv=())
    assert first.code == 0
    session = next(first.home.glob("transcripts/*.jsonl")).stem
    stored = ArtifactStore(first.home).put(session, RAW, suffix=".bin")
    pointer = str(stored.pointer)
    at = RAW.index(TOKEN.encode())
    ranges = [(offset, limit) for offset in range(at - 3, at + len(TOKEN), 4) for limit in (5, 13)]
    ranges += [(at + 5, 1), (0, at + 7), (at + len(TOKEN) - 2, 50)]
    scripts = [
        call(f"toolu_{n}", "read_artifact", {"pointer": pointer, "offset": o, "limit": limit})
        for n, (o, limit) in enumerate(ranges)
    ]
    again = run_repl(
        tmp_path,
        "",
        f"read it\n/expand {pointer}\n",
        [*scripts, say("read")],
        argv=("--yes", "--resume", session),
    )
    assert again.code == 0 and "read" in again.shown
    pages = [result_text(r) for r in tool_results(again.bodies[-1])][-len(ranges) :]
    assert all("Artifact" in page for page in pages), pages[:2]
    again.assert_nothing_leaks([TOKEN, KEY], skip=[stored.path])
    assert any("[REDACTED]" in page for page in pages)
    assert "saved before the fix" in again.shown  # /expand showed the artifact

    monkeypatch.setenv("AGENT_CLI_HOME", str(first.home))
    provider = ScriptedProvider()
    opened = make_session(
        tmp_path / "ws",
        provider,
        resume=session,
        environment={"GITHUB_TOKEN": TOKEN, "PATH": "/usr/bin:/bin"},
    )
    try:
        whole = opened.read_tool_output(pointer)
        expanded = opened.expand(pointer).excerpt or ""
    finally:
        opened.close()
    assert "saved before the fix" in whole and "[REDACTED]" in whole
    assert leaks(whole, [TOKEN]) == set() and leaks(expanded, [TOKEN]) == set()


def test_what_mcp_servers_say_about_themselves_is_redacted_on_screen_and_in_every_request(
    tmp_path,
):
    """A server's tool description and input schema (a property's description, an enum
    value, a default) ride in every request's `tools`; a tool may even be named after the
    token; a server that exits at start-up leaves its stderr in the start-up warning and
    in `/mcp` (the 200-character cut of its last lines falling inside the token), and one
    that refuses the handshake its error message. Each is redacted before anything shows
    it or sends it: the tools are still offered, the one named after the token is not."""
    config = (
        server_table("described", "described")
        + server_table("dies", "die")
        + server_table("refuses", "refuse")
    )
    run = run_repl(tmp_path, config, "hi\n/mcp\n/stats --json\n", [say("hello")], argv=())
    assert run.code == 0, run.shown[-2_000:]
    tools = {tool["name"]: tool for tool in run.bodies[0]["tools"]}
    assert "mcp__described__ping" in tools
    deploy = tools["mcp__described__deploy"]
    assert "[REDACTED]" in deploy["description"]
    assert json.dumps(deploy["input_schema"]).count("[REDACTED]") == 3
    assert not [name for name in tools if TOKEN[:PIECE] in name]
    assert "not offered: '[REDACTED]'" in run.shown  # `/mcp` names the skipped tool
    assert "MCP server dies is not available" in run.shown
    assert "MCP server refuses is not available" in run.shown
    assert "fatal: the token [REDACTED] was refused" in run.shown
    assert "login with [REDACTED] failed" in run.shown
    run.assert_nothing_leaks([TOKEN, KEY])


CONFIG_TOKEN = "cfgTOKEN-FAKE-0123456789abcdef"
DB_PASSWORD = "DBpassw0rd-FAKE-77"
BEARER = "bearerTOKEN-FAKE-0123456789"
API_KEY_HEADER = "xapiKEY-FAKE-987654321"
QUERY_KEY = "queryKEY-FAKE-0123456"
CONFIGURED = (CONFIG_TOKEN, DB_PASSWORD, BEARER, API_KEY_HEADER, QUERY_KEY)


def test_credentials_written_in_config_toml_for_mcp_servers_are_redacted_like_the_environments(
    tmp_path, monkeypatch
):
    """The README tells users to write a server's token in config.toml (`env`,
    `headers`). Those values are secrets like the environment's: a tool that echoes
    them, a command that prints config.toml, give `[REDACTED]`; so does the token of
    `Bearer ...`, a password in a URL and a key in its query. Values that carry no
    credential (`LOG_LEVEL`, `Accept`) are left alone."""
    config = (
        server_table(
            "svc",
            "binary",
            f'env = {{ SERVICE_TOKEN = "{CONFIG_TOKEN}", '
            f'DB_URL = "postgres://app:{DB_PASSWORD}@db.local/app", LOG_LEVEL = "debugging" }}\n',
        )
        + "[mcp_servers.docs]\n"
        + f'url = "http://127.0.0.1:9/mcp?api_key={QUERY_KEY}"\n'
        + f'headers = {{ Authorization = "Bearer {BEARER}", X-Api-Key = "{API_KEY_HEADER}", '
        + 'Accept = "application/json" }\n'
        + "startup_timeout = 5\n"
    )
    scripts = [
        call("toolu_1", "mcp__svc__env_value", {"name": "SERVICE_TOKEN"}),
        call("toolu_2", "mcp__svc__env_value", {"name": "DB_URL"}),
        call("toolu_3", "mcp__svc__env_value", {"name": "LOG_LEVEL"}),
        call("toolu_4", "bash", {"command": 'cat "$AGENT_CLI_HOME/config.toml"'}),
        say("seen"),
    ]
    run = run_repl(tmp_path, config, "who am i\n/mcp\n", scripts, monkeypatch=monkeypatch)
    assert run.code == 0 and "seen" in run.shown, run.shown[-2_000:]
    token, url, level, shown_config = (result_text(r) for r in tool_results(run.bodies[-1]))
    assert "SERVICE_TOKEN=[REDACTED]" in token
    assert "DB_URL=postgres://app:[REDACTED]@db.local/app" in url
    assert "LOG_LEVEL=debugging" in level and "REDACTED" not in level
    header, _, body = shown_config.partition("\n")
    assert "5 secret values" in header and body.count("[REDACTED]") == 5
    assert 'Accept = "application/json"' in body
    run.assert_nothing_leaks([*CONFIGURED, TOKEN, KEY], skip=[run.home / "config.toml"])


PG_PASSWORD = "pgpw-FAKE-0123456789"
ACCESS_TOKEN = "sbp_FAKE0123456789abcdef0123456789abcdef"
STRIPE_KEY = "sk_live_FAKE0123456789abcdef"
NOTION_TOKEN = "ntn_FAKE0123456789abcdef01234567"
DOCKER_TOKEN = "ghp_FAKEdocker0123456789abcdefABCD"
IN_ARGS = (PG_PASSWORD, ACCESS_TOKEN, STRIPE_KEY, NOTION_TOKEN, DOCKER_TOKEN)


def test_credentials_given_to_an_mcp_server_in_args_or_a_json_env_value_are_redacted(
    tmp_path, monkeypatch
):
    """Seventh attack, S6: the official servers take their credentials where only
    credential-named `env` values were looked at: a postgres URL in `args`
    (server-postgres), `--access-token X` (Supabase), `--api-key=X` (Stripe), `-e
    NAME=X` (a server run by docker) and a JSON headers object in `env` (Notion's
    `OPENAPI_MCP_HEADERS`). A server that names its command line or its environment
    (a failed connection does) gives `[REDACTED]` for each; the arguments and header
    values that carry no credential stay as they are."""
    headers = json.dumps(
        {"Authorization": f"Bearer {NOTION_TOKEN}", "Notion-Version": "2022-06-28"}
    )
    args = [
        str(LEAKY),
        "binary",
        f"postgresql://app:{PG_PASSWORD}@db.internal/prod",
        "--access-token",
        ACCESS_TOKEN,
        f"--api-key={STRIPE_KEY}",
        "-e",
        f"GITHUB_TOKEN={DOCKER_TOKEN}",
        "--project-ref=abcdefghijklmnop",
        "--read-only",
    ]
    config = (
        "[mcp_servers.db]\n"
        f'command = "{sys.executable}"\n'
        f"args = {json.dumps(args)}\n"
        "startup_timeout = 40\n"
        f"env = {{ OPENAPI_MCP_HEADERS = {json.dumps(headers)} }}\n"
    )
    scripts = [
        call("toolu_1", "mcp__db__arguments"),
        call("toolu_2", "mcp__db__env_value", {"name": "OPENAPI_MCP_HEADERS"}),
        say("seen"),
    ]
    run = run_repl(tmp_path, config, "what went wrong\n", scripts, monkeypatch=monkeypatch)
    assert run.code == 0 and "seen" in run.shown, run.shown[-2_000:]
    arguments, environment = (result_text(r) for r in tool_results(run.bodies[-1]))
    assert (
        "could not connect with postgresql://app:[REDACTED]@db.internal/prod "
        "--access-token [REDACTED] --api-key=[REDACTED] -e GITHUB_TOKEN=[REDACTED] "
        "--project-ref=abcdefghijklmnop --read-only"
    ) in arguments
    assert '{"Authorization": "[REDACTED]", "Notion-Version": "2022-06-28"}' in environment
    run.assert_nothing_leaks([*IN_ARGS, TOKEN, KEY], skip=[run.home / "config.toml"])


GO_TOKEN = "Zq8xW3vR7tY2pL9mK4nB6cD1goflag"
GO_APIKEY = "Yp7wV2uQ6sX1oK8jL3mA5bC0apikey"
DOCKER_EQUALS = "ghp_FAKEdockerEquals0123456789abcd"


def test_credentials_after_a_single_dash_flag_or_in_a_flags_name_value_pair_are_redacted(
    tmp_path, monkeypatch
):
    """Twenty-fifth outside attack: Go's flag package takes `-token X` and `-apikey X`
    (one dash, the value next), docker `--env=GITHUB_TOKEN=X` (the pair after the flag's
    `=`); a server echoing its arguments sent those values. Ordinary one-dash flags and
    a plain pair after `--env=` stay as they are."""
    args = [
        str(LEAKY),
        "binary",
        "-token",
        GO_TOKEN,
        "-apikey",
        GO_APIKEY,
        f"--env=GITHUB_TOKEN={DOCKER_EQUALS}",
        "-port",
        "8080",
        "--env=LOG_LEVEL=debug",
        "-config",
        "settings-production.toml",
    ]
    config = (
        "[mcp_servers.go]\n"
        f'command = "{sys.executable}"\n'
        f"args = {json.dumps(args)}\n"
        "startup_timeout = 40\n"
    )
    scripts = [call("toolu_1", "mcp__go__arguments"), say("seen")]
    run = run_repl(tmp_path, config, "what went wrong\n", scripts, monkeypatch=monkeypatch)
    assert run.code == 0 and "seen" in run.shown, run.shown[-2_000:]
    (arguments,) = (result_text(r) for r in tool_results(run.bodies[-1]))
    assert (
        "could not connect with -token [REDACTED] -apikey [REDACTED] "
        "--env=GITHUB_TOKEN=[REDACTED] -port 8080 --env=LOG_LEVEL=debug "
        "-config settings-production.toml"
    ) in arguments
    run.assert_nothing_leaks(
        [GO_TOKEN, GO_APIKEY, DOCKER_EQUALS, TOKEN, KEY], skip=[run.home / "config.toml"]
    )


GHP_BARE = "ghp_FAKEbare0123456789abcdefABCDEFghij"
SK_BARE = "sk-live-FAKEbareStripe4eC39HqLyjWDarjtT1"
XOXB_BARE = "xoxb-FAKE-1234567890-AbCdEfGhIjKlMnOpQrSt"
AN_ID = "123e4567-e89b-12d3-a456-426614174000"
ORDINARY = f"serve @scope/pkg@1.2.3 /srv/data https://example.com/api 8080 {AN_ID} claude-3-5-sonnet-20241022"


AWS_ID_BARE = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET_BARE = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
UNPREFIXED_BARE = "Xk9mP2qR7sT4vW8yZ1aB3cD5eF6gH0jK"
COMMIT = "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"
PLAIN = (
    f"stdio /home/u/projects/my-app --port=8080 {COMMIT} src/components/Header2/HeaderNavigation"
)


@pytest.mark.parametrize(
    ("echoed", "died", "keys"),
    [
        (
            ["-y", "some-mcp", GHP_BARE, "--", SK_BARE, *ORDINARY.split()],
            ["--port", "8080", XOXB_BARE],
            [GHP_BARE, SK_BARE, XOXB_BARE],
        ),
        (  # left by sessions 31 and 32: keys with no service's prefix (session 33)
            ["-y", "mcp-server-aws", AWS_ID_BARE, AWS_SECRET_BARE, *PLAIN.split()],
            ["--stdio", UNPREFIXED_BARE],
            [AWS_ID_BARE, AWS_SECRET_BARE, UNPREFIXED_BARE],
        ),
    ],
)
def test_a_key_given_bare_in_args_is_hidden_in_mcp_the_start_notice_and_tool_results(
    tmp_path, monkeypatch, echoed, died, keys
):
    """T3, session 30: `["-y", "some-mcp", "ghp_..."]` or `["--", "sk-live-...", "serve"]`
    (a key given positionally, no flag naming it) was shown wherever the server's command
    line came back: a failed server's start-up warning and /mcp (its stderr), a tool's
    result. Such a word is now that server's secret; the ordinary arguments beside it (a
    package, a path, a URL, a port, a UUID, a model's name) stay as they are. Session 33:
    so is a key without a service's prefix (`["-y", "mcp-server-aws", "AKIA...",
    "<secret access key>"]`, a base62 key), by a generated key's shape
    (`token_shape.has_generated_key_shape`); a path, a flag, a commit SHA stay shown."""
    echoes = [str(LEAKY), "binary", *echoed]
    dies = [str(LEAKY), "die_with_args", *died]
    config = "".join(
        f"[mcp_servers.{name}]\n"
        f'command = "{sys.executable}"\n'
        f"args = {json.dumps(args)}\n"
        "startup_timeout = 40\n\n"
        for name, args in (("echoes", echoes), ("dies", dies))
    )
    scripts = [call("toolu_1", "mcp__echoes__arguments"), say("seen")]
    run = run_repl(tmp_path, config, "what went wrong\n/mcp\n", scripts, monkeypatch=monkeypatch)
    assert run.code == 0 and "seen" in run.shown, run.shown[-2_000:]
    (arguments,) = (result_text(r) for r in tool_results(run.bodies[-1]))
    hidden = [REDACTED_MARK if word in keys else word for word in echoed]
    assert f"could not connect with {' '.join(hidden)}" in arguments
    shown = " ".join(run.shown.split())
    notice, mcp = shown.split("> /mcp", 1) if "> /mcp" in shown else (shown, "")
    words = " ".join(REDACTED_MARK if word in keys else word for word in died)
    for where in (notice, mcp):
        assert f"cannot start with {words}: the token was refused" in where, shown
    run.assert_nothing_leaks([*keys, TOKEN, KEY], skip=[run.home / "config.toml"])
