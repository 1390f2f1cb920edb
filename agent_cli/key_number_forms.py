"""The texts in which common tools print a private key's private numbers. Pure: no I/O.

Why: `openssl pkey -text`, `openssl rsa -text` and `openssl asn1parse` of a key known as
a secret print its private numbers, which rebuild the key; the key's own forms do not
match them. `secret_forms` hides these texts beside the key's.

Contract: `key_number_forms(value)` gives, for each private number of each key in
`value` (`agent_cli.private_key_numbers`, which says which are private: the public ones,
the modulus, the public exponent, an EC public point, are never learned), these texts:
- as openssl's `-text` prints it: its octets as lower-case hex joined by `:`, 15 a line,
  each line but the last ending in `:`, the lines joined by a line feed. The blanks
  openssl puts before each line are no part of the text: `secret_forms` matches a line
  break of a form with a short gap (`secret_pieces.LINE_GAP`), so the printed listing
  matches however it is indented, and each full line is a secret of its own too
  (`secret_forms.material_lines`), so part of a listing (`head`) is hidden line by
  line. A key's octets (EC's, Ed25519's) also as the integer they are (leading zeros
  left out, a 00 before a top bit set);
- its hex without leading zeros, upper case (`asn1parse` prints an INTEGER so, and a
  PKCS#8 key's inner key as one upper-case hex dump, which holds each number's) and
  lower case (Python's `hex()`, `xxd -p` of the key's DER);
- its decimal (Python's `int`, `cryptography`'s `private_numbers()`), for up to
  `MAX_DECIMAL_OCTETS` octets (Python refuses to print longer integers). openssl prints
  only numbers of up to 64 bits in decimal, and no private number is that small.
- what programs print of its octets (`secret_encodings.byte_forms`, the forms a secret
  value's own bytes take: hex, Python's bytes `repr`, base64 and base64url on their own,
  padded or not; not `stream_forms`, base32 or base64 deep in a longer stream, where no
  tool puts a key's number, and which would make redaction of every output slower): of its
  fewest big-endian octets (a JWK's `"d"`, `"p"`, `"dp"`, ... in base64url;
  `n.p.to_bytes(64, "big")` printed) and, for a key's octets of a fixed width whose
  leading zeros are more than a DER sign octet (EC's scalar, an Edwards or Montgomery
  key's: a JWK's EC `"d"`, `base64` of an Ed25519 key's raw bytes), of those too. Not of
  a DER INTEGER's content with its sign octet (`00` before a top bit set): no tool
  prints a number so, and the two cannot be told apart (a P-256 scalar `00 9f ...`, one
  key in 512, is hidden in its fewest octets only).
"""

from __future__ import annotations

from agent_cli.der_reader import integer_content
from agent_cli.private_key_numbers import private_key_numbers
from agent_cli.secret_encodings import byte_forms

OPENSSL_OCTETS_PER_LINE = 15
MAX_DECIMAL_OCTETS = 1024


def key_number_forms(value: str) -> set[str]:
    """The printed texts of the private numbers of every key in `value` (module contract);
    empty when it holds none."""
    forms: set[str] = set()
    for octets in private_key_numbers(value):
        number = int.from_bytes(octets, "big")
        forms |= {openssl_text(octets), openssl_text(integer_content(number))}
        digits = f"{number:x}"
        forms |= {digits, digits.upper()}
        if len(octets) <= MAX_DECIMAL_OCTETS:
            forms.add(str(number))
        for data in printed_octets(octets):
            forms |= byte_forms(data)
    return forms


def printed_octets(octets: bytes) -> set[bytes]:
    """The octets in which programs print a number read as `octets` (module contract): its
    fewest, and `octets` itself when its leading zeros are more than a DER sign octet."""
    fewest = octets.lstrip(b"\x00")
    if octets == integer_content(int.from_bytes(octets, "big")):
        return {fewest}
    return {fewest, octets}


def openssl_text(octets: bytes) -> str:
    """`octets` as `openssl -text` lists them, without the indentation of each line."""
    lines = [
        ":".join(f"{octet:02x}" for octet in octets[start : start + OPENSSL_OCTETS_PER_LINE])
        for start in range(0, len(octets), OPENSSL_OCTETS_PER_LINE)
    ]
    return ":\n".join(lines)
