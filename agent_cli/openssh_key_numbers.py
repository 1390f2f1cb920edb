"""The private numbers of an unencrypted OpenSSH private key (`-----BEGIN OPENSSH PRIVATE
KEY-----`, what `ssh-keygen` writes). Pure: no I/O.

Why: the same key converted (`ssh-keygen -p -m PEM`) and printed (`openssl rsa -text`)
shows its numbers; `agent_cli.private_key_numbers` learns them from the OpenSSH form too.

Contract: `openssh_private_numbers(data)` takes the decoded bytes of the block (they begin
with `OPENSSH_MAGIC`) and gives, for each key of a kind it knows, its private numbers as
DER INTEGER content octets (`der_reader.integer_content`) or as the key's octets:
`ssh-rsa`'s d, p, q, q^-1 mod p and d mod (p-1), d mod (q-1) (which the PEM form holds
and `openssl -text` prints), `ssh-ed25519`'s 32-octet seed, `ecdsa-sha2-nistp*`'s private
scalar padded to its curve's size (as openssl prints it), `ssh-dss`'s x. Public parts
(n, e, the public point or key, p, q, g, y) are not returned. An encrypted key (a cipher
other than `none`) gives nothing; a key of another kind ends the reading (its layout is
unknown). `openssh_keys_read_whole(data)` says whether every key was read to its end.
Never raises on garbage; reads each field once, at most `MAX_KEYS` keys.
"""

from __future__ import annotations

from agent_cli.der_reader import integer_content

OPENSSH_MAGIC = b"openssh-key-v1\x00"
MAX_KEYS = 8
_CURVE_OCTETS = {
    b"ecdsa-sha2-nistp256": 32,
    b"ecdsa-sha2-nistp384": 48,
    b"ecdsa-sha2-nistp521": 66,
}


class _Short(Exception):
    """The data ended inside a field (internal: never leaves this module)."""


class _Fields:
    """SSH wire fields read one after another from `data` (RFC 4251: uint32, string)."""

    def __init__(self, data: bytes, offset: int = 0) -> None:
        self._data = data
        self._offset = offset

    def uint32(self) -> int:
        end = self._offset + 4
        if end > len(self._data):
            raise _Short
        value = int.from_bytes(self._data[self._offset : end], "big")
        self._offset = end
        return value

    def string(self) -> bytes:
        length = self.uint32()
        end = self._offset + length
        if end > len(self._data):
            raise _Short
        value = self._data[self._offset : end]
        self._offset = end
        return value

    def mpint(self) -> int:
        return int.from_bytes(self.string(), "big")


def openssh_private_numbers(data: bytes) -> tuple[bytes, ...]:
    """The private numbers of the keys in `data` (module contract)."""
    return tuple(_read_keys(data)[0])


def openssh_keys_read_whole(data: bytes) -> bool:
    """True when `data` is an unencrypted OpenSSH block every key of which is of a kind
    known here and was read to its end: only then do its numbers say where every private
    octet stands (a key of another kind, or data cut short, hides some)."""
    return _read_keys(data)[1]


def _read_keys(data: bytes) -> tuple[list[bytes], bool]:
    """The private numbers of the keys in `data`, and whether every key was read whole."""
    numbers: list[bytes] = []
    if not data.startswith(OPENSSH_MAGIC):
        return numbers, False
    try:
        outer = _Fields(data, len(OPENSSH_MAGIC))
        cipher, _kdf, _kdf_options = outer.string(), outer.string(), outer.string()
        count = outer.uint32()
        if cipher != b"none" or count > MAX_KEYS:
            return numbers, False
        for _ in range(count):
            outer.string()  # a public key
        private = _Fields(outer.string())
        for _ in range(2):
            private.uint32()  # the two check numbers
        for _ in range(count):
            found = _key_numbers(private)
            if found is None:
                return numbers, False
            numbers.extend(found)
            private.string()  # its comment
    except _Short:
        return numbers, False
    return numbers, count > 0


def _key_numbers(fields: _Fields) -> list[bytes] | None:
    """The private numbers of the next key in `fields`; None for a kind not known."""
    kind = fields.string()
    if kind == b"ssh-rsa":
        _n, _e, d, iqmp, p, q = (fields.mpint() for _ in range(6))
        found = [d, p, q, iqmp]
        if p > 1 and q > 1:
            found += [d % (p - 1), d % (q - 1)]
        return [integer_content(number) for number in found]
    if kind == b"ssh-ed25519":
        _public, private = fields.string(), fields.string()
        return [private[:32]]  # the seed; the rest is the public key
    if kind == b"ssh-dss":
        *_group_and_public, x = (fields.mpint() for _ in range(5))
        return [integer_content(x)]
    if kind in _CURVE_OCTETS:
        _curve, _point, scalar = fields.string(), fields.string(), fields.mpint()
        size = _CURVE_OCTETS[kind]
        return [scalar.to_bytes(size, "big")] if scalar.bit_length() <= 8 * size else []
    return None
