"""The lines of a private key's PEM that hold no private byte. Pure: no I/O.

Why: each line of a key's PEM is a secret of its own (`secret_forms.material_lines`), so
that part of a key (`head`, `sed -n 2,9p`) is hidden line by line. But a private key
holds its public numbers too (RSA's modulus and exponent, an EC public point, an
OpenSSH key's public blob, DSA's p, q, g, y), and where one stands at the same byte
alignment (mod 3) as in a public encoding of the key, that encoding's base64 (`openssl
rsa -pubout`, `-RSAPublicKey_out`, `ssh-keygen -y`, a `.pub` file, the DER in
`base64 -w0`, a JWK's `n`) holds the PEM's lines that encode those numbers alone: the
public key was hidden, and a model that saved what it saw wrote `[REDACTED]` into a file.
A line is a secret only when the bytes it encodes include a private one.

Contract: `public_key_lines(value)` gives the body lines of each PEM private key block
in `value` (`private_key_numbers.pem_key_bodies`) that encode no byte of a private
number (`private_key_numbers.key_numbers`: RSA's d, primes, exponents and coefficient,
an EC scalar, an Edwards or Montgomery key's private octets, DSA's and DH's x), only
structure (tags, lengths, OIDs, a version, OpenSSH's names and check numbers) and public
numbers. Each line is as `value` holds it, without its line break. A line is placed by
the base64 characters before it in its block (any line width: openssl's 64, OpenSSH's
70), and one whose characters encode even some bits of a private byte is not given. A
block whose key is not read (encrypted, of a shape not known, garbage, cut short) gives
no line: all of it stays secret. `public_key_stretches(value)` gives, by the same rule,
each longest stretch of a key's base64 (its lines joined) whose characters encode no
private byte: a piece of text left at a cut (`secret_forms.SecretForms.is_middle_piece`)
that lies inside one is what a public encoding of the key shares with it, not a secret's
piece. Never raises on garbage.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent_cli.openssh_key_numbers import OPENSSH_MAGIC, openssh_keys_read_whole
from agent_cli.private_key_numbers import decoded_body, key_numbers, pem_key_bodies

_LINE_BREAKS = re.compile(r"\r\n|\r|\n")
_BASE64_LINE = re.compile(r"[A-Za-z0-9+/_-]*={0,2}")
_BITS_PER_CHAR = 6


def public_key_lines(value: str) -> frozenset[str]:
    """The lines of the keys in `value` that encode no private byte (module contract)."""
    lines: set[str] = set()
    for body in pem_key_bodies(value):
        read = _read_block(body)
        if read is None:
            continue
        chars = 0  # the base64 characters of the lines before
        for line in read.lines:
            if line and not any(read.private[chars : chars + len(line)]):
                lines.add(line)
            chars += len(line)
    return frozenset(lines)


def public_key_stretches(value: str) -> frozenset[str]:
    """Of each key in `value`, every longest stretch of its base64 (line breaks left out)
    whose characters encode no private byte (module contract): what a public encoding of
    the key may share with it."""
    stretches: set[str] = set()
    for body in pem_key_bodies(value):
        read = _read_block(body)
        if read is None:
            continue
        joined = "".join(read.lines)
        start = 0
        for index, private in enumerate([*read.private, True]):
            if private:
                if index > start:
                    stretches.add(joined[start:index])
                start = index + 1
    return frozenset(stretches)


@dataclass(frozen=True, repr=False)
class _Block:
    """A key block's lines and, for each base64 character of them in order, whether it
    encodes a bit of a private byte (never in `repr`: a key is a secret)."""

    lines: list[str]
    private: list[bool]


def _read_block(body: str) -> _Block | None:
    """`body` read as a key's lines; None when no key is read, an OpenSSH block holds a key
    not read to its end, or the lines are not all
    base64 (then every line stays secret)."""
    data = decoded_body(body)
    if data is None or (data.startswith(OPENSSH_MAGIC) and not openssh_keys_read_whole(data)):
        return None  # (a key left unread keeps private octets no span marks)
    spans = _private_spans(data)
    lines = [line.strip(" \t") for line in _LINE_BREAKS.split(body)]  # (a key in YAML)
    if not spans or not all(_BASE64_LINE.fullmatch(line) for line in lines):
        return None
    octets = bytearray(len(data))
    for start, end in spans:
        octets[start:end] = b"\x01" * (end - start)
    count = sum(map(len, lines))
    private = [
        any(octets[index * _BITS_PER_CHAR // 8 : (index * _BITS_PER_CHAR + 5) // 8 + 1])
        for index in range(count)
    ]
    return _Block(lines, private)


def _private_spans(data: bytes) -> list[tuple[int, int]]:
    """Where in the key's octets `data` its private numbers stand, as (start, end): each
    number as the key holds it (a DER INTEGER's content less its sign octet, an EC
    key's octets at its curve's width) or, where it is not held so (an OpenSSH mpint of
    a padded EC scalar), in its fewest octets; every place it stands. A number the key does not hold (OpenSSH's
    d mod (p-1), computed) stands nowhere."""
    spans: list[tuple[int, int]] = []
    for number in map(_without_sign_octet, key_numbers(data)):
        places = _places(data, number) or _places(data, number.lstrip(b"\x00"))
        spans += places
    return spans


def _without_sign_octet(number: bytes) -> bytes:
    """`number` without the zero octet a DER INTEGER puts before a first octet whose top
    bit is set: that octet says only that the bit is set, and a line that encodes nothing
    of the key's but it holds no private byte."""
    if len(number) > 1 and number[0] == 0 and number[1] & 0x80:
        return number[1:]
    return number


def _places(data: bytes, octets: bytes) -> list[tuple[int, int]]:
    """Every (start, end) at which `octets` stand in `data`."""
    places: list[tuple[int, int]] = []
    at = data.find(octets) if octets else -1
    while at >= 0:
        places.append((at, at + len(octets)))
        at = data.find(octets, at + 1)
    return places
