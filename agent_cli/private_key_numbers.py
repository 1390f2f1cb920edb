"""The private numbers of a private key that a secret value holds. Pure: no I/O.

Why: a key known as a secret (a PEM in `.env`, the `private_key` of a JSON file) is
hidden as its text, but `openssl pkey -text`, `openssl rsa -text` and `openssl asn1parse`
print the numbers it holds, and its private ones rebuild the key (a prime factors the
modulus). `agent_cli.key_number_forms` writes them as those tools print them, and
`secret_forms` hides them beside the key.

Contract: `private_key_numbers(value)` gives the private numbers of every private key in
`value`, each once, as octets: a DER INTEGER's content (a leading 00 when its top bit is
set, as `openssl -text` prints it) or a key's octets (EC's, Ed25519's). Read are
- PEM blocks (`-----BEGIN <label>-----` to `-----END <label>-----`, their line breaks
  also written `\\n`), and a value that is all base64 of a key (one kept without its
  armour), of every shape: PKCS#1 (`RSA PRIVATE KEY`, with other primes too), SEC1 (`EC
  PRIVATE KEY`), OpenSSL's `DSA PRIVATE KEY`, unencrypted PKCS#8 (`PRIVATE KEY`: RSA,
  RSA-PSS, EC, Ed25519, Ed448, X25519, X448, DSA, DH; told by what it holds, not its
  algorithm's id), and unencrypted OpenSSH (`agent_cli.openssh_key_numbers`);
- private are RSA's d, p, q, d mod (p-1), d mod (q-1), q^-1 mod p and the other primes'
  three; EC's private scalar; an Edwards or Montgomery curve's private key; DSA's and
  DH's x. The public parts are not returned, so never hidden: the modulus n, the public
  exponent e, an EC public point, the curve, DSA's p, q, g, y. Every certificate and
  `ssh-keygen -y` print them, and they rebuild nothing.
An encrypted key (`ENCRYPTED PRIVATE KEY`, a legacy PEM with a `Proc-Type` header, an
OpenSSH key with a cipher) gives nothing: its numbers cannot be printed without the
passphrase. A number of fewer than `MIN_NUMBER_OCTETS` significant octets is no key's
(garbage read as a key) and is left out. Never raises on garbage; the work is bounded: a
value over `MAX_VALUE_CHARS` characters is not read, at most `MAX_BLOCKS` blocks of one.
"""

from __future__ import annotations

import re

from agent_cli.der_reader import (
    INTEGER,
    OCTET_STRING,
    SEQUENCE,
    Element,
    children,
    read_single,
)
from agent_cli.openssh_key_numbers import OPENSSH_MAGIC, openssh_private_numbers
from agent_cli.secret_encodings import decode_base64

MAX_VALUE_CHARS = 256 * 1024
MAX_BLOCKS = 16
MIN_NUMBER_OCTETS = 8
_PEM_BLOCK = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY)-----(.*?)-----END \1-----", re.DOTALL
)
_ESCAPED_BREAKS = re.compile(r"\\r|\\n|\s")
# A key kept without its armour: base64 only (either alphabet), long enough for the
# smallest key (a PKCS#8 Ed25519 key is 48 octets, 64 characters).
_BARE_BASE64 = re.compile(r"[A-Za-z0-9+/_-]{64,}={0,2}")
_RSA_FIELDS = 9  # version, n, e, d, p, q, d mod (p-1), d mod (q-1), q^-1 mod p
_DSA_FIELDS = 6  # version, p, q, g, y, x


def private_key_numbers(value: str) -> tuple[bytes, ...]:
    """The private numbers of every key in `value` (module contract)."""
    if len(value) > MAX_VALUE_CHARS or not _may_hold_key(value):
        return ()
    numbers: dict[bytes, None] = {}
    for data in _key_data(value):
        numbers.update(dict.fromkeys(key_numbers(data)))
    return tuple(numbers)


def key_numbers(data: bytes) -> tuple[bytes, ...]:
    """The private numbers of the one key `data` (a PEM block's decoded octets) encodes,
    those of fewer than `MIN_NUMBER_OCTETS` significant octets left out."""
    found = _numbers_of(data)
    return tuple(number for number in found if len(number.lstrip(b"\x00")) >= MIN_NUMBER_OCTETS)


