"""The twenty-sixth outside attack as a user meets it: a private key known as a secret is
printed by `openssl` as its numbers.

The installed agent-cli runs with `-p ... --yes`, the real SDK and the fake Messages API.
The workspace's `.env` holds an RSA key (`GITHUB_APP_PEM`, quoted over several lines, as
the tester had it) and agent-cli's environment an EC key (`TLS_PRIVATE_KEY`); both keys
are also files in the workspace. The model has `openssl pkey -text`, `openssl rsa -text`,
`openssl ec -text` and `openssl asn1parse` print them: no private number (a prime, the
private exponent, the EC scalar) reaches a request, a file under AGENT_CLI_HOME or the
terminal, in hex or decimal, while the public ones (the modulus, the EC point) are shown.
Keys are made here by the installed `openssl`; without it the test skips, saying so.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_result_texts, tool_use_block
from hostile_support import openssl_listing_sections

KEY = "sk-ant-FAKE-a26-pem-numbers-0123456789abcdef"
OPENSSL = shutil.which("openssl")
PRIVATE_LABELS = re.compile(r"privateExponent|prime\d|exponent\d|coefficient|priv")
COMMANDS = (
    "openssl pkey -in k.pem -text -noout",
    "openssl rsa -in k.pem -text -noout",
    "openssl asn1parse -in k.pem",
    "openssl ec -in ec.pem -text -noout",
    "openssl asn1parse -in ec.pem",
)


def openssl(*args: str) -> str:
    assert OPENSSL is not None
    return subprocess.run(
        [OPENSSL, *args], capture_output=True, text=True, check=True, timeout=60
    ).stdout


def flat(text: str) -> str:
    return re.sub(r"\\[nr]|[\s:]", "", text).lower()


def private_numbers(listing: str) -> list[str]:
    """Each private number of a listing in hex without leading zeros, and in decimal."""
    numbers = [
        v.lstrip("0")
        for k, v in openssl_listing_sections(listing).items()
        if PRIVATE_LABELS.fullmatch(k)
    ]
    return numbers + [str(int(number, 16)) for number in numbers]


@pytest.mark.e2e
@pytest.mark.skipif(OPENSSL is None, reason="no openssl binary installed")
def test_openssl_prints_no_private_number_of_a_known_key_to_the_model(tmp_path: Path) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    workspace.mkdir()
    rsa, ec = workspace / "k.pem", workspace / "ec.pem"
    openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", str(rsa))
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", str(ec))
    ec.write_text(openssl("ec", "-in", str(ec)))  # SEC1: `EC PRIVATE KEY`
    (workspace / ".env").write_text(f'GITHUB_APP_PEM="{rsa.read_text().strip()}"\n')
    rsa_listing = openssl("pkey", "-in", str(rsa), "-text", "-noout")
    ec_listing = openssl("ec", "-in", str(ec), "-text", "-noout")
    secrets = private_numbers(rsa_listing) + private_numbers(ec_listing)
    assert len(secrets) == 2 * (6 + 1)
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(
            *(
                Reply(
                    [tool_use_block(f"toolu_{n}", "bash", {"command": command})],
                    stop_reason="tool_use",
                )
                for n, command in enumerate(COMMANDS)
            ),
            Reply([text_block("Printed both keys.")]),
        )
        extra = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url}
        env = build_env(home, {**extra, "TLS_PRIVATE_KEY": ec.read_text()})
        done = run_piped(["-p", "print the keys", "--yes"], cwd=workspace, env=env)
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    results = tool_result_texts(bodies[-1])
    assert len(results) == len(COMMANDS)
    for command, result in zip(COMMANDS, results, strict=True):
        assert "redacted from this output" in result, command
    # the public numbers are shown as openssl printed them
    assert openssl_listing_sections(rsa_listing)["modulus"] in flat(results[0])
    assert openssl_listing_sections(ec_listing)["pub"] in flat(results[3])
    leaks = [
        f"request {n}" for n, body in enumerate(bodies) if _holds_any(json.dumps(body), secrets)
    ]
    leaks += [
        str(p)
        for p in sorted(home.rglob("*"))
        if p.is_file() and _holds_any(p.read_text("utf-8", "replace"), secrets)
    ]
    if _holds_any(done.stdout + done.stderr, secrets):
        leaks.append("the terminal")
    assert leaks == []


def _holds_any(text: str, numbers: list[str]) -> bool:
    flattened = flat(text)
    return any(number in flattened for number in numbers)
