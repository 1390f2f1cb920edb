"""The twenty-eighth outside finding as a user meets it: "save the public key of our GitHub
App key to public.pem". The key is known as a secret (`GITHUB_APP_PEM` in the
workspace's `.env`, quoted over several lines, and `k.pem`); the model prints its public
key (`openssl rsa -pubout`, `ssh-keygen -y`) and saves what it saw with `write_file`.
Before, the private PEM's lines that encode only the modulus stood whole in the public
key's base64 and were hidden: the model saw `[REDACTED]` and wrote it into the files,
which no tool could then read.

The installed agent-cli runs with `-p ... --yes`, the real SDK and the fake Messages API;
the key is made by the installed `openssl` (a PKCS#1 key, whose modulus lines up with the
public PEM's every time). Without openssl the test skips, saying so; without `ssh-keygen`
the OpenSSH public key is left out.
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_result_texts, tool_use_block
from test_e2e_private_key_numbers import places_holding

KEY = "sk-ant-FAKE-a28-public-forms-0123456789abcdef"
OPENSSL = shutil.which("openssl")
SSH_KEYGEN = shutil.which("ssh-keygen")
PUBLIC_PEM = re.compile(r"-----BEGIN PUBLIC KEY-----\n.*?-----END PUBLIC KEY-----\n", re.DOTALL)
SSH_PUBLIC = re.compile(r"ssh-rsa [^\s\\\"]+")


def _run(*argv: str, cwd: Path) -> str:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _saves_what_it_saw(body: dict[str, Any]) -> Reply:
    """The model: writes each public key the last tool results showed to a file, as it
    saw it; then says it is done."""
    seen = "\n".join(tool_result_texts({"messages": body["messages"][-1:]}))
    if pem := PUBLIC_PEM.search(seen):
        calls = [tool_use_block("toolu_pem", "write_file", {"path": "public.pem",
                                                             "content": pem.group()})]  # fmt: skip
        if ssh := SSH_PUBLIC.search(seen):
            calls.append(tool_use_block("toolu_ssh", "write_file", {
                "path": "authorized_keys", "content": ssh.group() + "\n"}))  # fmt: skip
        return Reply(calls, stop_reason="tool_use")
    return Reply([text_block("Saved the public key.")])


@pytest.mark.e2e
@pytest.mark.skipif(OPENSSL is None, reason="no openssl binary installed")
def test_the_public_key_of_a_known_private_key_is_shown_and_saved_whole(tmp_path: Path) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    workspace.mkdir()
    key = workspace / "k.pem"
    key.write_text(_run("openssl", "genrsa", "-traditional", "2048", cwd=workspace))
    key.chmod(0o600)
    pem = key.read_text()
    (workspace / ".env").write_text(f'GITHUB_APP_PEM="{pem.strip()}"\n')
    public = _run("openssl", "rsa", "-in", "k.pem", "-pubout", cwd=workspace)
    body_lines = [line for line in pem.splitlines() if "-----" not in line]
    assert any(line in public.replace("\n", "") for line in body_lines)  # the check can fail
    commands = ["openssl rsa -in k.pem -pubout 2>/dev/null"]
    if SSH_KEYGEN is not None:
        commands.append("ssh-keygen -y -f k.pem")
    with start_fake_server(api_key=KEY, responder=_saves_what_it_saw) as fake:
        fake.enqueue(
            Reply(
                [
                    tool_use_block(f"toolu_{n}", "bash", {"command": c})
                    for n, c in enumerate(commands)
                ],
                stop_reason="tool_use",
            )
        )
        env = build_env(home, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url})
        done = run_piped(
            ["-p", "save the public key to public.pem", "--yes"], cwd=workspace, env=env
        )
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    shown = tool_result_texts(bodies[1])
    assert len(shown) == len(commands) and not any("[REDACTED]" in text for text in shown)
    assert (workspace / "public.pem").read_text() == public
    _run("openssl", "pkey", "-pubin", "-in", "public.pem", "-noout", cwd=workspace)
    if SSH_KEYGEN is not None:
        expected = _run("ssh-keygen", "-y", "-f", "k.pem", cwd=workspace).split()[:2]
        assert (workspace / "authorized_keys").read_text().split() == expected
        _run("ssh-keygen", "-l", "-f", "authorized_keys", cwd=workspace)
    # the private key is still sent nowhere: no line of it that holds a private byte
    private = _private_lines(pem)
    assert private
    assert places_holding(bodies, home, done, lambda text: any(p in text for p in private)) == []


def _private_lines(pem: str) -> list[str]:
    """The PEM lines of a PKCS#1 RSA key that encode a byte of d, p, q, or the rest: all
    from the one that holds the private exponent's first octet on (n and e come first)."""
    lines = [line for line in pem.splitlines() if "-----" not in line]
    der = base64.b64decode("".join(lines))
    e_at = der.find(bytes.fromhex("0203010001"))  # e = 65537, as every openssl key holds it
    assert e_at > 0
    first_private = e_at + 5  # the private exponent's tag
    return [line for index, line in enumerate(lines) if (index + 1) * 48 > first_private]