def pem_key_bodies(value: str) -> list[str]:
    """The text between the armour lines of each unencrypted PEM private key block in
    `value` (at most `MAX_BLOCKS`), as `value` holds it, line breaks and all; a block
    with headers (`Proc-Type: 4,ENCRYPTED`: its numbers cannot be read) is left out.
    Empty for a value over `MAX_VALUE_CHARS` characters."""
    if len(value) > MAX_VALUE_CHARS or "PRIVATE KEY-----" not in value:
        return []
    bodies: list[str] = []
    for index, block in enumerate(_PEM_BLOCK.finditer(value)):
        if index == MAX_BLOCKS:
            break
        if ":" not in block.group(2):
            bodies.append(block.group(2))
    return bodies


def decoded_body(text: str) -> bytes | None:
    """The octets of a key's base64 `text` (either alphabet, padding optional, its line
    breaks, blanks and `\\n` escapes left out), or None when it is no base64."""
    return decode_base64(_compact(text))


def _may_hold_key(value: str) -> bool:
    return "PRIVATE KEY-----" in value or _BARE_BASE64.fullmatch(_compact(value)) is not None


def _key_data(value: str) -> list[bytes]:
    """The decoded content of each PEM block in `value` (`pem_key_bodies`), or of all of
    it when it is bare base64."""
    if "PRIVATE KEY-----" not in value:
        decoded = decoded_body(value)
        return [decoded] if decoded is not None else []
    found = (decoded_body(body) for body in pem_key_bodies(value))
    return [data for data in found if data is not None]


def _compact(text: str) -> str:
    """`text` without white space and without line breaks written `\\n` (a `.env` value)."""
    return _ESCAPED_BREAKS.sub("", text)


def _numbers_of(data: bytes) -> tuple[bytes, ...]:
    """The private numbers of the one key `data` encodes, of whatever shape."""
    if data.startswith(OPENSSH_MAGIC):
        return openssh_private_numbers(data)
    key = read_single(data)
    fields = children(key) if key is not None and key.tag == SEQUENCE else None
    if fields is None:
        return ()
    return _pkcs8(fields) or _pkcs1(fields) or _sec1(fields) or _dsa(fields)


def _pkcs8(fields: tuple[Element, ...]) -> tuple[bytes, ...]:
    """Of a PKCS#8 key (version, algorithm, the key in an OCTET STRING, ...), what the
    key in it holds: a key of its own shape (RSA's, SEC1's), a curve's private octets
    (Ed25519, X25519) or an INTEGER (DSA's, DH's x)."""
    if len(fields) < 3 or [field.tag for field in fields[:3]] != [INTEGER, SEQUENCE, OCTET_STRING]:
        return ()
    inner = read_single(fields[2].content)
    if inner is None:
        return ()
    if inner.tag in (OCTET_STRING, INTEGER):
        return (inner.content,)
    inner_fields = children(inner) if inner.tag == SEQUENCE else None
    if inner_fields is None:
        return ()
    return _pkcs1(inner_fields) or _sec1(inner_fields)


def _pkcs1(fields: tuple[Element, ...]) -> tuple[bytes, ...]:
    """Of a PKCS#1 RSA key, d, p, q, both exponents and the coefficient, and of each
    other prime (a multi-prime key's last field) its prime, exponent and coefficient."""
    if len(fields) not in (_RSA_FIELDS, _RSA_FIELDS + 1):
        return ()
    if any(field.tag != INTEGER for field in fields[:_RSA_FIELDS]):
        return ()
    numbers = [field.content for field in fields[3:_RSA_FIELDS]]
    others = children(fields[-1]) if len(fields) > _RSA_FIELDS else None
    for other in others or ():
        numbers += [field.content for field in children(other) or () if field.tag == INTEGER]
    return tuple(numbers)


def _sec1(fields: tuple[Element, ...]) -> tuple[bytes, ...]:
    """Of a SEC1 EC key (version 1, the private key's octets, optional parameters and
    public point), the private octets."""
    if len(fields) < 2 or fields[0].tag != INTEGER or fields[0].content != b"\x01":
        return ()
    return (fields[1].content,) if fields[1].tag == OCTET_STRING else ()


def _dsa(fields: tuple[Element, ...]) -> tuple[bytes, ...]:
    """Of OpenSSL's DSA key (version 0, p, q, g, y, x), x."""
    if len(fields) != _DSA_FIELDS or any(field.tag != INTEGER for field in fields):
        return ()
    return (fields[-1].content,) if fields[0].content == b"\x00" else ()
