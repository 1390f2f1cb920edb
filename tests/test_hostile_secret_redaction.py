"""Secrets the agent holds never reach the transcript or the API through a tool result.

The attack: a model steered by hostile content asks `bash` (with `--yes`) to read the
agent's own environment from `/proc/$PPID/environ`, where the API key sits even though
the command's environment was cleaned, and prints it plainly, in base64 or in hex. The
installed `agent-cli` runs as a real process (so its `/proc/<pid>/environ` really holds
the key) against the fake Messages API with the real SDK. Afterwards no request body and
no byte under AGENT_CLI_HOME may hold a secret in any of those forms, and the results
must say that something was redacted.

The smaller tests drive a `Toolbox` with real files and real commands: every tool, error
messages and spilled artifacts included.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest
from cuts_support import strings_in
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from hostile_support import fuzz_settings
from hostile_support import recoverable_secrets as read_back_secrets
from hypothesis import given
from hypothesis import strategies as st
from tools_support import FakeArtifactStore

from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools import Toolbox
from agent_cli.tools.redaction import SecretRedactor, StreamRedactor, collect_secret_values

KEY = "sk-ant-FAKE-redaction-0123456789abcdef"
GITHUB_TOKEN = "ghp_FAKEtoken0123456789ABCDEFabcdef"
MARKED = "hunter2-marked-secret-value"
SECRETS = (KEY, GITHUB_TOKEN, MARKED)


def recoverable_secrets(text: str, secrets: tuple[str, ...] = SECRETS) -> set[str]:
    """The secrets that can be read back from `text` (`hostile_support.recoverable_secrets`)."""
    return read_back_secrets(text, secrets)


def bash(tool_id: str, command: str) -> Reply:
    return Reply([tool_use_block(tool_id, "bash", {"command": command})], stop_reason="tool_use")


HEX_DUMP = f"{sys.executable} -c \"import sys; print(open(sys.argv[1], 'rb').read().hex())\""
ATTACKS = (
    "tr '\\0' '\\n' </proc/$PPID/environ | grep -E 'ANTHROPIC|GITHUB|MY_DB'",
    "base64 </proc/$PPID/environ",
    "base64 -w0 </proc/$PPID/environ | cut -c3-",
    "base32 </proc/$PPID/environ",
    "basenc --base32hex -w0 </proc/$PPID/environ | cut -c5-",
    "xxd -p </proc/$PPID/environ",
    f"{HEX_DUMP} /proc/$PPID/environ",
    "tr '\\0' '\\n' </proc/$PPID/environ; seq 1 4000",  # big: spilled to an artifact
)


@pytest.mark.e2e
def test_a_command_reading_the_agents_environment_gets_every_secret_redacted(tmp_path):
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".env").write_text(f"ANTHROPIC_API_KEY={KEY}\nDB={MARKED}\n")
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(*(bash(f"toolu_{n}", command) for n, command in enumerate(ATTACKS)))
        fake.enqueue(
            Reply([tool_use_block("toolu_r", "read_file", {"path": ".env"})], "tool_use"),
            Reply([tool_use_block("toolu_g", "grep", {"pattern": "sk-ant"})], "tool_use"),
            Reply([text_block("Done looking.")]),
        )
        env = build_env(
            home,
            {
                "ANTHROPIC_API_KEY": KEY,
                "ANTHROPIC_BASE_URL": fake.base_url,
                "GITHUB_TOKEN": GITHUB_TOKEN,
                "MY_DB_PASSWORD_FILE_CONTENT": MARKED,
                "AGENT_CLI_SECRET_NAMES": "MY_DB_PASSWORD_FILE_CONTENT",
            },
        )
        done = run_piped(["--yes"], cwd=workspace, env=env, stdin_text="look around\n")
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    assert "Done looking." in done.stdout
    results = tool_results(fake.requests[-1].body)
    assert len(results) == len(ATTACKS) + 2
    *read_attacks, grep_result = results
    for text in read_attacks:  # every attack found something, and says it was redacted
        assert REDACTED_MARK in text and "redacted from this output" in text, text[:300]
    # grep shows no line that holds a secret: not even redacted (grep_secrets says why)
    assert grep_result.startswith("No matches under ."), grep_result
    for where, body in enumerate(bodies):
        assert recoverable_secrets(json.dumps(body)) == set(), f"request {where}"
        assert recoverable_secrets(strings_in(body)) == set(), f"request {where}"
    written = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    assert any("tool-results" in str(path) for path in written)  # the big one was spilled
    for path, data in written.items():
        text = data.decode("utf-8", "replace")
        assert recoverable_secrets(text) == set(), path
        assert recoverable_secrets(strings_in_json_lines(text)) == set(), path
    assert recoverable_secrets(done.stdout + done.stderr) == set()


def tool_results(body: dict) -> list[str]:
    """The text of every tool_result block in a request body."""
    texts = []
    for message in body["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result":
                content = block["content"]
                texts.append(content if isinstance(content, str) else content[0]["text"])
    return texts


def strings_in_json_lines(text: str) -> str:
    """The strings of every JSON line of a file (transcripts are JSONL)."""
    pieces = []
    for line in text.splitlines():
        try:
            pieces.append(strings_in(json.loads(line)))
        except ValueError:
            pieces.append(line)
    return "\n".join(pieces)


@pytest.fixture
def toolbox(tmp_path: Path) -> tuple[Toolbox, FakeArtifactStore, Path]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "leak.txt").write_text(f"first\nkey is {KEY} here\nlast\n")
    artifacts = FakeArtifactStore()
    environment = {"ANTHROPIC_API_KEY": KEY, "PATH": "/usr/bin:/bin"}
    box = Toolbox(
        workspace,
        artifacts,
        "s1",
        auto_approve=True,
        artifact_threshold_bytes=2048,
        secret_environment=environment,
    )
    return box, artifacts, workspace


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("read_file", {"path": "leak.txt"}),
        ("bash", {"command": "cat leak.txt"}),
        ("bash", {"command": "base64 leak.txt"}),
        ("bash", {"command": "printf 'xy%s' \"$(cat leak.txt)\" | base64 -w 0"}),
        ("bash", {"command": "base32 leak.txt"}),
        ("bash", {"command": "printf 'xyz%s' \"$(cat leak.txt)\" | base32 -w 0 | tr -d ="}),
        ("bash", {"command": "printf 'x%s' \"$(cat leak.txt)\" | basenc --base32hex -w 0"}),
        ("bash", {"command": "xxd -p leak.txt"}),
        ("bash", {"command": "xxd -p leak.txt | tr a-f A-F"}),
        ("bash", {"command": "cat leak.txt; exit 3"}),
        ("bash", {"command": "cat leak.txt; sleep 5", "timeout_seconds": 1}),
    ],
)
def test_every_tool_result_that_holds_the_key_is_redacted_and_says_so(toolbox, tool, tool_input):
    box, _, _ = toolbox
    outcome = box.run(tool, tool_input)
    assert recoverable_secrets(outcome.content) == set(), outcome.content
    assert REDACTED_MARK in outcome.content and "redacted from this output" in outcome.content
    assert "secrets redacted" in outcome.summary


def test_a_spilled_output_is_redacted_in_the_artifact_and_in_the_preview(toolbox):
    box, artifacts, _ = toolbox
    outcome = box.run("bash", {"command": "for i in $(seq 1 300); do cat leak.txt; done"})
    assert outcome.artifact_pointer is not None
    stored = artifacts.saved[outcome.artifact_pointer].decode()
    assert stored.count(f"key is {REDACTED_MARK} here") == 300
    assert recoverable_secrets(stored) == set()
    assert "redacted from this output" in outcome.content.splitlines()[0]
    read_back = box.run("read_artifact", {"pointer": outcome.artifact_pointer})
    assert recoverable_secrets(read_back.content) == set() and REDACTED_MARK in read_back.content


def test_an_unknown_tool_named_as_the_key_is_answered_as_any_unknown_name(toolbox):
    """The error does not repeat the name: repeated and redacted, it told the model its
    guess was the key (a seventh outside attack; `tools.echo`)."""
    box, _, _ = toolbox
    outcome = box.run(KEY, {})
    other = box.run("sk-ant-api03-" + "x" * (len(KEY) - 13), {})
    assert outcome.is_error and KEY not in outcome.content
    assert outcome.content == other.content and REDACTED_MARK not in outcome.content


def test_a_result_without_secrets_is_left_exactly_as_it_was(toolbox):
    box, _, workspace = toolbox
    (workspace / "plain.txt").write_text("nothing to hide\n")
    outcome = box.run("read_file", {"path": "plain.txt"})
    assert outcome.content == "File: plain.txt (lines 1-1 of 1)\n     1\tnothing to hide"


def test_secrets_are_the_api_key_credential_looking_names_and_the_names_the_user_lists():
    environment = {
        "ANTHROPIC_API_KEY": KEY,
        "ANTHROPIC_AUTH_TOKEN": "auth-token-value-123",
        "GITHUB_TOKEN": GITHUB_TOKEN,
        "DB_PASSWORD": "pw-long-enough",
        "MY_VALUE": MARKED,
        "OTHER_VALUE": "not-a-secret-at-all",
        "TOKENIZERS_PARALLELISM": "false-but-long",
        "SHORT_TOKEN": "abc",
        "AGENT_CLI_SECRET_NAMES": "MY_VALUE, NOT_SET",
    }
    found = set(collect_secret_values(environment))
    assert found == {KEY, "auth-token-value-123", GITHUB_TOKEN, "pw-long-enough", MARKED}


ENCODINGS = {
    "plain": lambda data: data.decode("utf-8"),
    "base64": lambda data: base64.b64encode(data).decode(),
    "urlsafe base64": lambda data: base64.urlsafe_b64encode(data).decode(),
    "base32": lambda data: base64.b32encode(data).decode(),
    "base32hex": lambda data: base64.b32hexencode(data).decode().rstrip("="),
    "hex": lambda data: data.hex(),
    "HEX": lambda data: data.hex().upper(),
}


def overlaps_the_mark(secret: str) -> bool:
    """Whether `secret` could be read in `REDACTED_MARK` beside other text: it lies
    inside the mark, or begins with an end of it, or ends with a start of it (Hypothesis
    drew `[REDACTE`, which the mark itself then "held")."""
    ends = range(1, len(REDACTED_MARK) + 1)
    return (
        secret in REDACTED_MARK
        or any(secret.startswith(REDACTED_MARK[-size:]) for size in ends)
        or any(secret.endswith(REDACTED_MARK[:size]) for size in ends)
    )


@pytest.mark.fuzz
@fuzz_settings(0.2)
@given(
    secret=st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=8, max_size=60)
    .filter(lambda text: text.strip() == text and "\n" not in text and "\r" not in text)
    .filter(lambda text: not overlaps_the_mark(text)),
    before=st.binary(max_size=40),
    after=st.binary(max_size=40),
    encoding=st.sampled_from(sorted(ENCODINGS)),
    wrap=st.one_of(st.none(), st.integers(4, 80)),
)
def test_a_secret_is_redacted_wherever_it_sits_in_an_encoded_stream(
    secret, before, after, encoding, wrap
):
    """The secret, between random bytes, encoded whole (so at any alignment), maybe
    wrapped into lines: after redaction it cannot be decoded back from the text."""
    data = before + secret.encode() + after
    text = (
        ENCODINGS[encoding](data)
        if encoding != "plain"
        else (before.decode("latin-1") + secret + after.decode("latin-1"))
    )
    if wrap:
        text = "\n".join(text[i : i + wrap] for i in range(0, len(text), wrap))
    redacted = SecretRedactor([secret]).redact(text)
    assert recoverable_secrets(redacted.text, (secret,)) == set()
    assert redacted.count >= 1


@pytest.mark.fuzz
@fuzz_settings(0.1)
@given(
    pieces=st.lists(st.sampled_from(["ab", "\n", KEY, KEY[:9], "é", "x" * 50]), max_size=30),
    cuts=st.lists(st.integers(1, 40), min_size=1, max_size=20),
)
def test_output_redacted_piece_by_piece_is_the_whole_output_redacted(pieces, cuts):
    """A live view gets the output in chunks cut anywhere (inside the key, inside a
    UTF-8 character): what it shows is exactly the redaction of the whole."""
    data = "".join(pieces).encode()
    redactor = SecretRedactor([KEY])
    stream = StreamRedactor(redactor)
    shown, position = [], 0
    for size in cuts * (len(data) // max(1, sum(cuts)) + 1):
        shown.append(stream.feed(data[position : position + size]))
        position += size
    shown.append(stream.finish())
    assert "".join(shown) == redactor.redact(data.decode()).text
    assert KEY not in "".join(shown)


def test_the_live_view_of_a_running_command_never_shows_the_key(toolbox):
    """The REPL watches a command's output as it arrives: the key, printed a byte at a
    time, must reach it redacted too, and nothing of the output may be lost."""
    box, _, _ = toolbox
    seen: list[bytes] = []
    box.output_watcher = seen.append
    command = 'for c in $(cat leak.txt | fold -w1); do printf %s "$c"; sleep 0.002; done; echo'
    outcome = box.run("bash", {"command": command})
    live = b"".join(seen).decode()
    assert KEY not in live and KEY[:20] not in live and REDACTED_MARK in live
    assert live.replace("\n", "") == outcome.content.split("\n", 1)[1].replace("\n", "")
