"""The twenty-sixth outside attack as a user meets it: a private key known as a secret is
printed by `openssl` as its numbers; and the twenty-seventh: printed as JWT tooling and
scripts print them, base64url in a JWK, `base64` of a raw key, Python's bytes.

The installed agent-cli runs with `-p ... --yes`, the real SDK and the fake Messages API.
The workspace's `.env` holds an RSA key (`GITHUB_APP_PEM`, quoted over several lines, as
the tester had it) and agent-cli's environment an EC key (`TLS_PRIVATE_KEY`); both keys
are also files in the workspace. The model has `openssl pkey -text`, `openssl rsa -text`,
`openssl ec -text` and `openssl asn1parse` print them: no private number (a prime, the
private exponent, the EC scalar) reaches a request, a file under AGENT_CLI_HOME or the
terminal, in hex or decimal, while the public ones (the modulus, the EC point) are shown.
Keys are made here by the installed `openssl`; without it the test skips, saying so.
The JWK is Node's (`createPrivateKey(pem).export({format: 'jwk'})`), run where `node` is
installed.
"""

from __future__ import annotations

import base64
import json
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from e2e_support import build_env, run_piped, run_scripted
from fake_anthropic import Reply, start_fake_server, text_block, tool_result_texts, tool_use_block
from hostile_support import openssl_listing_sections

KEY = "sk-ant-FAKE-a26-pem-numbers-0123456789abcdef"
OPENSSL = shutil.which("openssl")
NODE = shutil.which("node")
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
    assert places_holding(bodies, home, done, lambda text: _holds_any(text, secrets)) == []


def places_holding(
    bodies: list[Any], home: Path, done: Any, holds: Callable[[str], bool]
) -> list[str]:
    """Where a number `holds` finds stands: a request body, a file under the state home,
    or the terminal (what agent-cli printed)."""
    places = [f"request {n}" for n, body in enumerate(bodies) if holds(json.dumps(body))]
    places += [
        str(p)
        for p in sorted(home.rglob("*"))
        if p.is_file() and holds(p.read_text("utf-8", "replace"))
    ]
    if holds(done.stdout + done.stderr):
        places.append("the terminal")
    return places


def _holds_any(text: str, numbers: list[str]) -> bool:
    flattened = flat(text)
    return any(number in flattened for number in numbers)


def base64_of_private_numbers(listing: str) -> list[str]:
    """Each private number of a listing, of its fewest octets, in base64 (padded and not)
    and base64url, as a JWK, `base64` of a raw key and a script print it."""
    forms = []
    for label, digits in openssl_listing_sections(listing).items():
        if PRIVATE_LABELS.fullmatch(label):
            octets = bytes.fromhex(digits).lstrip(b"\x00")
            standard = base64.b64encode(octets).decode()
            forms += [standard, standard.rstrip("="), base64.urlsafe_b64encode(octets).decode()]
    return forms + [form.rstrip("=") for form in forms]


@pytest.mark.e2e
@pytest.mark.skipif(OPENSSL is None, reason="no openssl binary installed")
def test_a_known_keys_numbers_in_base64_a_jwk_and_python_bytes_reach_no_request(
    tmp_path: Path,
) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    workspace.mkdir()
    rsa, ed = workspace / "k.pem", workspace / "ed.pem"
    openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", str(rsa))
    openssl("genpkey", "-algorithm", "ED25519", "-out", str(ed))
    (workspace / ".env").write_text(
        f'GITHUB_APP_PEM="{rsa.read_text().strip()}"\nED_PRIVATE_KEY="{ed.read_text().strip()}"\n'
    )
    commands = _commands()
    listings = [openssl("pkey", "-in", str(key), "-text", "-noout") for key in (rsa, ed)]
    secrets = [form for listing in listings for form in base64_of_private_numbers(listing)]
    as_printed = [_run(command, workspace) for command in commands]
    assert all(_holds_exactly(printed, secrets) for printed in as_printed)  # the check can fail
    replies = [
        Reply([tool_use_block(f"toolu_{n}", "bash", {"command": command})], stop_reason="tool_use")
        for n, command in enumerate(commands)
    ]
    done, bodies = run_scripted(
        home, workspace, KEY, [*replies, Reply([text_block("Printed the keys.")])]
    )
    assert done.returncode == 0, done.stderr
    results = tool_result_texts(bodies[-1])
    assert len(results) == len(commands)
    assert all("redacted from this output" in result for result in results), results
    seed = bytes.fromhex(openssl_listing_sections(listings[1])["priv"])
    assert repr(seed)[2:-1] in as_printed[1] and repr(seed)[2:-1] not in results[1]
    if NODE is not None:  # the public members are shown as Node printed them
        assert json.loads(as_printed[-1].splitlines()[0])["n"] in results[-1]
    assert places_holding(bodies, home, done, lambda text: _holds_exactly(text, secrets)) == []


def _commands() -> list[str]:
    """The Ed25519 key's raw seed in `base64`, as Python prints its bytes and their
    base64url, and, where `node` is installed, both keys as JWKs."""
    raw_seed = "openssl pkey -in ed.pem -outform DER | tail -c 32"
    script = (
        "import base64, sys; seed = sys.stdin.buffer.read(); "
        "print(seed); print(base64.urlsafe_b64encode(seed))"
    )
    commands = [
        f"{raw_seed} | base64",
        f"{raw_seed} | {shlex.quote(sys.executable)} -c {shlex.quote(script)}",
    ]
    if NODE is not None:
        jwk = (
            "const c = require('crypto'), fs = require('fs'); for (const f of ['k.pem', "
            "'ed.pem']) console.log(JSON.stringify(c.createPrivateKey(fs.readFileSync(f))"
            ".export({format: 'jwk'})))"
        )
        commands.append(f"node -e {shlex.quote(jwk)}")
    return commands


def _run(command: str, workspace: Path) -> str:
    """What `command` prints run by bash in `workspace`, as agent-cli's tool runs it."""
    return subprocess.run(
        ["bash", "-c", command],
        cwd=workspace,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout


def _holds_exactly(text: str, forms: list[str]) -> bool:
    """Whether `text` holds one of `forms` as it is (base64 is case-sensitive)."""
    return any(form in text for form in forms)
