"""A small reader of DER, ASN.1's distinguished encoding (what a PEM key's base64 holds).

Why our own: the standard library reads none, and a crypto dependency for reading a few
integers out of a key the user already holds is not worth it
(`agent_cli.private_key_numbers` is the one user). Pure: no I/O.

Contract: `read_elements(data)` splits `data` into its top-level elements (tag and
content, the content a slice of `data`); `children(element)` does the same for a
constructed element's content. Both read only low tag numbers (under 31, one byte) and
definite lengths of up to four length bytes, and give None for anything else: bytes
that are no DER, one cut short, an element with trailing bytes inside its parent. They
never raise on garbage, and their work is bounded: one pass over at most `MAX_ELEMENTS`
elements, no recursion.
"""

from __future__ import annotations

from dataclasses import dataclass

INTEGER = 0x02
BIT_STRING = 0x03
OCTET_STRING = 0x04
NULL = 0x05
OBJECT_IDENTIFIER = 0x06
SEQUENCE = 0x30
MAX_ELEMENTS = 64  # a key's sequences hold at most a dozen; more is no key
_CONSTRUCTED = 0x20
_HIGH_TAG_NUMBER = 0x1F
_MAX_LENGTH_BYTES = 4


@dataclass(frozen=True, repr=False)
class Element:
    """One DER element: its identifier octet and its content octets (never in `repr`:
    a key's content is a secret)."""

    tag: int
    content: bytes

    @property
    def is_constructed(self) -> bool:
        return bool(self.tag & _CONSTRUCTED)

    def __repr__(self) -> str:
        return f"Element(tag=0x{self.tag:02x}, <{len(self.content)} bytes>)"


def read_elements(data: bytes) -> tuple[Element, ...] | None:
    """The elements `data` holds one after another, all of it; None when it is not
    exactly a series of at most `MAX_ELEMENTS` well-formed elements."""
    elements: list[Element] = []
    offset = 0
    while offset < len(data):
        if len(elements) == MAX_ELEMENTS:
            return None
        read = _read_element(data, offset)
        if read is None:
            return None
        element, offset = read
        elements.append(element)
    return tuple(elements)


def children(element: Element) -> tuple[Element, ...] | None:
    """The elements inside a constructed `element` (a SEQUENCE); None for a primitive
    one or content that is no series of elements."""
    if not element.is_constructed:
        return None
    return read_elements(element.content)


def read_single(data: bytes) -> Element | None:
    """The one element `data` is; None when it is none or more than one."""
    elements = read_elements(data)
    return elements[0] if elements is not None and len(elements) == 1 else None


def _read_element(data: bytes, offset: int) -> tuple[Element, int] | None:
    """The element at `offset` and the offset after it, or None."""
    if offset + 2 > len(data):
        return None
    tag, first = data[offset], data[offset + 1]
    if tag & _HIGH_TAG_NUMBER == _HIGH_TAG_NUMBER:
        return None
    start = offset + 2
    if first < 0x80:
        length = first
    else:
        count = first & 0x7F
        if count == 0 or count > _MAX_LENGTH_BYTES or start + count > len(data):
            return None  # indefinite (BER, not DER) or too long to be a key
        length = int.from_bytes(data[start : start + count], "big")
        start += count
    end = start + length
    if end > len(data):
        return None
    return Element(tag, data[start:end]), end


def integer_content(number: int) -> bytes:
    """The content octets of a DER INTEGER holding a non-negative `number`: its fewest
    big-endian octets, with a leading 00 when the top bit is set (as a key holds it)."""
    return number.to_bytes(number.bit_length() // 8 + 1, "big")
