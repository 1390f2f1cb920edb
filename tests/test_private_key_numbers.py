"""A private key known as a secret is hidden in what tools print of its private numbers.

The attack (found from outside, round 26): with a key in `GITHUB_APP_PEM`, `cat k.pem` was
redacted, but `openssl pkey -in k.pem -text -noout`, `openssl rsa -text` and `openssl
asn1parse` printed its primes and private exponent, which rebuild the key.

Keys are made here by the installed `openssl` (and `ssh-keygen` for OpenSSH keys); the
tests skip, saying so, where those are missing. What they print is redacted by a real
`SecretRedactor` that knows only the key's text, and checked number by number: no private
number is left (as a listing, in hex of either case, in decimal), every public one is.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hostile_support import fuzz_settings, openssl_listing_sections
from hypothesis import given
from hypothesis import strategies as st

from agent_cli.der_reader import integer_content
from agent_cli.key_number_forms import key_number_forms, openssl_text, printed_octets
from agent_cli.private_key_numbers import private_key_numbers
from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools.redaction import SecretRedactor, collect_secret_values

OPENSSL = shutil.which("openssl")
SSH_KEYGEN = shutil.which("ssh-keygen")
NODE = shutil.which("node")
needs_openssl = pytest.mark.skipif(OPENSSL is None, reason="no openssl binary installed")
needs_ssh_keygen = pytest.mark.skipif(
    OPENSSL is None or SSH_KEYGEN is None, reason="no openssl or ssh-keygen installed"
)
PRIVATE_LABELS = re.compile(r"privateExponent|prime\d|exponent\d|coefficient\d?|priv")
PUBLIC_LABELS = re.compile(r"modulus|pub|P|Q|G")
# `openssl genpkey` arguments of each key; `traditional` keys are rewritten by `openssl pkey
# -traditional` (PKCS#1, SEC1, OpenSSL's DSA form) after they are made.
KEYS = {
    "rsa-pkcs8": ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"],
    "rsa-pkcs1": ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"],
    "rsa-3-primes": [
        *("-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"),
        *("-pkeyopt", "rsa_keygen_primes:3"),
    ],
    "rsa-pss": ["-algorithm", "RSA-PSS", "-pkeyopt", "rsa_keygen_bits:1024"],
    "ec-pkcs8": ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
    "ec-sec1": ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"],
    "ed25519": ["-algorithm", "ED25519"],
    "x25519": ["-algorithm", "X25519"],
    "ed448": ["-algorithm", "ED448"],
}
TRADITIONAL = {"rsa-pkcs1", "ec-sec1", "dsa"}
# The keys Node's `createPrivateKey(pem).export({format: 'jwk'})` prints (JWT tooling's JWK:
# `jose`, `jsonwebtoken`), and a JWK's private members (RFC 7518).
JWK_KEYS = ("rsa-pkcs8", "rsa-pkcs1", "ec-pkcs8", "ec-sec1", "ed25519", "x25519", "ed448")
JWK_PRIVATE = {"d", "p", "q", "dp", "dq", "qi"}
NODE_JWK = (
    "const c = require('crypto'), fs = require('fs'); console.log(JSON.stringify("
    "c.createPrivateKey(fs.readFileSync(process.argv[1])).export({format: 'jwk'}), null, 1))"
)


def openssl(*args: str, text: str | None = None) -> str:
    assert OPENSSL is not None
    done = subprocess.run(
        [OPENSSL, *args], input=text, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout


def make_key(folder: Path, name: str) -> str:
    """The PEM of a new key of kind `name` (`KEYS`, or `dsa`), written as `<name>.pem`."""
    path = folder / f"{name}.pem"
    if name == "dsa":
        params = folder / "dsa-params.pem"
        openssl("genpkey", "-genparam", "-algorithm", "DSA", "-pkeyopt", "dsa_paramgen_bits:1024",
                "-out", str(params))  # fmt: skip
        openssl("genpkey", "-paramfile", str(params), "-out", str(path))
    else:
        openssl("genpkey", *KEYS[name], "-out", str(path))
    if name in TRADITIONAL:
        path.write_text(openssl("pkey", "-in", str(path), "-traditional"))
    return path.read_text()


def private_and_public(text: str) -> tuple[dict[str, str], dict[str, str]]:
    sections = openssl_listing_sections(text)
    private = {k: v for k, v in sections.items() if PRIVATE_LABELS.fullmatch(k)}
    public = {k: v for k, v in sections.items() if PUBLIC_LABELS.fullmatch(k)}
    return private, public


def flat(text: str) -> str:
    """`text` lower-cased without blanks, line breaks (`\\n` in JSON too) and colons."""
    return re.sub(r"\\[nr]|[\s:]", "", text).lower()


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if OPENSSL is None:
        pytest.skip("no openssl binary installed")
    folder = tmp_path_factory.mktemp("keys")
    for name in (*KEYS, "dsa"):
        make_key(folder, name)
    return {name: folder / f"{name}.pem" for name in (*KEYS, "dsa")}


@needs_openssl
@pytest.mark.parametrize("name", [*KEYS, "dsa"])
def test_openssl_text_and_asn1parse_of_a_known_key_show_no_private_number(keys, name):
    path = keys[name]
    redactor = SecretRedactor([path.read_text()])
    listing = openssl("pkey", "-in", str(path), "-text", "-noout")
    private, public = private_and_public(listing)
    assert private, listing  # the listing holds private numbers to hide
    shown = redactor.redact(listing).text
    parsed = openssl("asn1parse", "-in", str(path))
    parsed_shown = redactor.redact(parsed).text
    for label, digits in private.items():
        number = digits.lstrip("0")
        assert number not in flat(shown), label
        assert number not in flat(parsed_shown), label
        assert number in flat(listing) and number in flat(parsed)  # the check can fail
    for label, digits in public.items():  # the public numbers stay as they are
        assert digits in flat(shown), label
    assert REDACTED_MARK in shown and REDACTED_MARK in parsed_shown


@needs_openssl
def test_a_listing_is_hidden_indented_quoted_with_crlf_and_line_by_line(keys):
    path = keys["rsa-pkcs8"]
    redactor = SecretRedactor([path.read_text()])
    listing = openssl("pkey", "-in", str(path), "-text", "-noout")
    private, _ = private_and_public(listing)
    variants = {
        "quoted": "".join(f"> {line}\n" for line in listing.splitlines()),
        "crlf": listing.replace("\n", "\r\n"),
        "numbered": "".join(f"{n:6}\t{line}\n" for n, line in enumerate(listing.splitlines())),
        "a window": "\n".join(
            listing.splitlines()[14:19]
        ),  # `sed -n 15,19p`: lines of the private exponent
    }
    lines = [
        digits[at : at + 30] for digits in private.values() for at in range(0, len(digits), 30)
    ]
    for how, text in variants.items():
        shown = flat(redactor.redact(text).text)
        assert [line for line in lines if len(line) == 30 and line in shown] == [], how
        assert any(line in flat(text) for line in lines)  # the check can fail


@needs_openssl
def test_the_numbers_are_hidden_in_hex_either_case_and_in_decimal(keys):
    path = keys["rsa-pkcs1"]
    redactor = SecretRedactor([path.read_text()])
    private, _ = private_and_public(openssl("pkey", "-in", str(path), "-text", "-noout"))
    for label, digits in private.items():
        number = int(digits, 16)
        for printed in (f"{number:x}", f"{number:X}", str(number), hex(number)):
            text = f"{label} = {printed}\n"
            assert redactor.redact(text).text == f"{label} = {REDACTED_MARK}\n" or (
                printed == hex(number)
                and redactor.redact(text).text == f"{label} = 0x{REDACTED_MARK}\n"
            ), label


@pytest.mark.skipif(OPENSSL is None or NODE is None, reason="no openssl or node installed")
@pytest.mark.parametrize("name", JWK_KEYS)
def test_a_known_keys_jwk_shows_its_public_members_and_none_of_its_private_ones(keys, name):
    """Session 27's tester: Node's JWK of a known key sent `d`, `p`, `q`, `dp`, `dq`, `qi`
    in base64url (an EC `d` at its curve's width, an Ed25519 `d` its seed)."""
    assert NODE is not None
    printed = subprocess.run(
        [NODE, "-e", NODE_JWK, str(keys[name])],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout  # fmt: skip
    jwk = json.loads(printed)
    private = JWK_PRIVATE & jwk.keys()
    assert private and all(len(jwk[member]) > 20 for member in private)  # the check can fail
    shown = json.loads(SecretRedactor([keys[name].read_text()]).redact(printed).text)
    assert {member: shown[member] for member in private} == dict.fromkeys(private, REDACTED_MARK)
    public = jwk.keys() - private  # kty, crv, n, e, x, y: as Node printed them
    assert {member: shown[member] for member in public} == {m: jwk[m] for m in public}


def _printed_octets(octets: bytes) -> dict[str, tuple[str, str]]:
    """How programs print `octets`, each as (the printed text, what stands in its place
    once redacted): `base64` (padded and not), base64url (a JWK's members), Python's
    bytes (`print(n.p.to_bytes(64, "big"))`)."""
    standard, url = base64.b64encode(octets).decode(), base64.urlsafe_b64encode(octets).decode()
    shown = repr(octets)
    return {
        "base64": (standard, REDACTED_MARK),
        "base64, no padding": (standard.rstrip("="), REDACTED_MARK),
        "base64url": (url.rstrip("="), REDACTED_MARK),
        "base64url, padded": (url, REDACTED_MARK),
        "python bytes": (shown, f"{shown[:2]}{REDACTED_MARK}{shown[-1]}"),
    }


@needs_openssl
@pytest.mark.parametrize("name", [*KEYS, "dsa"])
def test_each_private_numbers_octets_are_hidden_in_base64_base64url_and_python_bytes(keys, name):
    redactor = SecretRedactor([keys[name].read_text()])
    private, public = private_and_public(openssl("pkey", "-in", str(keys[name]), "-text", "-noout"))
    assert private
    for label, digits in private.items():
        fewest = bytes.fromhex(digits).lstrip(b"\x00")  # what `to_bytes` and a JWK hold
        for how, (printed, hidden) in _printed_octets(fewest).items():
            assert redactor.redact(f"{label} = {printed}\n").text == f"{label} = {hidden}\n", (
                label,
                how,
            )
    for label, digits in public.items():  # the modulus, a public key: shown
        for printed, _ in _printed_octets(bytes.fromhex(digits).lstrip(b"\x00")).values():
            assert redactor.redact(printed).text == printed, label


def test_a_keys_octets_of_a_fixed_width_are_hidden_with_their_leading_zeros_too():
    """An EC scalar is held at its curve's width: a JWK prints it so (RFC 7518), leading
    zeros and all, while Python's `to_bytes` of the number has its fewest octets."""
    scalar = b"\x00\x00" + bytes(range(101, 131))  # 32 octets, the first two zero
    sec1 = b"\x30\x25\x02\x01\x01\x04\x20" + scalar  # version 1, the private octets
    body = base64.b64encode(sec1).decode()
    pem = f"-----BEGIN EC PRIVATE KEY-----\n{body}\n-----END EC PRIVATE KEY-----\n"
    assert private_key_numbers(pem) == (scalar,)
    forms = key_number_forms(pem)
    for octets in (scalar, scalar[2:]):
        assert base64.urlsafe_b64encode(octets).decode().rstrip("=") in forms
        assert base64.b64encode(octets).decode() in forms
    # a DER INTEGER's sign octet is no width: an RSA prime is printed without it
    prime = integer_content(0x9F << 1000 | 12345)
    assert prime[0] == 0 and printed_octets(prime) == {prime[1:]}


@needs_openssl
def test_only_private_numbers_are_learned_never_the_public_ones(keys):
    for name in ("rsa-pkcs8", "rsa-3-primes", "ec-sec1", "ed25519", "dsa"):
        listing = openssl("pkey", "-in", str(keys[name]), "-text", "-noout")
        private, public = private_and_public(listing)
        forms = flat(" ".join(key_number_forms(keys[name].read_text())))
        numbers = {
            octets.hex().lstrip("0") for octets in private_key_numbers(keys[name].read_text())
        }
        assert numbers == {digits.lstrip("0") for digits in private.values()}, name
        for label, digits in public.items():
            assert digits.lstrip("0") not in forms, (name, label)


@needs_openssl
def test_the_key_is_read_wherever_a_secret_value_holds_it(keys, tmp_path):
    pem = keys["ec-pkcs8"].read_text()
    body = "".join(pem.strip().splitlines()[1:-1])
    number = private_key_numbers(pem)
    environments = {
        "a .env line with \\n": {"APP_PRIVATE_KEY": pem.strip().replace("\n", "\\n")},
        "a JSON file's private_key": {"GOOGLE_CREDENTIALS": json.dumps({"private_key": pem})},
        "bare base64": {"SIGNING_KEY": body},
        "bare base64, URL alphabet": {
            "SIGNING_KEY": base64.urlsafe_b64encode(base64.b64decode(body)).decode().rstrip("=")
        },  # fmt: skip
        "a PEM among other text": {"TLS_BUNDLE_KEY": f"cert here\n{pem}\ntrailer"},
    }
    for how, environment in environments.items():
        values = collect_secret_values(environment)
        assert {n for value in values for n in private_key_numbers(value)} == set(number), how
        scalar = openssl("pkey", "-in", str(keys["ec-pkcs8"]), "-text", "-noout")
        assert private_and_public(scalar)[0]["priv"] not in flat(
            SecretRedactor(values).redact(scalar).text
        ), how


@needs_openssl
def test_an_encrypted_key_gives_no_numbers(keys):
    encrypted = openssl(
        "pkey", "-in", str(keys["rsa-pkcs8"]), "-aes256", "-passout", "pass:correct-horse"
    )
    legacy = openssl(
        "rsa", "-in", str(keys["rsa-pkcs1"]), "-aes256", "-traditional", "-passout", "pass:x"
    )
    assert "ENCRYPTED PRIVATE KEY" in encrypted and "Proc-Type" in legacy
    assert private_key_numbers(encrypted) == () and private_key_numbers(legacy) == ()


@needs_ssh_keygen
@pytest.mark.parametrize("kind", [["rsa", "-b", "1024"], ["ecdsa", "-b", "256"], ["ed25519"]])
def test_an_openssh_key_gives_the_numbers_of_the_same_key_converted_to_pem(tmp_path, kind):
    assert SSH_KEYGEN is not None
    path = tmp_path / "id_key"
    subprocess.run([SSH_KEYGEN, "-q", "-t", *kind, "-N", "", "-f", str(path)], check=True)
    known = path.read_text()
    assert "OPENSSH PRIVATE KEY" in known
    numbers = private_key_numbers(known)
    assert numbers
    if kind[0] == "ed25519":  # ssh-keygen writes no PEM of it; openssl reads no OpenSSH key
        return
    converted = tmp_path / "converted.pem"
    converted.write_text(known)
    converted.chmod(0o600)  # ssh-keygen reads no key others may read
    subprocess.run([SSH_KEYGEN, "-q", "-p", "-m", "PEM", "-N", "", "-f", str(converted)],
                   check=True, capture_output=True)  # fmt: skip
    assert set(private_key_numbers(converted.read_text())) == set(numbers)
    listing = openssl("pkey", "-in", str(converted), "-text", "-noout")
    shown = flat(SecretRedactor([known]).redact(listing).text)
    for label, digits in private_and_public(listing)[0].items():
        assert digits.lstrip("0") not in shown, label


def test_openssl_text_lists_fifteen_octets_a_line():
    octets = bytes(range(0x80, 0x80 + 31))
    lines = openssl_text(integer_content(int.from_bytes(octets, "big"))).split("\n")
    assert lines[0] == "00:" + ":".join(f"{b:02x}" for b in octets[:14]) + ":"
    assert [len(line) for line in lines] == [45, 45, 5]


# --- garbage: never raises, bounded ---

ARMOURS = ("PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY")


@fuzz_settings()
@given(st.binary(max_size=600), st.sampled_from(ARMOURS), st.booleans())
def test_garbage_in_a_key_armour_or_bare_base64_never_raises(data, armour, armoured):
    body = base64.b64encode(data).decode()
    value = f"-----BEGIN {armour}-----\n{body}\n-----END {armour}-----" if armoured else body
    for number in private_key_numbers(value):
        assert len(number.lstrip(b"\x00")) >= 8
    key_number_forms(value)


@needs_openssl
def test_a_real_key_cut_or_corrupted_anywhere_never_raises(keys):
    der = base64.b64decode("".join(keys["rsa-3-primes"].read_text().splitlines()[1:-1]))
    for cut in range(0, len(der), 7):
        for data in (der[:cut], der[:cut] + b"\xff" + der[cut + 1 :], der[cut:]):
            private_key_numbers(base64.b64encode(data).decode())
    huge = b"\x30\x84\xff\xff\xff\xff" + b"\x02\x01\x00" * 100
    assert private_key_numbers(base64.b64encode(huge).decode()) == ()
    openssh = b"openssh-key-v1\x00" + b"\x00\x00\x00\x04none" * 3 + b"\xff\xff\xff\xff"
    assert private_key_numbers(base64.b64encode(openssh).decode()) == ()
